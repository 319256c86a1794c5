// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "base/buf.h"

static const uint64_t uvals[] = {
	0, 1, 127, 128, 255, 300, 16383, 16384, (1ULL << 32) - 1, 1ULL << 32,
	(1ULL << 63) - 1, 1ULL << 63, UINT64_MAX - 1, UINT64_MAX,
};

static const int64_t svals[] = {
	0, 1, -1, 63, -64, 64, -65, 1000000, -1000000,
	INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
};

/* Encoded length of an unsigned LEB128 value. */
static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >>= 7)
		n++;
	return n;
}

static void test_varint_round_trip(void **state)
{
	struct cursor c;
	struct buf b;
	size_t i, expect = 0;

	(void)state;
	buf_init(&b);
	for (i = 0; i < sizeof(uvals) / sizeof(uvals[0]); i++) {
		buf_put_varint(&b, uvals[i]);
		expect += varint_len(uvals[i]);
	}
	assert_false(b.oom);
	assert_int_equal(b.len, expect);

	cursor_init(&c, b.data, b.len);
	for (i = 0; i < sizeof(uvals) / sizeof(uvals[0]); i++) {
		assert_false(cursor_done(&c));
		assert_true(cursor_varint(&c) == uvals[i]);
		assert_false(c.err);
	}
	assert_true(cursor_done(&c));
	assert_false(c.err);
	buf_free(&b);
}

static void test_varint_encoding(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	buf_put_varint(&b, 0);
	assert_int_equal(b.len, 1);
	assert_int_equal(b.data[0], 0x00);

	buf_reset(&b);
	buf_put_varint(&b, 127);
	assert_int_equal(b.len, 1);
	assert_int_equal(b.data[0], 0x7f);

	buf_reset(&b);
	buf_put_varint(&b, 128);
	assert_int_equal(b.len, 2);
	assert_int_equal(b.data[0], 0x80);
	assert_int_equal(b.data[1], 0x01);

	buf_reset(&b);
	buf_put_varint(&b, 300);	/* protobuf's example: ac 02 */
	assert_int_equal(b.len, 2);
	assert_int_equal(b.data[0], 0xac);
	assert_int_equal(b.data[1], 0x02);

	buf_reset(&b);
	buf_put_varint(&b, UINT64_MAX);
	assert_int_equal(b.len, 10);
	assert_int_equal(b.data[9], 0x01);
	buf_free(&b);
}

static void test_svarint_round_trip(void **state)
{
	struct cursor c;
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b);
	for (i = 0; i < sizeof(svals) / sizeof(svals[0]); i++)
		buf_put_svarint(&b, svals[i]);
	assert_false(b.oom);

	cursor_init(&c, b.data, b.len);
	for (i = 0; i < sizeof(svals) / sizeof(svals[0]); i++)
		assert_true(cursor_svarint(&c) == svals[i]);
	assert_false(c.err);
	assert_true(cursor_done(&c));
	buf_free(&b);
}

static void test_svarint_zigzag(void **state)
{
	static const struct { int64_t v; uint64_t zz; } cases[] = {
		{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2, 4 },
		{ INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
	};
	struct cursor c;
	struct buf b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_init(&b);
		buf_put_svarint(&b, cases[i].v);
		cursor_init(&c, b.data, b.len);
		assert_true(cursor_varint(&c) == cases[i].zz);
		assert_true(cursor_done(&c));
		assert_false(c.err);
		buf_free(&b);
	}
}

static void test_cursor_overrun(void **state)
{
	static const uint8_t one[] = { 0x05 };
	static const uint8_t cut[] = { 0x80, 0x80 };	/* continues past the end */
	struct cursor c;

	(void)state;
	cursor_init(&c, one, 0);
	assert_true(cursor_done(&c));
	assert_true(cursor_varint(&c) == 0);
	assert_true(c.err);

	cursor_init(&c, one, sizeof(one));
	assert_true(cursor_varint(&c) == 5);
	assert_false(c.err);
	assert_true(cursor_varint(&c) == 0);
	assert_true(c.err);
	/* Sticky: later reads keep failing and yield zeros. */
	assert_true(cursor_svarint(&c) == 0);
	assert_null(cursor_str(&c));
	assert_true(c.err);
	assert_true(cursor_done(&c));

	cursor_init(&c, cut, sizeof(cut));
	assert_true(cursor_varint(&c) == 0);
	assert_true(c.err);

	/* A sticky error is not cleared by data that would parse. */
	cursor_init(&c, cut, sizeof(cut));
	c.err = true;
	assert_true(cursor_varint(&c) == 0);
}

