/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_BUF_H
#define __LOCKSTAT_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/*
 * Chunk payloads are LEB128 varints (protobuf's encoding, so the pprof
 * writer can share it): small, endian-free, and a truncated value is
 * detected rather than misread.
 */
struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	bool oom;	/* sticky: one check at the end instead of one per put */
};

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
void buf_put(struct buf *b, const void *p, size_t n);
void buf_put_varint(struct buf *b, uint64_t v);
void buf_put_svarint(struct buf *b, int64_t v);	/* zigzag */
void buf_put_str(struct buf *b, const char *s);	/* varint length + bytes */
void buf_put_le32(struct buf *b, uint32_t v);
void buf_put_le64(struct buf *b, uint64_t v);

/* A bounds-checked read cursor; any overrun sets err and yields zeros. */
struct cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool err;
};

void cursor_init(struct cursor *c, const void *p, size_t n);
uint64_t cursor_varint(struct cursor *c);
int64_t cursor_svarint(struct cursor *c);
/* Returns a NUL-terminated copy (malloc) or NULL with err set. */
char *cursor_str(struct cursor *c);
bool cursor_done(const struct cursor *c);

/* Grow *array (elements of size bytes) to hold need; 0 or -ENOMEM. */
int grow_array(void **array, size_t *cap, size_t need, size_t size);

uint32_t get_le32(const uint8_t *p);
uint64_t get_le64(const uint8_t *p);
uint16_t get_le16(const uint8_t *p);

#endif
