// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>
#include "base/htab.h"

/* FNV-1a, then a final mix so that the low bits used for slots are good. */
uint64_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/*
 * A slot is an 8-byte used flag, the key and the value, each rounded up to
 * 8 bytes so that values holding u64s are aligned.
 */
#define ROUND8(n)	(((n) + 7) & ~(size_t)7)

static size_t key_off(void)
{
	return 8;
}

static size_t val_off(const struct htab *h)
{
	return 8 + ROUND8(h->key_size);
}

static size_t slot_size(const struct htab *h)
{
	return val_off(h) + ROUND8(h->val_size);
}

static uint8_t *slot_at(const struct htab *h, size_t i)
{
	return h->slots + i * slot_size(h);
}

void htab_init(struct htab *h, size_t key_size, size_t val_size)
{
	memset(h, 0, sizeof(*h));
	h->key_size = key_size;
	h->val_size = val_size;
}

void htab_free(struct htab *h)
{
	free(h->slots);
	htab_init(h, h->key_size, h->val_size);
}

static uint8_t *probe(const struct htab *h, const void *key)
{
	size_t i = hash_bytes(key, h->key_size) & (h->cap - 1);

	for (;;) {
		uint8_t *s = slot_at(h, i);

		if (!s[0] || !memcmp(s + key_off(), key, h->key_size))
			return s;
		i = (i + 1) & (h->cap - 1);
	}
}

void *htab_find(const struct htab *h, const void *key)
{
	uint8_t *s;

	if (!h->cap)
		return NULL;
	s = probe(h, key);
	return s[0] ? s + val_off(h) : NULL;
}

static int grow(struct htab *h)
{
	struct htab bigger = *h;
	size_t i;

	bigger.cap = h->cap ? h->cap * 2 : 64;
	bigger.count = 0;
	bigger.slots = calloc(bigger.cap, slot_size(h));
	if (!bigger.slots)
		return -1;
	for (i = 0; i < h->cap; i++) {
		uint8_t *s = slot_at(h, i);

		if (s[0]) {
			memcpy(probe(&bigger, s + key_off()), s, slot_size(h));
			bigger.count++;
		}
	}
	free(h->slots);
	*h = bigger;
	return 0;
}

void *htab_get(struct htab *h, const void *key, int *inserted)
{
	uint8_t *s;

	if (inserted)
		*inserted = 0;
	if ((h->count + 1) * 2 > h->cap && grow(h))
		return NULL;
	s = probe(h, key);
	if (!s[0]) {
		s[0] = 1;
		memcpy(s + key_off(), key, h->key_size);
		memset(s + val_off(h), 0, h->val_size);
		h->count++;
		if (inserted)
			*inserted = 1;
	}
	return s + val_off(h);
}

void *htab_next(const struct htab *h, size_t *it, const void **key)
{
	while (*it < h->cap) {
		uint8_t *s = slot_at(h, (*it)++);

		if (s[0]) {
			if (key)
				*key = s + key_off();
			return s + val_off(h);
		}
	}
	return NULL;
}
