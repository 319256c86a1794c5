// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Removing idle rows (lib/record/trim.c) on a fake map: which rows the
 * policy picks, and that a row read as it is removed counts what it took
 * since the last drain. This file defines the libbpf calls trim.c makes
 * (bpf_map__type, bpf_map__value_size, bpf_map__lookup_and_delete_elem,
 * bpf_map__delete_elem), which bind instead of the library's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <bpf/libbpf.h>
#include "record/trim.h"

#define NROWS	8

/* Keys 0 to NROWS - 1, each with a uint64 count. */
struct bpf_map {
	uint64_t count[NROWS];
	bool present[NROWS];
	bool refuse_read;	/* lookup-and-delete unsupported (kernels before 5.14) */
	int busy;		/* the next deletes that fail with EBUSY */
	int deleted;
};

/* A delete the kernel refuses this time (a busy bucket): the row stays. */
static bool busy(struct bpf_map *m)
{
	if (!m->busy)
		return false;
	m->busy--;
	errno = EBUSY;
	return true;
}

enum bpf_map_type bpf_map__type(const struct bpf_map *map)
{
	(void)map;
	return BPF_MAP_TYPE_HASH;
}

__u32 bpf_map__value_size(const struct bpf_map *map)
{
	(void)map;
	return sizeof(uint64_t);
}

int bpf_map__lookup_and_delete_elem(const struct bpf_map *map, const void *key, size_t key_sz,
				    void *value, size_t value_sz, __u64 flags)
{
	struct bpf_map *m = (struct bpf_map *)map;
	uint32_t k = *(const uint32_t *)key;

	(void)flags;
	assert_int_equal(key_sz, sizeof(uint32_t));
	assert_int_equal(value_sz, sizeof(uint64_t));
	if (m->refuse_read)
		return errno = EINVAL, -EINVAL;
	if (k >= NROWS || !m->present[k])
		return errno = ENOENT, -ENOENT;
	if (busy(m))
		return -EBUSY;
	memcpy(value, &m->count[k], sizeof(uint64_t));
	m->present[k] = false;
	m->deleted++;
	return 0;
}

int bpf_map__delete_elem(const struct bpf_map *map, const void *key, size_t key_sz, __u64 flags)
{
	struct bpf_map *m = (struct bpf_map *)map;
	uint32_t k = *(const uint32_t *)key;

	(void)flags;
	(void)key_sz;
	if (k >= NROWS || !m->present[k])
		return errno = ENOENT, -ENOENT;
	if (busy(m))
		return -EBUSY;
	m->present[k] = false;
	m->deleted++;
	return 0;
}

static void add_seen(struct htab *seen, uint32_t key, uint32_t drain)
{
	assert_int_equal(note_seen(seen, &key, drain), 0);
}

/* n rows last changed at each drain given, keys from *next. */
static void rows_at(struct htab *seen, uint32_t *next, int n, uint32_t drain)
{
	while (n--)
		add_seen(seen, (*next)++, drain);
}

static void test_cutoff(void **state)
{
	struct htab seen;
	uint32_t key = 0;

	(void)state;
	htab_init(&seen, sizeof(uint32_t), sizeof(uint32_t));
	rows_at(&seen, &key, 10, 100);	/* changed at the latest drain */
	rows_at(&seen, &key, 5, 99);
	rows_at(&seen, &key, 5, 97);
	rows_at(&seen, &key, 20, 50);
	/* Keep 15: the latest drain's and the previous one's; age 3 on go. */
	assert_int_equal(trim_cutoff(&seen, 100, 15), 98);
	/* Fewer than the latest drain's: those stay all the same. */
	assert_int_equal(trim_cutoff(&seen, 100, 5), 100);
	/* Room for all but the oldest 20. */
	assert_int_equal(trim_cutoff(&seen, 100, 39), 51);
	htab_free(&seen);
}

/* Room for everything, early in a recording: nothing goes (no wrap-around). */
static void test_cutoff_young(void **state)
{
	struct htab seen;
	uint32_t key = 0;

	(void)state;
	htab_init(&seen, sizeof(uint32_t), sizeof(uint32_t));
	rows_at(&seen, &key, 3, 1);
	rows_at(&seen, &key, 3, 2);
	assert_int_equal(trim_cutoff(&seen, 2, 1000), 0);
	assert_int_equal(trim_cutoff(&seen, 2, 3), 2);
	htab_free(&seen);
}

/* Every row changed at the latest drain: none can go, whatever keep says (0: no trim). */
static void test_cutoff_all_new(void **state)
{
	struct htab seen;
	uint32_t key = 0;

	(void)state;
	htab_init(&seen, sizeof(uint32_t), sizeof(uint32_t));
	rows_at(&seen, &key, 5, 7);
	assert_int_equal(trim_cutoff(&seen, 7, 2), 0);
	rows_at(&seen, &key, 1, 6);
	assert_int_equal(trim_cutoff(&seen, 7, 2), 7);
	htab_free(&seen);
}

static uint64_t late_count(const void *total, const void *deleted, void *ctx)
{
	uint64_t before = *(const uint64_t *)total, now = *(const uint64_t *)deleted;

	++*(int *)ctx;
	return now - before;
}

