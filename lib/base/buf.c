// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"

void buf_init(struct buf *b)
{
	memset(b, 0, sizeof(*b));
}

void buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->oom = false;
}

static bool buf_reserve(struct buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void buf_put(struct buf *b, const void *p, size_t n)
{
	if (!n || !buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void buf_put_varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	buf_put(b, tmp, n);
}

void buf_put_svarint(struct buf *b, int64_t v)
{
	buf_put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void buf_put_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	buf_put_varint(b, n);
	buf_put(b, s, n);
}

void buf_put_le32(struct buf *b, uint32_t v)
{
	uint8_t t[4] = { v, v >> 8, v >> 16, v >> 24 };

	buf_put(b, t, 4);
}

void buf_put_le64(struct buf *b, uint64_t v)
{
	buf_put_le32(b, (uint32_t)v);
	buf_put_le32(b, (uint32_t)(v >> 32));
}

void cursor_init(struct cursor *c, const void *p, size_t n)
{
	c->p = p;
	c->end = c->p + n;
	c->err = false;
}

uint64_t cursor_varint(struct cursor *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (!c->err) {
		uint8_t byte;

		if (c->p >= c->end || shift > 63) {
			c->err = true;
			break;
		}
		byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

int64_t cursor_svarint(struct cursor *c)
{
	uint64_t v = cursor_varint(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

char *cursor_str(struct cursor *c)
{
	uint64_t n = cursor_varint(c);
	char *s;

	if (c->err || n > (uint64_t)(c->end - c->p)) {
		c->err = true;
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		c->err = true;
		return NULL;
	}
	memcpy(s, c->p, n);
	s[n] = '\0';
	c->p += n;
	return s;
}

bool cursor_done(const struct cursor *c)
{
	return c->err || c->p >= c->end;
}

uint16_t get_le16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}

uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

int grow_array(void **array, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*array, n * size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*cap = n;
	return 0;
}
