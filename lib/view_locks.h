/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_LOCKS_H
#define __LOCKSTAT_VIEW_LOCKS_H

#include "profile.h"

/*
 * The locks view (lockmeter / Solaris lockstat): profile rows grouped per
 * lock (name x type), each with its callers and stacks. report builds it
 * today; top and diff will build the same thing.
 */
struct lock_filter {
	const char *lock;	/* fnmatch(3) patterns, NULL = any */
	const char *caller;
	const char *type;	/* lock_type_matches() */
	const char *comm;
	long pid;		/* -1 = any; matches tgid or tid */
};

struct lock_part {		/* a caller or a stack of one lock */
	uint32_t caller;	/* string id */
	int32_t stack_id;
	struct lock_row_val v;
};

struct lock_entry {
	uint32_t name;		/* string id */
	uint32_t flags;
	struct lock_row_val v;
	struct lock_part *callers;
	size_t ncallers;
	struct lock_part *stacks;
	size_t nstacks;
};

enum lock_sort {
	SORT_WAIT_TOTAL,
	SORT_CONTENDED,
	SORT_WAIT_MAX,
	SORT_WAIT_AVG,
	SORT_WAIT_MIN,
	SORT_NAME,
};

struct lock_view {
	const struct profile *p;
	struct lock_entry *locks;
	size_t nlocks;
	struct lock_row_val total;
};

int lock_sort_parse(const char *s, enum lock_sort *key);
int lock_view__build(struct lock_view *v, const struct profile *p, const struct lock_filter *f);
void lock_view__sort(struct lock_view *v, enum lock_sort key);
void lock_view__free(struct lock_view *v);

/* Approximate quantile q in [0,1] from the log2 histogram, within [min, max]. */
uint64_t hist_quantile(const struct lock_row_val *v, double q);
uint64_t row_avg(const struct lock_row_val *v);

#endif
