// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-CPU maps held to their kernel-memory budget (lib/record/mapsize.c):
 * unchanged on small machines, capped on large ones, never below the
 * floor, and what is kept fits the budget.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "record/mapsize.h"

static void test_small_machine_unchanged(void **state)
{
	(void)state;
	/* The locks family's stats (208-byte rows) and mmap_lock's rows (56) on 2 CPUs. */
	assert_int_equal(percpu_map_rows(16384, 208, 2, STATS_MAP_BUDGET), 16384);
	assert_int_equal(percpu_map_rows(8192, 56, 2, PERCPU_MAP_BUDGET), 8192);
	assert_int_equal(percpu_map_rows(16384, 208, 16, STATS_MAP_BUDGET), 16384);
}

static void test_large_machine_capped(void **state)
{
	uint32_t rows;

	(void)state;
	rows = percpu_map_rows(16384, 208, 256, STATS_MAP_BUDGET);
	assert_int_equal(rows, 1890);	/* as lockstat-record.1 says */
	assert_true((uint64_t)rows * 208 * 256 <= STATS_MAP_BUDGET);
	rows = percpu_map_rows(8192, 56, 256, PERCPU_MAP_BUDGET);
	assert_int_equal(rows, 2340);
	/* Values are kept 8-byte aligned: a 52-byte value costs 56. */
	assert_int_equal(percpu_map_rows(8192, 52, 256, PERCPU_MAP_BUDGET), rows);
}

static void test_floor(void **state)
{
	(void)state;
	/* 4096 CPUs and 1 KiB values: the floor, over the budget, rather than no row at all. */
	assert_int_equal(percpu_map_rows(16384, 1024, 4096, PERCPU_MAP_BUDGET), PERCPU_MAP_MIN_ROWS);
	/* A map built smaller than the floor stays as built. */
	assert_int_equal(percpu_map_rows(64, 1024, 4096, PERCPU_MAP_BUDGET), 64);
	/* No CPU count: taken as one. */
	assert_int_equal(percpu_map_rows(8192, 56, 0, PERCPU_MAP_BUDGET), 8192);
}

static void test_prealloc_small_only(void **state)
{
	(void)state;
	/* As lockstat-record.1 says: the default 16384 rows up to 9 CPUs. */
	assert_true(percpu_map_prealloc(16384, 208, 2));
	assert_true(percpu_map_prealloc(16384, 208, 9));
	assert_false(percpu_map_prealloc(16384, 208, 10));
	/* -M's largest on 2 CPUs: taken as rows appear. */
	assert_false(percpu_map_prealloc(16777216, 208, 2));
	/* 256 CPUs, the budget's 1890 rows: 94.5 MiB, not reserved. */
	assert_false(percpu_map_prealloc(1890, 208, 256));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_machine_unchanged),
		cmocka_unit_test(test_large_machine_capped),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_prealloc_small_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
