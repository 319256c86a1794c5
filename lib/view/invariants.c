// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The invariant checker: every row the report shows, checked for figures
 * that contradict each other (view/invariants.h; the rules and why each
 * holds are in lockstat-fsck(1)).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/nsfmt.h"
#include "format/ctable.h"
#include "format/locktype.h"
#include "format/consts.h"
#include "view/invariants.h"
#include "view/stats.h"
#include "view/view_fd.h"
#include "view/view_hits.h"
#include "view/view_pagecache.h"
#include "view/view_tables.h"

/* 2^63 ns is 292 years: a figure this big is a negative one, or one that wrapped. */
#define WRAPPED		(1ULL << 63)
/* More interval misses than this chance allows (of a binomial at 5 %) are errors. */
#define INTERVAL_ALPHA	0.001

static const char *const kind_names[INV__COUNT] = {
	[INV_AVG] = "avg", [INV_QUANTILE] = "quantile", [INV_COUNT] = "count",
	[INV_HIST_SUM] = "hist-sum", [INV_HIST_ENDS] = "hist-ends", [INV_INTERVAL] = "interval",
	[INV_RECORDING] = "recording", [INV_WRAPPED] = "wrapped", [INV_HOLD] = "hold",
	[INV_SAMPLES] = "samples",
};

const char *inv_kind_name(enum inv_kind k)
{
	return k < INV__COUNT ? kind_names[k] : "?";
}

static void add(struct inv_report *r, enum inv_kind kind, bool warning, const char *where,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct inv_report *r, enum inv_kind kind, bool warning, const char *where,
		const char *fmt, ...)
{
	struct inv_violation *v;
	char what[160], *msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;

		v = realloc(r->v, cap * sizeof(*v));
		if (!v) {
			r->err = -ENOMEM;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	if (asprintf(&msg, "%s: %s", where, what) < 0) {
		r->err = -ENOMEM;
		return;
	}
	r->v[r->n++] = (struct inv_violation){ kind, warning, msg };
	if (warning) {
		r->warnings++;
	} else {
		r->errors++;
		r->by_kind[kind]++;
	}
}

void inv_report__free(struct inv_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].msg);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* A duration as report prints it, in one of two buffers (a finding names two). */
struct ns2 {
	char a[32], b[32];
};

static const char *ns_a(struct ns2 *s, uint64_t ns)
{
	fmt_ns(s->a, sizeof(s->a), ns);
	return s->a;
}

static const char *ns_b(struct ns2 *s, uint64_t ns)
{
	fmt_ns(s->b, sizeof(s->b), ns);
	return s->b;
}

/* Each figure below 2^63; true when all are. */
static bool not_wrapped(struct inv_report *r, const char *where, const char *const *names,
			const uint64_t *vals, size_t n)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < n; i++) {
		if (vals[i] < WRAPPED)
			continue;
		add(r, INV_WRAPPED, false, where, "%s %" PRIu64 " is negative or wrapped (%" PRId64 ")",
		    names[i], vals[i], (int64_t)vals[i]);
		ok = false;
	}
	return ok;
}

static void check_longest(struct inv_report *r, const char *where, const char *what, uint64_t ns,
			  uint64_t duration_ns)
{
	struct ns2 s;

	if (duration_ns && ns > duration_ns)
		add(r, INV_RECORDING, false, where, "%s %s > the recording's %s", what, ns_a(&s, ns),
		    ns_b(&s, duration_ns));
}

/* count > 0 exactly where total > 0: a wait (or hold) takes time, and time is some wait's. */
static bool check_count(struct inv_report *r, const char *where, const char *count_name, uint64_t count,
			const char *total_name, uint64_t total)
{
	struct ns2 s;

	if (!count == !total)
		return true;
	add(r, INV_COUNT, false, where, "%s %" PRIu64 " with %s %s", count_name, count, total_name,
	    ns_a(&s, total));
	return false;
}

