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

/* What the kernel reserves for a preallocated hash map (its memlock). */
static uint64_t reserved(uint64_t rows, uint32_t elem, int ncpus)
{
	uint64_t buckets = 1;

	while (buckets < rows)
		buckets <<= 1;
	return HTAB_MAP + (rows + ncpus) * elem + buckets * HTAB_BUCKET;
}

/*
 * The sampler's preallocated maps (as lockstat-record.1 says): the
 * defaults unchanged, -M 16777216 held to 64 MiB a map, elements and
 * buckets, and as close to it as the next row would not fit.
 */
static void test_shared_maps(void **state)
{
	uint32_t rows;

	(void)state;
	/* 16384 stacks (8-byte key, 520-byte value: 576 with the header), 32768 rows (24 + 8). */
	assert_int_equal(shared_map_rows(16384, 8, 520, 2, SHARED_MAP_BUDGET), 16384);
	assert_int_equal(shared_map_rows(32768, 24, 8, 2, SHARED_MAP_BUDGET), 32768);
	rows = shared_map_rows(16777216, 8, 520, 2, SHARED_MAP_BUDGET);
	assert_int_equal(rows, 112858);
	assert_true(reserved(rows, 576, 2) <= SHARED_MAP_BUDGET);
	assert_true(reserved(rows + 1, 576, 2) > SHARED_MAP_BUDGET);
	rows = shared_map_rows(33554432, 24, 8, 2, SHARED_MAP_BUDGET);
	assert_int_equal(rows, 629092);
	assert_true(reserved(rows, 80, 2) <= SHARED_MAP_BUDGET);
	assert_true(reserved(rows + 1, 80, 2) > SHARED_MAP_BUDGET);
	/* 256 CPUs: a spare element each. */
	rows = shared_map_rows(16777216, 8, 520, 256, SHARED_MAP_BUDGET);
	assert_true(rows < 112858 && reserved(rows, 576, 256) <= SHARED_MAP_BUDGET);
	assert_true(reserved(rows + 1, 576, 256) > SHARED_MAP_BUDGET);
	/* Sizes rounded to 8 bytes as the kernel keeps them; never below the floor. */
	assert_int_equal(shared_map_rows(16777216, 5, 517, 2, SHARED_MAP_BUDGET), 112858);
	assert_int_equal(shared_map_rows(16384, 8, 1 << 20, 2, SHARED_MAP_BUDGET), PERCPU_MAP_MIN_ROWS);
	assert_int_equal(shared_map_rows(100, 8, 1 << 20, 2, SHARED_MAP_BUDGET), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_machine_unchanged),
		cmocka_unit_test(test_large_machine_capped),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_prealloc_small_only),
		cmocka_unit_test(test_shared_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
