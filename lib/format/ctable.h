/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CTABLE_H
#define __LOCKSTAT_CTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/htab.h"
#include "format/consts.h"

/*
 * Counter tables: the one shape shared by the probe families that count
 * per key (fd, pagecache, mmap_lock, hold, ...). A table is a name and a
 * list of columns; key columns identify a row, value columns merge across
 * buckets by their kind. The collector hands tables over, the writer
 * stores them in TABLE chunks with their schema, and the reader merges
 * them back, so a new family needs no new chunk type nor reader code,
 * and an older lockstat still reads (and can dump) a newer family.
 */
enum tcol_kind {
	TCOL_KEY = 0,		/* an integer: pid, device, inode, address */
	TCOL_KEY_STR = 1,	/* a string: a const char * in a collector row, a string id in a file */
	TCOL_KEY_KSTACK = 2,	/* a kernel stack: a const struct tstack * in a collector row, a stack id in a file */
	TCOL_KEY_USTACK = 3,	/* a user stack: a const struct tustack * in a collector row, a stack id in a file */
	TCOL_SUM = 8,		/* counts and totals: add up */
	TCOL_MAX = 9,
	TCOL_MIN = 10,		/* 0 means none */
};

static inline bool tcol_is_key(unsigned int kind)
{
	return kind < TCOL_SUM;
}

bool tcol_kind_valid(unsigned int kind);

struct tcol {
	const char *name;
	uint8_t kind;
	/*
	 * A MAX or MIN column of durations: the SUM column of their total,
	 * and its log2 histogram's first column and slots (NULL, 0: none),
	 * which bound the extreme of one drain's interval (record/tsource.c).
	 */
	const char *total;
	const char *hist;
	uint8_t hist_slots;
};

struct tschema {
	const char *name;
	uint32_t ncols;
	const struct tcol *cols;
};

/* A short kernel stack, innermost first, for caller attribution. */
struct tstack {
	uint32_t n;
	uint64_t frames[TSTACK_DEPTH];
};

/*
 * A user stack, innermost first, of process tgid: the writer stores it,
 * has the process's mappings captured while it lives, and symbolizes its
 * PCs at the end with the sampler's (USYMS chunk).
 */
struct tustack {
	uint32_t tgid;
	uint32_t n;
	uint64_t frames[TUSTACK_DEPTH];
};

/*
 * One drain's rows of one table: n rows of schema->ncols values each.
 * Value columns hold the delta since the previous drain (SUM) or the
 * value over the bucket (MAX, MIN).
 */
struct trows {
	const struct tschema *schema;
	size_t n;
	uint64_t *v;
};

static inline uint64_t tptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/*
 * Deltas from cumulative counters: last maps a family's own key to the
 * values it had at the previous drain. Writes cur - last for SUM columns
 * and cur for MAX/MIN into out (nvals values of the given kinds) and
 * returns true when anything changed. A MAX or MIN that only ever grows
 * in the kernel is reported whenever its row changed at all.
 */
int tdelta(struct htab *last, const void *key, const uint64_t *cur, uint64_t *out,
	   const uint8_t *kinds, uint32_t nvals, bool *changed);

/* Merge one row's values into an accumulated row, column by column. */
void trow_merge(uint64_t *acc, const uint64_t *v, const uint8_t *kinds, uint32_t n);

/* A growing array of rows for one table, reused between drains. */
struct trows_buf {
	struct trows rows;
	size_t cap;
};

/* A zeroed row appended to b, or NULL on ENOMEM. */
uint64_t *trows_add(struct trows_buf *b);
void trows_buf_free(struct trows_buf *b);

#endif