/* min <= avg <= max, and the total at least the longest (a sum holds its largest term). */
static void check_avg(struct inv_report *r, const char *where, const char *prefix, uint64_t count,
		      uint64_t total, uint64_t min, bool has_min, uint64_t max)
{
	uint64_t avg = count ? total / count : 0;
	struct ns2 s;

	if (!count)
		return;
	/* min * count > total, not min > total / count: a total rounded down is no contradiction. */
	if (has_min && (unsigned __int128)min * count > total)
		add(r, INV_AVG, false, where, "%smin %s > avg %s", prefix, ns_a(&s, min), ns_b(&s, avg));
	if (avg > max)
		add(r, INV_AVG, false, where, "%savg %s > max %s", prefix, ns_a(&s, avg), ns_b(&s, max));
	else if (total < max)
		add(r, INV_AVG, false, where, "%stotal %s < max %s", prefix, ns_a(&s, total), ns_b(&s, max));
}

/* The quantiles as report computes them (hist_quantile): p50 <= p99 <= max. */
static void check_quantiles(struct inv_report *r, const char *where, const struct lock_row_val *v)
{
	uint64_t p50 = hist_quantile(v, 0.50), p99 = hist_quantile(v, 0.99);
	struct ns2 s;

	if (p50 > p99)
		add(r, INV_QUANTILE, false, where, "p50 %s > p99 %s", ns_a(&s, p50), ns_b(&s, p99));
	if (p99 > v->max_ns)
		add(r, INV_QUANTILE, false, where, "p99 %s > max %s", ns_a(&s, p99), ns_b(&s, v->max_ns));
	if (p50 < v->min_ns)
		add(r, INV_QUANTILE, false, where, "p50 %s < min %s", ns_a(&s, p50), ns_b(&s, v->min_ns));
}

/*
 * The histogram: an exact row's slots count each of its waits once; any
 * row's lowest non-empty slot is its min's (the shortest wait went
 * there) and its highest its max's.
 */
static void check_hist(struct inv_report *r, const char *where, const struct lock_row_val *v, bool exact)
{
	uint64_t sum = 0;
	int i, lo = -1, hi = -1;
	struct ns2 s;

	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (v->hist[i] >= WRAPPED)
			add(r, INV_WRAPPED, false, where, "histogram slot %d holds %" PRIu64 " (wrapped)", i,
			    v->hist[i]);
		sum += v->hist[i];
		if (v->hist[i] && lo < 0)
			lo = i;
		if (v->hist[i])
			hi = i;
	}
	if (exact && sum != v->count)
		add(r, INV_HIST_SUM, false, where, "histogram holds %" PRIu64 " waits, count %" PRIu64, sum,
		    v->count);
	if (lo < 0 || !v->count)
		return;
	if ((uint32_t)lo != log2_slot(v->min_ns, LS_HIST_SLOTS))
		add(r, INV_HIST_ENDS, false, where, "lowest histogram slot [2^%d, 2^%d) ns does not hold min %s",
		    lo, lo + 1, ns_a(&s, v->min_ns));
	if ((uint32_t)hi != log2_slot(v->max_ns, LS_HIST_SLOTS))
		add(r, INV_HIST_ENDS, false, where, "highest histogram slot [2^%d, 2^%d) ns does not hold max %s",
		    hi, hi + 1, ns_a(&s, v->max_ns));
}

void inv_check_row(struct inv_report *r, const char *where, const struct lock_row_val *v, bool exact,
		   uint64_t duration_ns)
{
	static const char *const names[] = { "count", "total wait", "min", "max" };
	const uint64_t vals[] = { v->count, v->total_ns, v->min_ns, v->max_ns };

	r->rows++;
	if (!not_wrapped(r, where, names, vals, 4))
		return;
	check_longest(r, where, "max wait", v->max_ns, duration_ns);
	check_hist(r, where, v, exact);
	if (!check_count(r, where, "count", v->count, "total wait", v->total_ns) || !v->count)
		return;
	check_avg(r, where, "", v->count, v->total_ns, v->min_ns, true, v->max_ns);
	check_quantiles(r, where, v);
}

