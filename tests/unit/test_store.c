// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/buf.h"
#include "format/store.h"
#include "fixtures.h"

/* One temp file per test, removed by the teardown. */
struct fixture {
	char path[64];
	int fd;
};

struct test_chunk {
	uint32_t type;
	uint32_t flags;
	size_t len;
	uint8_t payload[1000];
};

static struct test_chunk chunks[4];
#define NCHUNKS	(sizeof(chunks) / sizeof(chunks[0]))

static const struct store_header hdr = {
	.major = LKST_MAJOR,
	.minor = LKST_MINOR,
	.flags = 0x5,
	.created_ns = 0x1122334455667788ULL,
	.recording_id = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
};

static void init_chunks(void)
{
	size_t i;

	memset(chunks, 0, sizeof(chunks));
	chunks[0].type = CHUNK_META;
	chunks[0].flags = CHUNK_F_CRITICAL;
	chunks[0].len = 3;
	memcpy(chunks[0].payload, "abc", 3);
	chunks[1].type = CHUNK_KSYMS;
	chunks[1].len = 1000;
	for (i = 0; i < chunks[1].len; i++)
		chunks[1].payload[i] = (uint8_t)(i * 31 + 7);
	chunks[2].type = 99;		/* unknown to the store: it does not care */
	chunks[2].flags = 0x80000000u;
	chunks[2].len = 0;
	chunks[3].type = CHUNK_END;
	chunks[3].len = 5;
	memcpy(chunks[3].payload, "\x01\x02\x00\xff\x7f", 5);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->fd = fx_tmpfile(fx->path);
	*state = fx;
	init_chunks();
	return fx->fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->fd >= 0)
		close(fx->fd);
	unlink(fx->path);
	free(fx);
	return 0;
}

static void write_file(struct fixture *fx, const struct store_header *h)
{
	size_t i;

	assert_int_equal(store_write_header(fx->fd, h), 0);
	for (i = 0; i < NCHUNKS; i++)
		assert_int_equal(store_write_chunk(fx->fd, chunks[i].type, chunks[i].flags,
						   chunks[i].payload, chunks[i].len), 0);
}

/* Offset of chunk i in the file written by write_file(). */
static uint64_t chunk_offset(size_t i)
{
	uint64_t off = LKST_HEADER_LEN;
	size_t j;

	for (j = 0; j < i; j++)
		off += LKST_CHUNK_HDR_LEN + chunks[j].len + LKST_CHUNK_TRAILER_LEN;
	return off;
}

/* Overwrite one byte of the file. */
static void poke(struct fixture *fx, off_t off, uint8_t xor)
{
	uint8_t b;

	assert_int_equal(pread(fx->fd, &b, 1, off), 1);
	b ^= xor;
	assert_int_equal(pwrite(fx->fd, &b, 1, off), 1);
}

/* Walk the file: expect chunks [0, ngood) intact, then status end. */
static void expect_walk(struct fixture *fx, size_t ngood, enum walk_status end)
{
	struct store_file f;
	struct store_chunk c;
	const char *why = "unset";
	uint64_t pos = LKST_HEADER_LEN;
	size_t i;

	assert_int_equal(store_open(fx->path, &f, &why), 0);
	for (i = 0; i < ngood; i++) {
		assert_int_equal(store_next_chunk(&f, &pos, &c), WALK_CHUNK);
		assert_int_equal(c.type, chunks[i].type);
		assert_int_equal(c.flags, chunks[i].flags);
		assert_int_equal(c.offset, chunk_offset(i));
		assert_int_equal(c.len, chunks[i].len);
		if (c.len)
			assert_memory_equal(c.payload, chunks[i].payload, c.len);
		assert_int_equal(pos, chunk_offset(i + 1));
	}
	assert_int_equal(store_next_chunk(&f, &pos, &c), end);
	/* A stop does not advance: asking again gives the same answer. */
	assert_int_equal(store_next_chunk(&f, &pos, &c), end);
	assert_int_equal(pos, chunk_offset(ngood));
	store_close(&f);
	assert_null(f.data);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct store_file f;
	const char *why = "unset";

	write_file(fx, &hdr);
	assert_int_equal(lseek(fx->fd, 0, SEEK_END), chunk_offset(NCHUNKS));

	assert_int_equal(store_open(fx->path, &f, &why), 0);
	assert_null(why);
	assert_int_equal(f.size, chunk_offset(NCHUNKS));
	assert_memory_equal(f.data, LKST_MAGIC, 8);
	assert_int_equal(get_le16(f.data + 8), LKST_MAJOR);
	assert_int_equal(get_le32(f.data + 12), LKST_HEADER_LEN);
	assert_int_equal(f.hdr.major, hdr.major);
	assert_int_equal(f.hdr.minor, hdr.minor);
	assert_int_equal(f.hdr.flags, hdr.flags);
	assert_true(f.hdr.created_ns == hdr.created_ns);
	assert_memory_equal(f.hdr.recording_id, hdr.recording_id, 16);
	store_close(&f);

	expect_walk(fx, NCHUNKS, WALK_EOF);
}

