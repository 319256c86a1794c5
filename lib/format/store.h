/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_STORE_H
#define __LOCKSTAT_STORE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The LKST profile file: a 64-byte header, then an append-only stream of
 * CRC-checked chunks. Documented in man/lockstat-data.5.
 */
#define LKST_MAGIC		"LKSTAT\0\n"
#define LKST_MAJOR		1
#define LKST_MINOR		1
#define LKST_HEADER_LEN		64
#define LKST_CHUNK_HDR_LEN	16	/* type, flags, payload length */
#define LKST_CHUNK_TRAILER_LEN	4	/* CRC-32 */
#define LKST_MAX_PAYLOAD	(256u << 20)

#define CHUNK_F_CRITICAL	1u

enum chunk_type {
	CHUNK_META = 1,
	CHUNK_STRTAB = 2,
	CHUNK_KSYMS = 3,
	CHUNK_STACKS = 4,
	CHUNK_LOCKSTAT = 5,
	CHUNK_LOST = 6,
	CHUNK_END = 7,
	CHUNK_SAMPLES = 8,
	CHUNK_MAPPING = 9,
	CHUNK_USYMS = 10,
	CHUNK_TABLE = 11,
};

const char *chunk_type_name(uint32_t type);

struct store_header {
	uint16_t major;
	uint16_t minor;
	uint32_t header_len;	/* chunks start here; a later minor may grow it */
	uint32_t flags;
	uint64_t created_ns;		/* CLOCK_REALTIME */
	uint8_t recording_id[16];
};

/* Writer: each chunk reaches the file with one write(), CRC last. */
int store_write_header(int fd, const struct store_header *h);
int store_write_chunk(int fd, uint32_t type, uint32_t flags, const void *payload, size_t len);

/* Reader: the whole file is read into memory, then walked. */
struct store_file {
	uint8_t *data;
	size_t size;
	struct store_header hdr;
};

struct store_chunk {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;	/* of the chunk header in the file */
	const uint8_t *payload;
	size_t len;
};

enum walk_status {
	WALK_CHUNK,		/* *chunk is valid */
	WALK_EOF,		/* clean end of file */
	WALK_TRUNCATED,		/* a short chunk: stop here, keep what came before */
	WALK_BAD_CRC,		/* a damaged chunk: stop here, keep what came before */
};

/* Returns 0 or -errno; *why says what is wrong with a foreign or bad file. */
int store_open(const char *path, struct store_file *f, const char **why);
int store_parse(struct store_file *f, const char **why);	/* f->data/size set */
void store_close(struct store_file *f);
/* *pos starts at hdr.header_len and is advanced past each good chunk. */
enum walk_status store_next_chunk(const struct store_file *f, uint64_t *pos, struct store_chunk *c);

#endif