void inv_check_hold(struct inv_report *r, const char *where, const struct hold_val *h,
		    const struct lock_row_val *contended, bool exact, uint64_t duration_ns)
{
	static const char *const names[] = { "acquired", "held", "hold total", "hold max" };
	const uint64_t vals[] = { h->acquired, h->held, h->hold_ns, h->hold_max_ns };

	if (!h->has_hold || !not_wrapped(r, where, names, vals, 4))
		return;
	check_longest(r, where, "hold max", h->hold_max_ns, duration_ns);
	if (exact && h->held > h->acquired)
		add(r, INV_HOLD, false, where, "held %" PRIu64 " > acquired %" PRIu64, h->held, h->acquired);
	if (exact && contended && contended->count > h->acquired)
		add(r, INV_HOLD, false, where, "contended %" PRIu64 " > acquired %" PRIu64, contended->count,
		    h->acquired);
	if (check_count(r, where, "held", h->held, "hold total", h->hold_ns))
		check_avg(r, where, "hold ", h->held, h->hold_ns, 0, false, h->hold_max_ns);
}

/*
 * An estimated caller's (or stack's) figure outside its own stated
 * interval: the row contradicts itself, whatever chance did.
 */
void inv_check_estimate(struct inv_report *r, const char *where, const struct lock_entry *e,
			const struct lock_part *c)
{
	char lo_s[32], hi_s[32], est_s[32];
	double lo, hi;

	if (!e->estimated)
		return;
	lock_part__ci95(e, c, false, &lo, &hi);
	if ((double)c->v.count < lo || (double)c->v.count > hi)
		add(r, INV_INTERVAL, false, where, "contended ~%" PRIu64 " outside its 95 %% interval %.0f..%.0f",
		    c->v.count, lo, hi);
	lock_part__ci95(e, c, true, &lo, &hi);
	if ((double)c->v.total_ns >= lo && (double)c->v.total_ns <= hi)
		return;
	fmt_ns(est_s, sizeof(est_s), c->v.total_ns);
	fmt_ns(lo_s, sizeof(lo_s), (uint64_t)lo);
	fmt_ns(hi_s, sizeof(hi_s), (uint64_t)hi);
	add(r, INV_INTERVAL, false, where, "total wait ~%s outside its 95 %% interval %s..%s", est_s, lo_s, hi_s);
}

/*
 * One sum, count or wait: the lock's exact figure within the 95 %
 * interval of its callers' estimates summed, from the variance over every
 * wait of the lock, each by the chance it had to carry a stack
 * (lock_entry.sum_var): a miss happens to 5 % of the locks of an unbiased
 * estimator, said as a warning, settled by inv_settle_intervals. The
 * callers' own intervals cannot stand for it: their variances are
 * estimated from their sampled waits alone, 0 where all of them had
 * p = 1 (a lock's first wait on a CPU) while its other waits had a lower
 * one and none was drawn. A profile whose waits without a stack do not
 * say their chance falls back to the sum of the callers' intervals,
 * wider than the sum's own. What the sampled waits alone exceed is no
 * chance: an error.
 */
static void check_sum(struct inv_report *r, const char *where, const struct lock_entry *e, bool wait)
{
	double lo = 0, hi = 0, l, h, est = 0, seen = 0, exact = wait ? e->v.total_ns : e->v.count;
	const char *what = wait ? "total wait" : "contended";
	size_t i;

	for (i = 0; i < e->ncallers; i++) {
		const struct lock_part *c = &e->callers[i];

		lock_part__ci95(e, c, wait, &l, &h);
		lo += l;
		hi += h;
		est += wait ? c->v.total_ns : c->v.count;
		seen += wait ? c->est.sampled_ns : c->est.sampled;
	}
	if (seen > exact) {
		add(r, INV_INTERVAL, false, where, "its callers' sampled %s %.0f > the lock's %.0f", what, seen,
		    exact);
		return;
	}
	r->intervals++;
	if (!e->sum_var.unknown) {	/* the sum's own interval, over every wait's chance */
		double se = sqrt(wait ? e->sum_var.wait : e->sum_var.count);

		lo = est - 1.96 * se;
		hi = est + 1.96 * se;
	}
	if (exact >= lo && exact <= hi)
		return;
	r->missed++;
	add(r, INV_INTERVAL, true, where, "callers' %s ~%.0f, lock %.0f: outside %s 95 %% interval %.0f..%.0f%s",
	    what, est, exact, e->sum_var.unknown ? "the sum of their" : "their sum's", lo, hi, wait ? " ns" : "");
}