static void test_newer_minor_accepted(void **state)
{
	struct fixture *fx = *state;
	struct store_header h = hdr;
	struct store_file f;
	const char *why;

	h.minor = LKST_MINOR + 7;
	write_file(fx, &h);
	assert_int_equal(store_open(fx->path, &f, &why), 0);
	assert_int_equal(f.hdr.minor, LKST_MINOR + 7);
	store_close(&f);
}

static void test_chunk_type_name(void **state)
{
	(void)state;
	assert_string_equal(chunk_type_name(CHUNK_META), "META");
	assert_string_equal(chunk_type_name(CHUNK_STRTAB), "STRTAB");
	assert_string_equal(chunk_type_name(CHUNK_KSYMS), "KSYMS");
	assert_string_equal(chunk_type_name(CHUNK_STACKS), "STACKS");
	assert_string_equal(chunk_type_name(CHUNK_LOCKSTAT), "LOCKSTAT");
	assert_string_equal(chunk_type_name(CHUNK_LOST), "LOST");
	assert_string_equal(chunk_type_name(CHUNK_END), "END");
	assert_string_equal(chunk_type_name(0), "unknown");
	assert_string_equal(chunk_type_name(99), "unknown");
	assert_string_equal(chunk_type_name(UINT32_MAX), "unknown");
}

static void test_bad_magic(void **state)
{
	struct fixture *fx = *state;
	struct store_file f;
	const char *why = NULL;
	char junk[200];

	memset(junk, 'x', sizeof(junk));
	assert_int_equal(write(fx->fd, junk, sizeof(junk)), sizeof(junk));
	assert_true(store_open(fx->path, &f, &why) < 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "magic"));
	assert_null(f.data);
}

static void test_header_crc(void **state)
{
	static const off_t offsets[] = { 8, 10, 16, 24, 40, 50, 60, 63 };
	struct fixture *fx = *state;
	struct store_file f;
	const char *why;
	size_t i;

	write_file(fx, &hdr);
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		poke(fx, offsets[i], 0x01);
		why = NULL;
		assert_int_equal(store_open(fx->path, &f, &why), -EINVAL);
		assert_non_null(why);
		assert_non_null(strstr(why, "checksum"));
		poke(fx, offsets[i], 0x01);
	}
	/* Restored: good again. */
	expect_walk(fx, NCHUNKS, WALK_EOF);
}

static void test_cut_in_header(void **state)
{
	struct fixture *fx = *state;
	struct store_file f;
	const char *why;
	off_t cut;

	write_file(fx, &hdr);
	for (cut = LKST_HEADER_LEN - 1; cut >= 0; cut--) {
		assert_int_equal(ftruncate(fx->fd, cut), 0);
		why = NULL;
		assert_true(store_open(fx->path, &f, &why) < 0);
		assert_non_null(why);
		assert_true(strlen(why) > 0);
		assert_null(f.data);
	}
}

/* The same through store_parse on buffers of exactly the cut size. */
static void test_parse_cut_in_header(void **state)
{
	struct fixture *fx = *state;
	uint8_t *data;
	size_t size, cut;

	write_file(fx, &hdr);
	data = fx_slurp(fx->path, &size);
	assert_non_null(data);
	for (cut = 0; cut < LKST_HEADER_LEN; cut++) {
		struct store_file f = { .data = malloc(cut ? cut : 1), .size = cut };
		const char *why = NULL;

		assert_non_null(f.data);
		memcpy(f.data, data, cut);
		assert_true(store_parse(&f, &why) < 0);
		assert_non_null(why);
		free(f.data);
	}
	free(data);
}