static void test_varint_too_long(void **state)
{
	uint8_t ten[10], eleven[11];
	struct cursor c;

	(void)state;
	/* Ten bytes, the last one still saying "more follows", then the end. */
	memset(ten, 0xff, sizeof(ten));
	cursor_init(&c, ten, sizeof(ten));
	assert_true(cursor_varint(&c) == 0);
	assert_true(c.err);

	/* The same with an eleventh byte present: still not a valid uint64. */
	memset(eleven, 0x80, sizeof(eleven));
	eleven[10] = 0x01;
	cursor_init(&c, eleven, sizeof(eleven));
	assert_true(cursor_varint(&c) == 0);
	assert_true(c.err);

	/* Ten bytes ending cleanly is UINT64_MAX. */
	ten[9] = 0x01;
	cursor_init(&c, ten, sizeof(ten));
	assert_true(cursor_varint(&c) == UINT64_MAX);
	assert_false(c.err);
	assert_true(cursor_done(&c));
}

static void test_str(void **state)
{
	struct cursor c;
	struct buf b;
	char *s;

	(void)state;
	buf_init(&b);
	buf_put_str(&b, "hello");
	buf_put_str(&b, "");
	buf_put_str(&b, NULL);
	assert_int_equal(b.len, 1 + 5 + 1 + 1);

	cursor_init(&c, b.data, b.len);
	s = cursor_str(&c);
	assert_non_null(s);
	assert_string_equal(s, "hello");
	free(s);
	s = cursor_str(&c);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	s = cursor_str(&c);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	assert_false(c.err);
	assert_true(cursor_done(&c));
	buf_free(&b);
}

static void test_str_beyond_end(void **state)
{
	static const uint8_t short_str[] = { 6, 'a', 'b', 'c', 'd', 'e' };
	static const uint8_t huge_len[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'x',
	};
	static const uint8_t exact[] = { 5, 'a', 'b', 'c', 'd', 'e' };
	struct cursor c;
	char *s;

	(void)state;
	cursor_init(&c, short_str, sizeof(short_str));
	assert_null(cursor_str(&c));
	assert_true(c.err);

	cursor_init(&c, huge_len, sizeof(huge_len));
	assert_null(cursor_str(&c));
	assert_true(c.err);

	/* Length byte missing altogether. */
	cursor_init(&c, exact, 0);
	assert_null(cursor_str(&c));
	assert_true(c.err);

	cursor_init(&c, exact, sizeof(exact));
	s = cursor_str(&c);
	assert_non_null(s);
	assert_string_equal(s, "abcde");
	assert_true(cursor_done(&c));
	assert_false(c.err);
	free(s);
}

static void test_le_helpers(void **state)
{
	static const uint8_t bytes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88 };
	struct buf b;

	(void)state;
	assert_int_equal(get_le16(bytes), 0x0201);
	assert_int_equal(get_le32(bytes), 0x04030201);
	assert_true(get_le64(bytes) == 0x8807060504030201ULL);

	buf_init(&b);
	buf_put_le32(&b, 0x11223344);
	buf_put_le64(&b, 0xa1b2c3d4e5f60718ULL);
	buf_put_le32(&b, UINT32_MAX);
	assert_int_equal(b.len, 16);
	assert_int_equal(b.data[0], 0x44);
	assert_int_equal(b.data[1], 0x33);
	assert_int_equal(b.data[2], 0x22);
	assert_int_equal(b.data[3], 0x11);
	assert_int_equal(b.data[4], 0x18);
	assert_int_equal(b.data[11], 0xa1);
	assert_int_equal(get_le32(b.data), 0x11223344);
	assert_true(get_le64(b.data + 4) == 0xa1b2c3d4e5f60718ULL);
	assert_int_equal(get_le32(b.data + 12), UINT32_MAX);
	buf_free(&b);
}

static void test_buf_growth(void **state)
{
	uint8_t chunk[1000];
	struct buf b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(chunk); i++)
		chunk[i] = (uint8_t)(i * 7);
	buf_init(&b);
	for (i = 0; i < 100; i++)
		buf_put(&b, chunk, sizeof(chunk));
	buf_put(&b, NULL, 0);
	assert_false(b.oom);
	assert_int_equal(b.len, 100 * sizeof(chunk));
	assert_true(b.cap >= b.len);
	for (i = 0; i < 100; i++)
		assert_memory_equal(b.data + i * sizeof(chunk), chunk, sizeof(chunk));

	buf_reset(&b);
	assert_int_equal(b.len, 0);
	buf_put_varint(&b, 1);
	assert_int_equal(b.len, 1);
	buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_round_trip),
		cmocka_unit_test(test_varint_encoding),
		cmocka_unit_test(test_svarint_round_trip),
		cmocka_unit_test(test_svarint_zigzag),
		cmocka_unit_test(test_cursor_overrun),
		cmocka_unit_test(test_varint_too_long),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_str_beyond_end),
		cmocka_unit_test(test_le_helpers),
		cmocka_unit_test(test_buf_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