void inv_check_callers(struct inv_report *r, const char *where, const struct lock_entry *e)
{
	if (!e->estimated || !e->ncallers)
		return;
	check_sum(r, where, e, false);
	check_sum(r, where, e, true);
}

void inv_settle_intervals(struct inv_report *r)
{
	size_t i;

	if (!r->missed || stats_binom_sf(r->missed, r->intervals, 0.05) >= INTERVAL_ALPHA)
		return;
	for (i = 0; i < r->n; i++) {
		if (r->v[i].kind != INV_INTERVAL || !r->v[i].warning)
			continue;
		r->v[i].warning = false;
		r->warnings--;
		r->errors++;
		r->by_kind[INV_INTERVAL]++;
	}
}

/* A lock's callers and stacks: exact where the lock is not estimated. */
static void check_parts(struct inv_report *r, const struct lock_view *v, const struct lock_entry *e,
			uint64_t dur)
{
	const char *lname = lock_view__str(v, e->name);
	char where[512];
	size_t i;

	for (i = 0; i < e->ncallers; i++) {
		const struct lock_part *c = &e->callers[i];

		snprintf(where, sizeof(where), "lock %s caller %s", lname, lock_view__str(v, c->caller));
		inv_check_row(r, where, &c->v, !e->estimated, dur);
		inv_check_hold(r, where, &c->h, NULL, !e->hold_estimated, dur);
		inv_check_estimate(r, where, e, c);
	}
	for (i = 0; i < e->nstacks; i++) {
		const struct lock_part *s = &e->stacks[i];

		snprintf(where, sizeof(where), "lock %s caller %s stack %d", lname, lock_view__str(v, s->caller),
			 s->stack_id);
		inv_check_row(r, where, &s->v, !e->estimated, dur);
		inv_check_hold(r, where, &s->h, NULL, !e->hold_estimated, dur);
		inv_check_estimate(r, where, e, s);
	}
}

/* The locks view as report builds it: every lock, its callers, stacks, gave-up rows; the total. */
static int check_locks(struct inv_report *r, const struct profile *p, uint64_t dur)
{
	const struct lock_filter f = { .pid = -1 };
	char where[512], buf[32];
	struct lock_view v;
	size_t i, g;
	int err = lock_view__build(&v, p, &f);
	/* Uprobes detached over their budget: user locks' acquisitions cover the run's start only. */
	bool partial = lock_view__uprobes_detached(p);

	for (i = 0; !err && i < v.nlocks; i++) {
		const struct lock_entry *e = &v.locks[i];
		bool cover = !(partial && lock_type_is_user(e->flags));

		snprintf(where, sizeof(where), "lock %s", lock_view__str(&v, e->name));
		inv_check_row(r, where, &e->v, true, dur);
		inv_check_hold(r, where, &e->h, cover ? &e->v : NULL, true, dur);
		inv_check_callers(r, where, e);
		check_parts(r, &v, e, dur);
		for (g = 0; g < e->ngave_up; g++) {
			snprintf(where, sizeof(where), "lock %s [gave up: %s]", lock_view__str(&v, e->name),
				 lock_errno_name(e->gave_up[g].err, buf, sizeof(buf)));
			inv_check_row(r, where, &e->gave_up[g].v, true, dur);
		}
	}
	if (!err && v.nlocks) {
		inv_check_row(r, "TOTAL", &v.total, true, dur);
		if (lock_view__hold_complete(&v))
			inv_check_hold(r, "TOTAL", &v.hold_total, partial ? NULL : &v.total, true, dur);
	}
	lock_view__free(&v);
	return err;
}

static const char *const fd_names[] = { "fget calls", "fget total", "fget max", "contended", "file_lock wait" };

