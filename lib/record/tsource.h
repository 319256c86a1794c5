/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TSOURCE_H
#define __LOCKSTAT_TSOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "format/ctable.h"
#include "base/htab.h"
#include "record/mapscan.h"

struct bpf_map;

/*
 * A source of counter-table rows: one BPF hash (or array) of cumulative
 * counters, per-CPU or not, and the table it becomes. A family fills in
 * the first part and calls tsource_init(); each drain then appends the
 * rows that changed, as deltas (lib/format/ctable.h), folding per-CPU values
 * column by column: SUM adds, MAX keeps the largest, MIN the smallest
 * non-zero.
 */
struct tsource {
	/* The family's */
	const struct tschema *schema;
	struct bpf_map *map;	/* set before the first drain; none for tsource_total() */
	bool percpu;
	uint32_t key_size;
	uint32_t val_size;	/* one CPU's value */
	uint32_t nkeys;		/* the schema's first nkeys columns are keys */
	/* One CPU's value as the value columns; NULL: they are its __u64s, in order. */
	void (*values)(const void *val, uint64_t *out);
	/* The key columns of a row; stack: the row's stack, where the schema has one. */
	int (*keys)(void *ctx, const void *key, uint64_t *row, void *stack);
	void *ctx;

	/* tsource_init()'s */
	int ncpus;
	uint32_t nvals;
	uint8_t *kinds;		/* of the value columns */
	int stack_col;		/* the key column that is a stack, or -1 */
	size_t stack_size;	/* struct tstack or struct tustack */
	struct htab last;	/* BPF key -> uint64_t[nvals] at the last drain */
	struct htab seen;	/* BPF key -> uint32: the drain at which its row last changed */
	uint32_t drain;		/* the drain in progress (collector.ndrains) */
	struct trows_buf rows;
	void *stacks;		/* one per row of this drain */
	size_t stacks_cap;
	void *buf;		/* one value per CPU */
	struct mapscan scan;	/* the drains' reader of map */
	uint64_t *cur;
	uint64_t *delta;
	uint64_t *prev;		/* the row's values at the last drain */
	int *total_of;		/* of each value column: its tcol.total's value index, or -1 */
	int *hist_of;		/* its tcol.hist's value index, or -1 */
	size_t nread;		/* entries the last drain read */
};

int tsource_init(struct tsource *s, int ncpus);
void tsource_free(struct tsource *s);
/* Merge one value into an accumulated one by its column kind. */
void tsource_merge(uint64_t *acc, uint64_t v, uint8_t kind);
/* One key's values folded over the CPUs into out (nvals): 0 or -errno. */
int tsource_read(struct tsource *s, const void *key, uint64_t *out);
/*
 * This drain's rows: every key of the map whose values changed. extra
 * (BPF key -> { used flag, nvals values }, optional) adds values to a
 * key's row, or makes the row when the map has none.
 */
int tsource_drain(struct tsource *s, struct htab *extra);
/* This drain's only row, from totals the family summed itself (key_size: a u32). */
int tsource_total(struct tsource *s, const uint64_t *totals);
/*
 * A family's trim and fill (collector_int.h) for the rows of one table:
 * its rows that last changed before drain before leave the map and the
 * totals; the events their first value column took since the last drain
 * are added to *late. How full the map is, in thousandths, and in
 * *before the drain that would leave it a quarter full.
 */
int tsource_trim(struct tsource *s, uint32_t before, uint64_t *late);
unsigned tsource_fill(const struct tsource *s, uint32_t latest, uint32_t *before);

/* A short stack from a BPF key's frames, up to the first 0. */
static inline void tstack_copy(struct tstack *s, const __u64 *frames)
{
	for (s->n = 0; s->n < TSTACK_DEPTH && frames[s->n]; s->n++)
		s->frames[s->n] = frames[s->n];
}

#endif
