// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "buf.h"
#include "store.h"

const char *chunk_type_name(uint32_t type)
{
	static const char *const names[] = {
		[CHUNK_META] = "META", [CHUNK_STRTAB] = "STRTAB",
		[CHUNK_KSYMS] = "KSYMS", [CHUNK_STACKS] = "STACKS",
		[CHUNK_LOCKSTAT] = "LOCKSTAT", [CHUNK_LOST] = "LOST",
		[CHUNK_END] = "END", [CHUNK_SAMPLES] = "SAMPLES",
		[CHUNK_MAPPING] = "MAPPING", [CHUNK_USYMS] = "USYMS", [CHUNK_TABLE] = "TABLE",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		b += w;
		n -= w;
	}
	return 0;
}

static uint32_t crc(const void *p, size_t n, uint32_t seed)
{
	return crc32(seed, p, n);
}

int store_write_header(int fd, const struct store_header *h)
{
	uint8_t out[LKST_HEADER_LEN] = { 0 };
	struct buf b;
	int err;

	buf_init(&b);
	buf_put(&b, LKST_MAGIC, 8);
	buf_put(&b, (uint8_t[]){ h->major, h->major >> 8, h->minor, h->minor >> 8 }, 4);
	buf_put_le32(&b, LKST_HEADER_LEN);
	buf_put_le32(&b, h->flags);
	buf_put_le32(&b, 0);
	buf_put_le64(&b, h->created_ns);
	buf_put(&b, h->recording_id, 16);
	if (b.oom) {
		buf_free(&b);
		return -ENOMEM;
	}
	memcpy(out, b.data, b.len);
	buf_free(&b);
	{
		uint32_t c = crc(out, 60, 0);

		out[60] = c; out[61] = c >> 8; out[62] = c >> 16; out[63] = c >> 24;
	}
	err = write_all(fd, out, sizeof(out));
	return err;
}

int store_write_chunk(int fd, uint32_t type, uint32_t flags, const void *payload, size_t len)
{
	struct buf b;
	int err;

	if (len > LKST_MAX_PAYLOAD)
		return -EFBIG;
	buf_init(&b);
	buf_put_le32(&b, type);
	buf_put_le32(&b, flags);
	buf_put_le64(&b, len);
	buf_put(&b, payload, len);
	buf_put_le32(&b, crc(b.data, b.len, 0));
	err = b.oom ? -ENOMEM : write_all(fd, b.data, b.len);
	buf_free(&b);
	return err;
}

static int read_whole(const char *path, struct store_file *f)
{
	struct stat st;
	size_t got = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out_close;
	}
	f->data = malloc(st.st_size ? st.st_size : 1);
	if (!f->data) {
		err = -ENOMEM;
		goto out_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, f->data + got, st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? -errno : -EIO;
			goto out_close;
		}
		got += r;
	}
	f->size = got;
out_close:
	close(fd);
	return err;
}

int store_parse(struct store_file *f, const char **why)
{
	const uint8_t *d = f->data;

	if (f->size < 8 || memcmp(d, LKST_MAGIC, 8)) {
		*why = "not a lockstat profile (bad magic)";
		return -EINVAL;
	}
	if (f->size < LKST_HEADER_LEN) {
		*why = "truncated inside the file header";
		return -EINVAL;
	}
	if (crc(d, 60, 0) != get_le32(d + 60)) {
		*why = "file header checksum mismatch (damaged file)";
		return -EINVAL;
	}
	f->hdr.major = get_le16(d + 8);
	f->hdr.minor = get_le16(d + 10);
	if (f->hdr.major != LKST_MAJOR) {
		*why = "unsupported format major version (needs another lockstat)";
		return -EPROTONOSUPPORT;
	}
	f->hdr.header_len = get_le32(d + 12);
	if (f->hdr.header_len < LKST_HEADER_LEN || f->hdr.header_len > f->size) {
		*why = "bad header length (damaged file)";
		return -EINVAL;
	}
	f->hdr.flags = get_le32(d + 16);
	f->hdr.created_ns = get_le64(d + 24);
	memcpy(f->hdr.recording_id, d + 32, 16);
	return 0;
}

int store_open(const char *path, struct store_file *f, const char **why)
{
	int err;

	memset(f, 0, sizeof(*f));
	*why = NULL;
	err = read_whole(path, f);
	if (err) {
		store_close(f);
		return err;
	}
	err = store_parse(f, why);
	if (err)
		store_close(f);
	return err;
}

void store_close(struct store_file *f)
{
	free(f->data);
	f->data = NULL;
	f->size = 0;
}

enum walk_status store_next_chunk(const struct store_file *f, uint64_t *pos, struct store_chunk *c)
{
	const uint8_t *p = f->data + *pos;
	uint64_t left = f->size - *pos, len;

	if (*pos >= f->size)
		return WALK_EOF;
	if (left < LKST_CHUNK_HDR_LEN)
		return WALK_TRUNCATED;
	len = get_le64(p + 8);
	if (len > left - LKST_CHUNK_HDR_LEN ||
	    left - LKST_CHUNK_HDR_LEN - len < LKST_CHUNK_TRAILER_LEN)
		return len > LKST_MAX_PAYLOAD ? WALK_BAD_CRC : WALK_TRUNCATED;
	if (crc(p, LKST_CHUNK_HDR_LEN + len, 0) != get_le32(p + LKST_CHUNK_HDR_LEN + len))
		return WALK_BAD_CRC;
	c->type = get_le32(p);
	c->flags = get_le32(p + 4);
	c->offset = *pos;
	c->payload = p + LKST_CHUNK_HDR_LEN;
	c->len = len;
	*pos += LKST_CHUNK_HDR_LEN + len + LKST_CHUNK_TRAILER_LEN;
	return WALK_CHUNK;
}
