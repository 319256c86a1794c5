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
