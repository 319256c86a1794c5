/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_DIFF_H
#define __LOCKSTAT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/htab.h"
#include "format/profile.h"
#include "view/stats.h"

/*
 * lockstat diff: the locks view or the hits view of a baseline and of a
 * patched kernel, each side one run or several, rows matched by name
 * (never by address: the two kernels lay out their code and data
 * differently), every row with its per-second means, shares, change and
 * a test of whether the change is more than noise.
 */

/*
 * The name a row is matched by. Functions lose what the compiler or the
 * linker adds to one kernel's copy and not the other's: "+0x1c/0x80"
 * offsets, "@@GLIBC_2.14" symbol versions, .isra.N, .constprop.N, .part.N,
 * .cold, .llvm.N, .lto_priv.N, .localalias and .__uniq.N suffixes, and the
 * tag of a BPF program (bpf_prog_<tag>_<name>). Locks known only by their
 * address ("0xffff...@alloc_fd") become "[anon]@alloc_fd": the address
 * differs from run to run, the place that took the lock does not; a lock
 * inside a static object keeps its offset ("runqueues+0x40").
 * The result (at most len - 1 bytes) goes to out; out is returned.
 */
char *diff_norm_func(const char *name, char *out, size_t len);
char *diff_norm_lock(const char *name, char *out, size_t len);

enum diff_view { DIFF_VIEW_LOCKS, DIFF_VIEW_HITS };
enum diff_value {
	DIFF_VALUE_WAIT,	/* locks: wait time in ns */
	DIFF_VALUE_COUNT,	/* locks: contended waits; hits: samples */
};
enum diff_test {
	DIFF_TEST_AUTO,		/* welch with >= 2 runs a side, else poisson */
	DIFF_TEST_WELCH,	/* Welch's t on log per-second values */
	DIFF_TEST_MWU,		/* Mann-Whitney U on per-second values */
	DIFF_TEST_POISSON,	/* conditional binomial test on summed counts */
};

/* "auto", "welch", "mwu", "poisson": 0; -EINVAL otherwise. */
int diff_test_parse(const char *s, enum diff_test *t);
const char *diff_test_name(enum diff_test t);

struct diff_run {
	const struct profile *p;
	const char *path;
};

/*
 * The probe families whose data the views compare: the locks view's
 * kernel locks (-e locks) and user locks (-e ulocks), the hits view's
 * CPU samples (-e sample). A family recorded by some runs and not by
 * others is not comparable: its rows are left out, and out of the total,
 * rather than shown as new or gone, and the output says so once.
 */
enum diff_family { DIFF_FAMILY_LOCKS, DIFF_FAMILY_ULOCKS, DIFF_FAMILY_SAMPLE, DIFF_FAMILY__COUNT };

struct diff_family_runs {
	size_t nb, np;		/* the runs of each side that recorded it */
};

const char *diff_family_name(enum diff_family f);	/* "locks", "ulocks", "sample" */
const char *diff_family_what(enum diff_family f);	/* "kernel locks", ... */
bool diff_family_in_view(enum diff_family f, enum diff_view v);
/*
 * Whether p recorded the family: its META probe key, or for a profile of
 * an older lockstat without the key, whether it holds the family's data.
 */
bool diff_recorded(const struct profile *p, enum diff_family f);
/* Count, for every family, the runs (nb base, then np patched) that recorded it. */
void diff_families(const struct diff_run *runs, size_t nb, size_t np, struct diff_family_runs *out);
/* Recorded by every run, or by none. */
bool diff_family_comparable(const struct diff_family_runs *r, size_t nb, size_t np);
/*
 * The view compares nothing: no family of it is recorded by every run,
 * and one is recorded by some. *first is then the first such family.
 */
bool diff_nothing_comparable(const struct diff_family_runs *fam, size_t nb, size_t np,
			     enum diff_view v, enum diff_family *first);
/* "user locks (-e ulocks): recorded by 0 of 1 base runs and 1 of 1 patched runs". */
void diff_family_text(char *buf, size_t len, enum diff_family f, const struct diff_family_runs *r,
		      size_t nb, size_t np);

struct diff_opts {
	enum diff_view view;
	enum diff_value value;
	enum diff_test test;
	enum stats_adjust adjust;
	double alpha;
};

/* One side of a row, over that side's runs. */
struct diff_sum {
	double mean;		/* of the runs' per-second values */
	double sd;		/* of the same; NAN with one run */
	double share;		/* % of the side's total (mean / total mean) */
	double total;		/* the value summed over the runs (ns, or a count) */
	uint64_t count;		/* events summed over the runs (waits, samples) */
};

enum diff_status { DIFF_CHANGED, DIFF_NEW, DIFF_GONE };

struct diff_row {
	char *key;		/* what rows are matched by */
	char *name;		/* normalized lock, caller or function name */
	char *detail;		/* lock type, or module ("" for callers) */
	bool kernel;		/* hits: a kernel function */
	int depth;		/* 0: lock or function, 1: caller of a lock */
	size_t parent;		/* depth 1: row index of its lock */
	double *v;		/* per run, base runs first: the value */
	uint64_t *c;		/* per run: the events */
	struct diff_sum base, patched;
	double delta;		/* patched.mean - base.mean, per second */
	double pct;		/* 100 * delta / base.mean; NAN when new */
	double p;		/* NAN: not tested */
	double q;		/* p adjusted over its family: the locks or functions, or its lock's callers */
	bool significant;	/* q <= alpha (and, for a caller, its lock is significant) */
	enum diff_status status;
};

/* The workload's own figure (META metric.name, metric.value) of each run. */
struct diff_metric {
	const char *name;	/* NULL: no run recorded one */
	double *v;		/* per run, NAN where that run has none */
	size_t nb, np;		/* runs with a value, per side */
	double base_mean, base_sd, patched_mean, patched_sd;
	double pct;		/* 100 * (patched - base) / |base| */
	double p;		/* Welch (on logs when all values are > 0); NAN: untested */
	double lo, hi;		/* pct's (1 - alpha) interval, from the same test; NAN: untested */
	bool significant;
};

struct diff {
	struct diff_opts o;
	enum diff_test test;	/* the one used */
	size_t nb, np;		/* runs per side */
	const struct diff_run *runs;	/* nb base runs, then np patched */
	double *secs;		/* duration of each run */
	struct diff_row *rows;
	size_t nrows, rows_cap;
	size_t *order;		/* display order: rows by |delta|, callers below their lock */
	size_t ntested;		/* locks or functions with a p-value: the family adjusted over */
	struct diff_row total;
	struct diff_metric metric;
	struct diff_family_runs fam[DIFF_FAMILY__COUNT];
	struct htab index;	/* key hash -> row index + 1 */
	struct htab anon_rank;	/* function hash -> waits on anonymous locks, all runs */
	double *scratch;	/* nb + np values */
};

/*
 * Build the rows from every run, then compute means, shares, tests and
 * the display order. runs: nb base runs then np patched runs, which must
 * outlive d. Rows of a family that is not comparable are left out.
 * 0, -ENOMEM, or -EINVAL for an option the runs cannot serve (welch or
 * mwu with fewer than 2 runs on a side, a run of no duration).
 */
int diff__build(struct diff *d, const struct diff_run *runs, size_t nb, size_t np,
		const struct diff_opts *o);
void diff__free(struct diff *d);

/* The value of one run of a row per second of that run. */
double diff_rate(const struct diff *d, const struct diff_row *r, size_t run);

#endif
