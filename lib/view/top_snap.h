/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TOP_SNAP_H
#define __LOCKSTAT_TOP_SNAP_H

/*
 * A top snapshot: what one interval looked like, built from the lock and
 * hit views and the counter tables of both models of lib/view/top_model.h
 * (the interval and the cumulative one), joined by name. Plain data:
 * nothing points into a model, so a snapshot outlives the models' next
 * interval, and whatever draws or prints it never reads a model.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "view/top_model.h"

struct top_stat {		/* a lock, caller or total over one span */
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
	uint64_t avg_ns;	/* the view's row_avg(): within the row's min and max */
};

struct top_caller {
	const char *name;
	struct top_stat iv, cum;
	bool estimated;		/* from the sampled stacks, each weighed by 1/p */
};

struct top_stack {		/* of the lock shown in detail */
	const char *caller;
	struct top_stat iv, cum;
	uint32_t nframes;
	const char **frames;
};

struct top_lock {
	const char *name;
	const char *type;
	uint32_t flags;
	struct top_stat iv, cum;
	const char *caller;	/* the caller that waited most, cumulatively */
	struct top_caller *callers;
	size_t ncallers;
	struct top_stack *stacks;
	size_t nstacks;
	bool detailed;		/* the lock of the detail view: stacks filled */
};

struct top_func {
	const char *function;
	const char *module;
	bool kernel;
	uint64_t iv, cum;
};

struct top_trow {
	const char **keys;
	uint64_t *iv, *cum;
	const uint64_t *src;	/* the model's row, while the snapshot is built; then NULL */
};

struct top_table {		/* a counter table of another family (fd, pagecache, ...) */
	const char *name;
	uint32_t nkeys, nvals;
	const char **key_names;
	const char **val_names;
	const uint8_t *val_kinds;
	struct top_trow *rows;
	size_t nrows;
	size_t total_rows;	/* before the cut to TOP_TABLE_ROWS */
};

#define TOP_TABLE_ROWS	100

struct arena_block;

/* What one interval looked like: plain data, nothing points into a model. */
struct top_snap {
	struct arena_block *mem;
	uint64_t elapsed_ns;	/* end of the last bucket, from the start */
	uint64_t iv_ns;		/* this interval's span */
	uint64_t cum_ns;	/* since the start or the last reset */
	unsigned int cpus;
	const char *target;
	const char *command;
	bool per_task;
	bool final;		/* the last one: the session ended */
	bool has_samples;
	/* the figures of the header, filled by the driver */
	double events_per_s;
	double probe_pct;	/* % of one CPU, NAN when not measured */
	double self_pct;	/* lockstat's own CPU, % of one */
	bool steal_known;	/* live: /proc/stat was read; replay and follow: not */
	uint64_t steal_ns;	/* the host's steal over the interval, every CPU */
	uint64_t lost_iv, lost_cum;
	struct top_stat locks_iv, locks_cum;
	uint64_t samples_iv, samples_cum;
	uint64_t ksamples_iv, ksamples_cum;
	struct top_lock *locks;
	size_t nlocks;
	struct top_func *funcs;
	size_t nfuncs;
	struct top_table *tables;
	size_t ntables;
	struct top_lock *detail;	/* the lock asked about, in locks[], or NULL */
};

/* What to build: the filters (globs; a word without one matches inside) and the lock to detail. */
struct top_query {
	char lock[128];
	char caller[128];
	char comm[128];
	char func[128];
	char key[128];		/* tables: any key column */
	bool tables;		/* build the tables section (shown, or printed) */
	bool detail;
	char detail_name[256];
	uint32_t detail_flags;
};

int top_snap__build(struct top_snap **out, const struct top_model *m, const struct top_query *q);
void top_snap__free(struct top_snap *s);

enum top_lock_key {
	TK_CONT_RATE, TK_WAIT_RATE, TK_AVG, TK_MAX, TK_CUM_CONT, TK_CUM_WAIT, TK_CUM_AVG,
	TK_CUM_MAX, TK_NAME, TK__COUNT,
};
enum top_func_key { TF_RATE, TF_CUM, TF_NAME, TF__COUNT };

void top_snap__sort_locks(struct top_snap *s, enum top_lock_key k);
void top_snap__sort_funcs(struct top_snap *s, enum top_func_key k);
const char *top_lock_key_name(enum top_lock_key k);
const char *top_func_key_name(enum top_func_key k);
int top_sort_parse(const char *s, int *lock_key, int *func_key);

/* Per second over a span; 0 for an empty span. */
double per_s(uint64_t v, uint64_t span_ns);
/* Waited as % of all CPUs' time over the span. */
double wait_pct(uint64_t wait_ns, uint64_t span_ns, unsigned int cpus);
uint64_t stat_avg(const struct top_stat *s);
/* "lock=GLOB caller=GLOB comm=GLOB func=GLOB key=GLOB", a bare word for the view's own name. */
int top_query__parse(struct top_query *q, const char *text, const char *bare_field, char *why, size_t len);
void top_query__describe(const struct top_query *q, char *buf, size_t len);

#endif
