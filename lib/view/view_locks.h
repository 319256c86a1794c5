/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_LOCKS_H
#define __LOCKSTAT_VIEW_LOCKS_H

#include "format/profile.h"

/*
 * The locks view (lockmeter / Solaris lockstat): profile rows grouped per
 * lock (name x type), each with its callers and stacks: what report,
 * top's snapshot (top_snap.c), diff and the lock exports are built from.
 */
struct lock_filter {
	const char *lock;	/* fnmatch(3) patterns, NULL = any */
	const char *caller;
	const char *type;	/* lock_type_matches() */
	const char *comm;
	long pid;		/* -1 = any; matches tgid or tid */
	bool waits_only;	/* no hold tables (top shows no hold columns) */
	bool fold_arrays;	/* "table[3]" and "table[7]" are one lock, "table[]" */
};

/*
 * Acquisitions and hold times, lockmeter's other half: from the tables of
 * the mmap_lock family (always), of the hold family (--hold) and of the
 * ulocks family's uprobes (user locks, -e ulocks,uprobes). Zero
 * acquisitions with has_hold false means "not measured", never "none".
 */
struct hold_val {
	bool has_hold;
	uint64_t acquired;
	uint64_t held;		/* releases matched to an acquisition */
	uint64_t hold_ns;
	uint64_t hold_max_ns;
};

/*
 * Where only a random sample of a lock's waits carries a stack, a caller's
 * (or stack's) v holds estimates: each sampled wait counts 1/p times, p
 * its sampling probability (2^-shift), so that count, total_ns and the
 * histogram are unbiased estimates of the caller's waits (Horvitz-Thompson);
 * min_ns and max_ns are those of the sampled waits. One above its lock's
 * exact count or wait shrinks to it, count, total and histogram by one
 * factor (never below its sampled waits). That one estimator,
 * in every view and with or without a caller filter, makes the average
 * (total / count) a weighted mean of the sampled waits, and the
 * quantiles those of their weighted histogram: all within the sampled
 * min and max. est keeps what the 95 % interval needs: the sampled waits
 * and the variance estimates sum (1 - p) / p^2 and sum wait^2 (1 - p) / p^2
 * over them.
 */
struct lock_est {
	uint64_t sampled;	/* waits that carried a stack */
	uint64_t sampled_ns;	/* their total wait */
	double var_count;
	double var_wait;
};

/*
 * The same for a caller's acquisitions and holds where only a sample of
 * the lock's acquisitions carried a stack (mmap_lock): the acquisitions
 * that did, their hold time, those of them that carried it with p = 1
 * (certain: known exactly), and the variances of the caller's acquired
 * and hold total: sum (1 - p) / p^2 over its sampled acquisitions, and
 * over their holds squared, which a row's count, total and max bound
 * (sum h^2 <= max x sum h: its holds' squares are not recorded). Its h
 * is the same Horvitz-Thompson estimate as its waits: hold avg
 * (hold_ns / held) within the sampled holds, hold max theirs.
 */
struct hold_est {
	uint64_t sampled;
	uint64_t sampled_ns;
	struct hold_val certain;
	double var_acquired;
	double var_hold;
};

struct lock_part {		/* a caller or a stack of one lock */
	uint32_t caller;	/* string id: lock_view__str() */
	int32_t stack_id;
	uint32_t tgid;		/* whose user stack it is (user locks) */
	struct lock_row_val v;	/* estimates where the lock is estimated */
	struct lock_est est;
	struct hold_val h;
	struct hold_est hest;
};

/* Waits that ended without the lock (contention_end's ret < 0), by errno. */
struct lock_gave_up {
	uint32_t err;		/* EINTR, EDEADLK, ... */
	struct lock_row_val v;
};

struct lock_entry {
	uint32_t name;		/* string id: lock_view__str() */
	uint32_t flags;
	/*
	 * The contended acquisitions: exact, every wait counted, unless a
	 * caller filter is on (then the sum of the matching callers' estimates).
	 */
	struct lock_row_val v;
	struct hold_val h;
	bool estimated;		/* its callers' and stacks' figures are estimates */
	/*
	 * Its callers' hold figures are estimates: only a sample of its
	 * acquisitions carried a stack (mmap_lock). Each caller has its
	 * acquisitions that carried a stack with p = 1, and its others
	 * weighed by 1/p (struct hold_est); its hold max is the sampled ones'.
	 */
	bool hold_estimated;
	uint64_t hold_sampled;	/* then: its acquisitions that carried a stack */
	/*
	 * Every wait and acquisition of the lock, whatever the caller
	 * filter (v and h are then the matching callers' estimates): what
	 * no caller's 95 % interval goes above, filtered or not.
	 */
	struct lock_all {
		uint64_t count, wait_ns, acquired, hold_ns;
	} all;
	/*
	 * The variance of its callers' estimates summed, over every wait of
	 * the lock, sampled or not, each by its own chance to carry a stack:
	 * sum (1 - p) / p, and of the wait sum w^2 (1 - p) / p, w^2 bounded
	 * by max * w for the waits without a stack. unknown: a profile whose
	 * waits without a stack do not say their chance (before lockstat
	 * recorded it: their shift is 0).
	 */
	struct lock_sum_var {
		double count, wait;
		bool unknown;
	} sum_var;
	struct lock_part *callers;
	size_t ncallers;
	struct lock_part *stacks;
	size_t nstacks;
	struct lock_gave_up *gave_up;	/* not in v: no acquisition */
	size_t ngave_up;
};

enum lock_sort {
	SORT_WAIT_TOTAL,
	SORT_CONTENDED,
	SORT_WAIT_MAX,
	SORT_WAIT_AVG,
	SORT_WAIT_MIN,
	SORT_NAME,
	SORT_ACQUIRED,		/* the hold figures: a lock without them sorts last */
	SORT_HOLD_TOTAL,
	SORT_HOLD_MAX,
};