/* The fd view's processes: fget's average within its max, file_lock's count and wait together. */
static int check_fd(struct inv_report *r, const struct profile *p, uint64_t dur)
{
	const struct fd_filter f = { .pid = -1 };
	struct fd_view v;
	char where[128];
	size_t i;
	int err = fd_view__build(&v, p, &f);

	for (i = 0; !err && i < v.n; i++) {
		const struct fd_proc *x = v.order[i];
		const uint64_t vals[] = { x->fget_calls, x->fget_ns, x->fget_max_ns, x->contended, x->wait_ns };

		r->rows++;
		snprintf(where, sizeof(where), "fd pid %u (%s)", x->pid, profile__str(p, x->comm));
		if (!not_wrapped(r, where, fd_names, vals, 5))
			continue;
		check_count(r, where, "file_lock contended", x->contended, "wait", x->wait_ns);
		if (v.fget_why)		/* fget not measured: its zeros are no figures */
			continue;
		check_longest(r, where, "fget max", x->fget_max_ns, dur);
		if (check_count(r, where, "fget calls", x->fget_calls, "fget total", x->fget_ns))
			check_avg(r, where, "fget ", x->fget_calls, x->fget_ns, 0, false, x->fget_max_ns);
	}
	fd_view__free(&v);
	return err == -ENOENT ? 0 : err;
}

static void check_pc_list(struct inv_report *r, const struct pc_list *l, bool files)
{
	const char *names[PC__NVALS + 2];
	uint64_t vals[PC__NVALS + 2];
	char where[512];
	size_t i;

	for (i = 0; i < PC__NVALS; i++)
		names[i] = pc_val_name(i);
	names[PC__NVALS] = "contended";
	names[PC__NVALS + 1] = "wait";
	for (i = 0; i < l->n; i++) {
		const struct pc_entry *e = &l->e[i];

		r->rows++;
		if (files)
			snprintf(where, sizeof(where), "pagecache file %s", *e->name ? e->name : "(no path)");
		else
			snprintf(where, sizeof(where), "pagecache pid %" PRIu64 " (%s)", e->id[0], e->name);
		memcpy(vals, e->v, sizeof(e->v));
		vals[PC__NVALS] = e->contended;
		vals[PC__NVALS + 1] = e->wait_ns;
		if (not_wrapped(r, where, names, vals, PC__NVALS + 2))
			check_count(r, where, "i_pages contended", e->contended, "wait", e->wait_ns);
	}
}

static int check_pagecache(struct inv_report *r, const struct profile *p)
{
	struct pagecache_view v;
	int err = pagecache_view__build(&v, p);

	if (!err) {
		check_pc_list(r, &v.files, true);
		check_pc_list(r, &v.procs, false);
	}
	pagecache_view__free(&v);
	return err == -ENOENT ? 0 : err;
}

/*
 * The counter tables' count, total, min and max columns that make an
 * average (min -1: none), by their names: any table with the same columns
 * has the same average.
 */
static const struct {
	enum ls_table table;
	int count, total, min, max;
} table_avgs[] = {
	{ TBL_HOLD, HOLD__HELD, HOLD__HOLD_NS, -1, HOLD__HOLD_MAX_NS },
	{ TBL_ULOCKS, ULOCKS__CONTENDED, ULOCKS__WAIT_NS, ULOCKS__WAIT_MIN_NS, ULOCKS__WAIT_MAX_NS },
	{ TBL_FD_FGET, FD_FGET__CALLS, FD_FGET__TIME_NS, -1, FD_FGET__MAX_NS },
};

static const char *avg_col(size_t a, int col)
{
	return ls_col_name(table_avgs[a].table, col);
}

#define NAVGS	(sizeof(table_avgs) / sizeof(table_avgs[0]))

static bool ends_ns(const char *s)
{
	size_t n = strlen(s);

	return n > 3 && !strcmp(s + n - 3, "_ns");
}

/* "table hold lock=0x... kind=1 caller=f+0x10": a row by its keys. */
static void table_where(const struct profile *p, const struct ptable *t, const uint64_t *row, char *buf,
			size_t len)
{
	char key[256];
	size_t n;
	uint32_t c;

	n = snprintf(buf, len, "table %s", t->name);
	for (c = 0; c < t->ncols && n < len; c++)
		if (tcol_is_key(t->kinds[c]))
			n += snprintf(buf + n, len - n, " %s=%s", t->cols[c],
				      table_view__key(p, t, row, c, key, sizeof(key)));
}

