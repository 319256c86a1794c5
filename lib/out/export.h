/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_EXPORT_H
#define __LOCKSTAT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "format/profile.h"
#include "view/view_hits.h"
#include "view/view_locks.h"

/*
 * lockstat export: a profile's CPU samples or lock waits as stacks with
 * values, for other tools: folded stacks (flamegraph.pl, speedscope,
 * inferno), JSON and CSV here, pprof's profile.proto in lib/out/pprof.c.
 */
enum export_format { EXPORT_FOLDED, EXPORT_PPROF, EXPORT_JSON, EXPORT_CSV, EXPORT_SVG };
enum export_what { EXPORT_SAMPLES, EXPORT_LOCKS };
enum export_value {
	EXPORT_VALUE_COUNT,	/* samples, or contended waits */
	EXPORT_VALUE_WAIT,	/* locks: total wait in ns */
};

/* "folded", "pprof", "json", "csv" or "svg" (lib/out/flame.c): 0; anything else: -EINVAL. */
int export_format_parse(const char *s, enum export_format *fmt);

/*
 * The filter is the hits view's: for samples every field applies as in
 * report --view hits; for locks only pid and comm do, as report's --pid
 * and --comm.
 */
struct export_opts {
	enum export_format format;
	enum export_what what;
	enum export_value value;
	struct hits_filter filter;
	bool annotate_kernel;	/* folded: "_[k]" after kernel frames */
	bool pretty;		/* JSON: indented */
};

/*
 * The locks view of p with o's filter, its rows kept (v->rows): what a
 * lock export writes. A user lock's row (export_row_is_user) has a user
 * stack of process k.tgid.
 */
int export_lock_view(struct lock_view *v, const struct profile *p, const struct hits_filter *f);
bool export_row_is_user(const struct lock_row_key *k);

/* One exported stack, its frames root first (see export_stacks.frames). */
struct export_stack {
	const char *comm;	/* "" for lock rows recorded without -t */
	uint32_t pid;		/* process (tgid); 0 when not recorded */
	const char *lock;	/* locks only, else NULL */
	const char *type;	/* lock type, locks only */
	bool user;		/* a user lock: its frames are user frames */
	uint64_t count;		/* samples, or contended waits */
	uint64_t wait_ns;	/* locks only */
	size_t first;		/* index of its root frame in frames */
	uint32_t nframes;
};

/*
 * Lock stacks are the rows of report's locks view (lock_view__build_rows):
 * kernel and user locks under the names report gives them, so that they
 * add up to report's TOTAL row.
 */
struct export_stacks {
	bool locks;
	struct lock_view view;	/* locks: owns the lock and caller names */
	struct export_stack *stacks;
	size_t n;
	struct frame_name *frames;	/* every stack's frames, back to back */
	size_t nframes;
	uint64_t total_count;
	uint64_t total_wait_ns;
};

/* Every sample row (or lock row of the locks view) that passes o->filter, one stack each. */
int export_stacks__build(struct export_stacks *s, const struct profile *p,
			 const struct export_opts *o);
/*
 * Add up the stacks that differ only in thread (or lock address, flags of
 * the same type, ...), then order them by value, largest first, ties in
 * byte order of their fields: the same input gives the same output.
 */
void export_stacks__merge(struct export_stacks *s, enum export_value value);
void export_stacks__free(struct export_stacks *s);
uint64_t export_stack_value(const struct export_stack *st, enum export_value value);

/* Folded stacks to f; 0, or -errno (-EIO when f reports a write error). */
int export__folded(FILE *f, const struct export_stacks *s, const struct export_opts *o);
/* Build, merge where the format wants it, and write any text format. */
int export__text(FILE *f, const struct profile *p, const struct export_opts *o);

#endif
