/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_MAPSIZE_H
#define __LOCKSTAT_MAPSIZE_H

#include <stdbool.h>
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

/*
 * The locks family's stats map is built to take its rows as they appear
 * (BPF_F_NO_PREALLOC), but a new row is then a per-CPU allocation in a
 * contention handler, which doubled its cost where many rows were new
 * (doc/design.md): a spinning wait's row is made at contention_begin, a
 * task's at the end, while the waiter holds the lock just won. So the
 * rows are reserved at load wherever all of them take at most
 * STATS_PREALLOC_MAX (up to 9 CPUs at the default 16384 rows); on larger
 * machines they are still taken as they appear, so that a short
 * recording does not hold the whole budget.
 */
#define STATS_PREALLOC_MAX	(32ULL << 20)

/* Whether rows of value_size bytes on ncpus CPUs fit STATS_PREALLOC_MAX. */
bool percpu_map_prealloc(uint32_t rows, uint32_t value_size, int ncpus);

/*
 * The sampler's maps are shared, not per CPU, but a perf_event program
 * may only use preallocated maps: every row they can hold is reserved at
 * load. They follow -M (twice as many rows, as many stacks of each kind),
 * and -M 16777216 would reserve 9 GiB of kernel stacks and as much of
 * user stacks. Each is held to SHARED_MAP_BUDGET, its elements and
 * buckets (112 858 stacks of 520 bytes, 629 092 rows on 2 CPUs); a sample
 * then finds its map full, counted as sample_stacks_full or
 * sample_map_full.
 */
#define SHARED_MAP_BUDGET	(64ULL << 20)	/* bytes, a map */
#define HTAB_ELEM_HEADER	48	/* the kernel's struct htab_elem, before each key */
#define HTAB_BUCKET		16	/* its struct bucket */
#define HTAB_MAP		4096	/* its struct bpf_htab and the rest: 656 bytes on 6.18 */

/*
 * The rows a preallocated hash map of max rows (keys and values of these
 * sizes) keeps within budget bytes on ncpus possible CPUs; at least
 * PERCPU_MAP_MIN_ROWS, unless built with fewer.
 */
uint32_t shared_map_rows(uint32_t max, uint32_t key_size, uint32_t value_size, int ncpus,
			 uint64_t budget);

#endif