static void check_table_row(struct inv_report *r, const struct ptable *t, const int (*cols)[4],
			    const uint64_t *row, const char *where, uint64_t dur)
{
	size_t a;
	uint32_t c;

	for (c = 0; c < t->ncols; c++) {
		if (tcol_is_key(t->kinds[c]))
			continue;
		if (!not_wrapped(r, where, (const char *const *)&t->cols[c], &row[c], 1))
			return;
		if (t->kinds[c] == TCOL_MAX && ends_ns(t->cols[c]))
			check_longest(r, where, t->cols[c], row[c], dur);
	}
	for (a = 0; a < NAVGS; a++) {
		const int *k = cols[a];

		if (k[0] < 0 || k[1] < 0 || k[3] < 0)
			continue;
		if (check_count(r, where, avg_col(a, table_avgs[a].count), row[k[0]],
				avg_col(a, table_avgs[a].total), row[k[1]]))
			check_avg(r, where, "", row[k[0]], row[k[1]], k[2] >= 0 ? row[k[2]] : 0, k[2] >= 0,
				  row[k[3]]);
	}
}

/* A finding made with an empty where ("": ...), given its row's name. */
static void rename_finding(struct inv_report *r, struct inv_violation *v, const char *where)
{
	char *msg;

	if (asprintf(&msg, "%s%s", where, v->msg) < 0) {
		r->err = -ENOMEM;
		return;
	}
	free(v->msg);
	v->msg = msg;
}

static void check_table(struct inv_report *r, const struct profile *p, const struct ptable *t, uint64_t dur)
{
	int cols[NAVGS][4];
	const uint64_t *row;
	char where[1024];
	size_t it = 0, a;

	for (a = 0; a < NAVGS; a++) {
		cols[a][0] = ptable__col(t, avg_col(a, table_avgs[a].count));
		cols[a][1] = ptable__col(t, avg_col(a, table_avgs[a].total));
		cols[a][2] = table_avgs[a].min >= 0 ? ptable__col(t, avg_col(a, table_avgs[a].min)) : -1;
		cols[a][3] = ptable__col(t, avg_col(a, table_avgs[a].max));
	}
	while ((row = htab_next(&t->rows, &it, NULL))) {
		size_t before = r->n;

		r->rows++;
		/* Named by its keys only when it has something to say: resolving them costs. */
		check_table_row(r, t, (const int (*)[4])cols, row, "", dur);
		if (r->n == before)
			continue;
		table_where(p, t, row, where, sizeof(where));
		for (; before < r->n; before++)
			rename_finding(r, &r->v[before], where);
	}
}

/* The hit list: its functions' samples add up to its total, of which the kernel's are a part. */
static int check_hits(struct inv_report *r, const struct profile *p)
{
	const struct hits_filter f = { .pid = -1 };
	struct hits_view v;
	uint64_t sum = 0;
	size_t i;
	int err;

	if (!p->samples.count)
		return 0;
	err = hits_view__build(&v, p, &f, false);
	if (err)
		return err;
	for (i = 0; i < v.n; i++) {
		r->rows++;
		sum += v.hits[i].samples;
		if (!v.hits[i].samples)
			add(r, INV_SAMPLES, false, "hits", "%s in %s has no sample", v.hits[i].function,
			    v.hits[i].module);
	}
	if (sum != v.total)
		add(r, INV_SAMPLES, false, "hits", "functions hold %" PRIu64 " samples, total %" PRIu64, sum,
		    v.total);
	if (v.kernel > v.total)
		add(r, INV_SAMPLES, false, "hits", "kernel %" PRIu64 " > total %" PRIu64 " samples", v.kernel,
		    v.total);
	if (v.truncated > v.total)
		add(r, INV_SAMPLES, false, "hits", "truncated %" PRIu64 " > total %" PRIu64 " samples",
		    v.truncated, v.total);
	hits_view__free(&v);
	return 0;
}

int invariants_check(const struct profile *p, struct inv_report *r)
{
	uint64_t dur = profile__duration_ns(p);
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	err = check_locks(r, p, dur);
	if (!err)
		err = check_fd(r, p, dur);
	if (!err)
		err = check_pagecache(r, p);
	for (i = 0; !err && i < p->ntables; i++)
		check_table(r, p, &p->tables[i], dur);
	if (!err)
		err = check_hits(r, p);
	inv_settle_intervals(r);
	return err ? err : r->err;
}
