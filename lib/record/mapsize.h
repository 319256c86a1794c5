/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_MAPSIZE_H
#define __LOCKSTAT_MAPSIZE_H

#include <stdint.h>

/*
 * A per-CPU hash map holds a copy of every row's value for each possible
 * CPU: max_entries x value x CPUs of kernel memory, reserved at load
 * (preallocated maps) or taken as rows appear (the locks family's stats,
 * up to the same bound). A 16384-row map of 208-byte values, 6.5 MiB on
 * 2 CPUs, is 832 MiB on 256. So each is held to a budget: its rows are
 * as many as fit, never more than it was built with nor fewer than
 * PERCPU_MAP_MIN_ROWS; a row that finds the map full is counted as its
 * family's map_full (or rows_full) loss, as before.
 */
#define PERCPU_MAP_BUDGET	(32ULL << 20)	/* bytes, a map */
#define STATS_MAP_BUDGET	(96ULL << 20)	/* the locks family's rows, the busiest */
#define PERCPU_MAP_MIN_ROWS	256

/* The rows a per-CPU map of max rows of value_size bytes keeps on ncpus CPUs. */
uint32_t percpu_map_rows(uint32_t max, uint32_t value_size, int ncpus, uint64_t budget);

#endif