static void test_bad_chunk_crc(void **state)
{
	struct fixture *fx = *state;

	write_file(fx, &hdr);
	/* A payload byte of chunk 1. */
	poke(fx, chunk_offset(1) + LKST_CHUNK_HDR_LEN + 500, 0x40);
	expect_walk(fx, 1, WALK_BAD_CRC);
	poke(fx, chunk_offset(1) + LKST_CHUNK_HDR_LEN + 500, 0x40);
	expect_walk(fx, NCHUNKS, WALK_EOF);

	/* Its type, its flags, its CRC. */
	poke(fx, chunk_offset(1), 0x02);
	expect_walk(fx, 1, WALK_BAD_CRC);
	poke(fx, chunk_offset(1), 0x02);
	poke(fx, chunk_offset(1) + 4, 0x01);
	expect_walk(fx, 1, WALK_BAD_CRC);
	poke(fx, chunk_offset(1) + 4, 0x01);
	poke(fx, chunk_offset(2) - 1, 0x80);
	expect_walk(fx, 1, WALK_BAD_CRC);
	poke(fx, chunk_offset(2) - 1, 0x80);

	/* The empty chunk's CRC, and the last chunk's payload. */
	poke(fx, chunk_offset(3) - 2, 0x10);
	expect_walk(fx, 2, WALK_BAD_CRC);
	poke(fx, chunk_offset(3) - 2, 0x10);
	poke(fx, chunk_offset(3) + LKST_CHUNK_HDR_LEN, 0xff);
	expect_walk(fx, 3, WALK_BAD_CRC);
}

static void test_huge_length_is_damage(void **state)
{
	struct fixture *fx = *state;

	write_file(fx, &hdr);
	/* Length field of chunk 1 given a high byte: far past any limit. */
	poke(fx, chunk_offset(1) + 8 + 5, 0x01);
	expect_walk(fx, 1, WALK_BAD_CRC);
}

static void test_cut_in_chunk(void **state)
{
	struct fixture *fx = *state;
	size_t last;
	off_t cut;

	write_file(fx, &hdr);
	for (last = NCHUNKS; last-- > 0;) {
		/* Every cut inside chunk `last`, header, payload and CRC. */
		for (cut = chunk_offset(last + 1) - 1; cut > (off_t)chunk_offset(last); cut--) {
			assert_int_equal(ftruncate(fx->fd, cut), 0);
			expect_walk(fx, last, WALK_TRUNCATED);
		}
		/* Exactly at its start: a clean end after the ones before. */
		assert_int_equal(ftruncate(fx->fd, cut), 0);
		expect_walk(fx, last, WALK_EOF);
	}
}

static void test_open_errors(void **state)
{
	struct fixture *fx = *state;
	struct store_file f;
	const char *why;
	char missing[80];

	(void)fx;
	why = "unset";
	assert_int_equal(store_open("/tmp", &f, &why), -EISDIR);
	assert_null(f.data);

	snprintf(missing, sizeof(missing), "%s.does-not-exist", fx->path);
	why = "unset";
	assert_int_equal(store_open(missing, &f, &why), -ENOENT);
	assert_null(f.data);

	why = "unset";
	assert_true(store_open("/dev/null", &f, &why) < 0);
	assert_null(f.data);
}

static void test_wrong_major(void **state)
{
	struct fixture *fx = *state;
	struct store_header h = hdr;
	struct store_file f;
	const char *why = NULL;

	h.major = LKST_MAJOR + 1;
	write_file(fx, &h);
	assert_int_equal(store_open(fx->path, &f, &why), -EPROTONOSUPPORT);
	assert_non_null(why);
	assert_non_null(strstr(why, "version"));
	assert_null(f.data);
}

static void test_write_errors(void **state)
{
	static const uint8_t byte;
	struct fixture *fx = *state;

	/* The length is refused before the payload is read. */
	assert_int_equal(store_write_chunk(fx->fd, CHUNK_META, 0, &byte, LKST_MAX_PAYLOAD + 1ul), -EFBIG);
	assert_int_equal(lseek(fx->fd, 0, SEEK_END), 0);
	assert_int_equal(store_write_header(-1, &hdr), -EBADF);
	assert_int_equal(store_write_chunk(-1, CHUNK_META, 0, &byte, 1), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_minor_accepted, setup, teardown),
		cmocka_unit_test(test_chunk_type_name),
		cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_crc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_in_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_cut_in_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_chunk_crc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_length_is_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_in_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_major, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