/*
 * Rows 0-3 changed at drain 10, 4-7 at drain 5; row 6 took 2 more
 * events after the drain that read it; row 7 was never drained with a
 * change (not in seen).
 */
static void make_rows(struct bpf_map *m, struct htab *totals, struct htab *seen)
{
	uint32_t k;

	htab_init(totals, sizeof(uint32_t), sizeof(uint64_t));
	htab_init(seen, sizeof(uint32_t), sizeof(uint32_t));
	for (k = 0; k < NROWS; k++) {
		uint64_t *t = htab_get(totals, &k, NULL);

		assert_non_null(t);
		*t = 10 * k;
		m->count[k] = 10 * k + (k == 6 ? 2 : 0);
		m->present[k] = true;
		if (k < 7)
			add_seen(seen, k, k < 4 ? 10 : 5);
	}
}

static void test_forget_older(void **state)
{
	struct bpf_map m = { 0 };
	struct htab totals, seen;
	uint64_t late = 0, *t;
	uint32_t k;
	int calls = 0;

	(void)state;
	make_rows(&m, &totals, &seen);
	assert_int_equal(forget_older(&totals, &seen, &m, 6, late_count, &calls, &late), 4);
	assert_int_equal(m.deleted, 4);
	assert_int_equal(calls, 4);
	assert_int_equal(late, 2);	/* row 6's events since its drain: lost, counted */
	assert_int_equal(totals.count, 4);
	assert_int_equal(seen.count, 4);
	for (k = 0; k < NROWS; k++) {
		t = htab_find(&totals, &k);
		assert_true((t != NULL) == (k < 4));
		assert_true(m.present[k] == (k < 4));
		if (t)
			assert_int_equal(*t, 10 * k);
	}
	htab_free(&totals);
	htab_free(&seen);
}

/*
 * A delete the kernel refuses (EBUSY): the row stays, and so does what
 * the last drain read of it, or the next drain would count it all again;
 * and the next trim still reads rows as it deletes them.
 */
static void test_forget_refused(void **state)
{
	struct bpf_map m = { .busy = 1 };
	struct htab totals, seen;
	uint64_t late = 0, *t;
	uint32_t k;
	int calls = 0;

	(void)state;
	make_rows(&m, &totals, &seen);
	/* Rows 4 to 7 go; the first of them the kernel refuses. */
	assert_int_equal(forget_older(&totals, &seen, &m, 6, late_count, &calls, &late), 3);
	assert_int_equal(m.deleted, 3);
	assert_int_equal(totals.count, 5);
	for (k = 4; k < NROWS && m.present[k] == false; k++)
		;
	assert_true(k < NROWS);
	t = htab_find(&totals, &k);
	assert_non_null(t);
	assert_int_equal(*t, 10 * k);
	assert_true((htab_find(&seen, &k) != NULL) == (k < 7));
	/* The next trim takes it, read as it goes. */
	calls = 0;
	late = 0;
	assert_int_equal(forget_older(&totals, &seen, &m, 6, late_count, &calls, &late), 1);
	assert_false(m.present[k]);
	assert_int_equal(calls, 1);
	assert_int_equal(late, k == 6 ? 2 : 0);
	assert_int_equal(totals.count, 4);
	assert_int_equal(seen.count, 4);
	htab_free(&totals);
	htab_free(&seen);
}

/* Refused twice over, read and unread: still there, still known. */
static void test_forget_refused_unread(void **state)
{
	struct bpf_map m = { .busy = 1 };
	struct htab totals, seen;
	uint64_t late = 0;
	uint32_t k = 7;
	int calls = 0;

	(void)state;
	make_rows(&m, &totals, &seen);
	assert_int_equal(forget_older(&totals, &seen, &m, 0, NULL, NULL, &late), 0);
	m.busy = 1;
	assert_int_equal(forget_older(&totals, &seen, &m, 0, late_count, &calls, &late), 0);
	assert_true(m.present[k]);
	assert_non_null(htab_find(&totals, &k));
	assert_int_equal(calls, 0);
	htab_free(&totals);
	htab_free(&seen);
}

/* Where the kernel cannot read a row as it deletes it, it is deleted unread. */
static void test_forget_unread(void **state)
{
	struct bpf_map m = { .refuse_read = true };
	struct htab totals, seen;
	uint64_t late = 0;
	int calls = 0;

	(void)state;
	make_rows(&m, &totals, &seen);
	assert_int_equal(forget_older(&totals, &seen, &m, 6, late_count, &calls, &late), 4);
	assert_int_equal(calls, 0);
	assert_int_equal(late, 0);
	assert_int_equal(totals.count, 4);
	htab_free(&totals);
	htab_free(&seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cutoff),
		cmocka_unit_test(test_cutoff_young),
		cmocka_unit_test(test_cutoff_all_new),
		cmocka_unit_test(test_forget_older),
		cmocka_unit_test(test_forget_refused),
		cmocka_unit_test(test_forget_refused_unread),
		/* Last: trim.c remembers the refusal for the rest of the process. */
		cmocka_unit_test(test_forget_unread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