/* A sort by acquisitions or holds: report lists each caller that only held the lock. */
bool lock_sort_by_hold(enum lock_sort key);

/*
 * A row as the view adds it (lock_view__build_rows): the profile's kernel
 * rows and the user locks' waits, under the view's names, for an export
 * that writes each stack with exactly the view's totals.
 */
struct lock_view_row {
	struct lock_row_key k;	/* name and caller: lock_view__str(); comm: profile__str() */
	struct lock_row_val v;
};

struct lock_view {
	const struct profile *p;
	struct lock_entry *locks;
	size_t nlocks;
	struct lock_row_val total;
	bool total_estimated;	/* a caller filter made total a sum of estimates */
	struct hold_val hold_total;	/* over the locks that have hold data */
	struct lock_row_val held_total;	/* the waits of those locks */
	size_t nheld;		/* how many locks have hold data */
	bool has_hold;		/* some lock has hold data */
	bool hold_total_estimated;	/* a caller filter made hold_total a sum of estimates */
	struct htab mmap_locks;	/* while building: addresses the mmap_lock table covers */
	struct htab anon;	/* while building: anonymous lock address -> name id */
	/*
	 * While building: whose waits name the anonymous locks and say which
	 * futex words one thread alone waited on (top: the whole run's, not
	 * an interval's).
	 */
	const struct profile *names_from;
	struct htab str_index;	/* string hash -> id + 1 (intern) */
	bool str_indexed;
	char **xstrs;		/* names made by the view: ids from p->nstrs on */
	size_t nxstrs;
	size_t xstrs_cap;
	bool keep_rows;
	bool fold_arrays;	/* lock_filter's, while building */
	/*
	 * With keep_rows: every row that has a caller. Where a lock is
	 * estimated (and no caller filter is on) its rows' count and total_ns
	 * are their shares of its exact figures, by the ratio of their
	 * estimates: they add up to the lock's, as exports draw it (a lock
	 * none of whose waits carried a stack: one row without a stack).
	 */
	struct lock_view_row *rows;
	size_t nrows, rows_cap;
	struct htab estimated;	/* while building: (name, flags) of the sampled locks */
	uint32_t thin_slot;	/* while building: log2 of META stack_thin_ns, 0: none */
	struct htab all;	/* while building: (name, flags) -> struct lock_all */
};

int lock_sort_parse(const char *s, enum lock_sort *key);
/* Whether ulocks' uprobes were detached over their budget: its acquisitions cover the run's start only. */
bool lock_view__uprobes_detached(const struct profile *p);
int lock_view__build(struct lock_view *v, const struct profile *p, const struct lock_filter *f);
/*
 * The same, naming the anonymous locks after names_from's waits rather
 * than p's (top: an interval's locks are named as the whole run's).
 */
int lock_view__build_named(struct lock_view *v, const struct profile *p, const struct profile *names_from,
			   const struct lock_filter *f);
/* The same, keeping every row in v->rows: they add up to v->total. */
int lock_view__build_rows(struct lock_view *v, const struct profile *p, const struct lock_filter *f);
void lock_view__sort(struct lock_view *v, enum lock_sort key);
void lock_view__free(struct lock_view *v);
/* A lock or caller name of the view: the profile's strings, then its own. */
const char *lock_view__str(const struct lock_view *v, uint32_t id);
/* One frame of a part's stack: a kernel symbol, or a user function and its file. */
void lock_view__frame(const struct lock_view *v, const struct lock_part *s, uint64_t pc,
		      char *buf, size_t len);
/*
 * Who took a user lock, from a user stack of process tgid: the first
 * frame outside the C library's locking code ("[no stack]" for a
 * negative id), as the locks view names the callers of user locks.
 */
const char *user_stack_caller(const struct profile *p, uint32_t tgid, int32_t stack_id, char *buf, size_t len);
/* Contended / acquired in percent, NAN when acquisitions were not measured. */
double hold_con_pct(const struct lock_row_val *w, const struct hold_val *h);
/*
 * The same for a row whose waits or acquisitions are estimates (from two
 * samples, drawn apart): their ratio can pass 100 %, but no caller waited
 * more often than it acquired, so it is 100 % at most.
 */
double hold_con_pct_estimate(const struct lock_row_val *w, const struct hold_val *h);
/* Every lock of the view has hold data: the total's hold figures cover them all. */
bool lock_view__hold_complete(const struct lock_view *v);

/*
 * The 95 % interval of a caller's estimated acquisitions (hold false) or
 * hold total, where its lock's hold figures are estimated
 * (hold_estimated); within what its sampled acquisitions certainly held
 * and the lock's own figure, as lock_part__ci95() says.
 */
void lock_part__hold_ci95(const struct lock_entry *e, const struct lock_part *c, bool hold,
			  double *lo, double *hi);

/*
 * The 95 % interval of an estimated part's count (wait false) or total
 * wait (wait true), of e's callers or stacks: estimate +- 1.96 standard
 * errors, no lower than the sampled waits, no higher than the lock's own
 * exact figure (e->all, whatever the caller filter), which no part's
 * estimate passes: lock_view__build() brings one that did down to it.
 */
void lock_part__ci95(const struct lock_entry *e, const struct lock_part *c, bool wait,
		     double *lo, double *hi);
/* "EINTR" and the like, or the number. */
const char *lock_errno_name(uint32_t err, char *buf, size_t len);

/* Approximate quantile q in [0,1] from the log2 histogram, within [min, max]. */
uint64_t hist_quantile(const struct lock_row_val *v, double q);
uint64_t row_avg(const struct lock_row_val *v);

#endif
