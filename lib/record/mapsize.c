// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-CPU maps held to a memory budget (see mapsize.h). */
#include "record/mapsize.h"

/* The kernel keeps each CPU's copy of a value 8-byte aligned. */
static uint64_t percpu_row_bytes(uint32_t value_size, int ncpus)
{
	return (uint64_t)((value_size + 7) & ~7u) * (ncpus > 0 ? (uint64_t)ncpus : 1);
}

bool percpu_map_prealloc(uint32_t rows, uint32_t value_size, int ncpus)
{
	return rows * percpu_row_bytes(value_size, ncpus) <= STATS_PREALLOC_MAX;
}

uint32_t percpu_map_rows(uint32_t max, uint32_t value_size, int ncpus, uint64_t budget)
{
	uint64_t per_row = percpu_row_bytes(value_size, ncpus);
	uint64_t rows = per_row ? budget / per_row : max;

	if (rows < PERCPU_MAP_MIN_ROWS)
		rows = PERCPU_MAP_MIN_ROWS;
	return rows < max ? (uint32_t)rows : max;
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/*
 * The kernel reserves max_entries elements, one more for each possible
 * CPU (a spare for an update in place), a 16-byte bucket for each of the
 * next power of two of max_entries (2 MiB for 112 858 stacks), and the
 * map itself.
 */
static uint64_t shared_map_bytes(uint64_t rows, uint64_t elem, int ncpus)
{
	return HTAB_MAP + (rows + (uint64_t)ncpus) * elem + pow2_at_least(rows) * HTAB_BUCKET;
}

uint32_t shared_map_rows(uint32_t max, uint32_t key_size, uint32_t value_size, int ncpus,
			 uint64_t budget)
{
	uint64_t elem = HTAB_ELEM_HEADER + ((key_size + 7) & ~7u) + ((value_size + 7) & ~7u);
	uint64_t rows = budget / elem < max ? budget / elem : max;

	ncpus = ncpus > 0 ? ncpus : 1;
	/* Each pass leaves room for the buckets of the rows it tried: two at most. */
	while (rows > PERCPU_MAP_MIN_ROWS && shared_map_bytes(rows, elem, ncpus) > budget) {
		uint64_t fixed = HTAB_MAP + pow2_at_least(rows) * HTAB_BUCKET + (uint64_t)ncpus * elem;
		uint64_t fit = budget > fixed ? (budget - fixed) / elem : 0;

		rows = fit < rows ? fit : rows - 1;
	}
	if (rows < PERCPU_MAP_MIN_ROWS)
		rows = PERCPU_MAP_MIN_ROWS;
	return rows < max ? (uint32_t)rows : max;
}
