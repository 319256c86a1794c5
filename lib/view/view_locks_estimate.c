// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks view: sampled waits and holds as estimates, within the exact figures. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/locktype.h"
#include "view/view_locks_int.h"

/* A lock without stack for some waits, or with waits sampled at p < 1. */
static bool row_estimates(const struct profile *p, const struct lock_row_key *k)
{
	return k->shift || (p->lock_sampling && k->stack_id == LS_STACK_UNSAMPLED);
}

uint64_t lv_lock_key(uint32_t name, uint32_t flags)
{
	return (uint64_t)name << 32 | flags;
}

/* Before the rows are added, whatever the filters: which locks are sampled. */
int lv_index_estimated(struct lock_view *v, const struct htab *given)
{
	const struct lock_row_key *k;
	struct lock_row_key named;
	size_t it = 0;
	uint64_t id;

	htab_init(&v->estimated, sizeof(uint64_t), 1);
	while (htab_next(&v->p->rows, &it, (const void **)&k)) {
		if (lv_named_row(v, given, k, &named))
			return -ENOMEM;
		id = lv_lock_key(named.name, named.flags);
		if (row_estimates(v->p, k) && !htab_get(&v->estimated, &id, NULL))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A sampled row's waits, each counting 2^shift times: the histogram too;
 * min and max stay the sampled waits' own. A figure past 2^64 - 1 (a
 * total of 2^(64 - shift) ns or more) saturates there: an estimate that
 * large is unknown, not small (row_avg() keeps the average within the
 * sampled waits).
 */
void lv_weigh(struct lock_row_val *w, const struct lock_row_val *val, uint32_t shift)
{
	int i;

	*w = *val;
	w->count = sat_shl(val->count, shift);
	w->total_ns = sat_shl(val->total_ns, shift);
	for (i = 0; i < LS_HIST_SLOTS; i++)
		w->hist[i] = sat_shl(val->hist[i], shift);
}

/* A sampled event's share of the variance: (1 - p) / p^2 = 4^shift - 2^shift. */
double lv_var_weight(uint32_t shift)
{
	return ldexp(1, 2 * shift) - ldexp(1, shift);
}

void lv_part_add(struct lock_part *c, const struct lock_row_val *w, const struct lock_row_val *val,
		 uint32_t shift)
{
	double f = lv_var_weight(shift);

	lock_row_merge(&c->v, w);
	c->est.sampled += val->count;
	c->est.sampled_ns += val->total_ns;
	c->est.var_count += f * val->count;
	c->est.var_wait += f * val->sumsq;
}

/*
 * Where the recording thinned short waits' stacks (META stack_thin_ns,
 * bpf/contention.bpf.c stack_at_end()), a wait without a stack had the
 * chance 2^-max(shift, thin_slot - slot), from its length: by histogram
 * slot, each slot's waits at most min(2^(slot+1), max) long.
 */
static void sum_var_thinned(struct lock_entry *e, const struct lock_row_key *k, const struct lock_row_val *val,
			    uint32_t thin_slot)
{
	uint32_t i;

	for (i = 0; i < LS_HIST_SLOTS; i++) {
		uint32_t sh = i < thin_slot && thin_slot - i > k->shift ? thin_slot - i : k->shift;
		double f, hi;

		if (!val->hist[i])
			continue;
		if (!sh) {
			e->sum_var.unknown = true;
			continue;
		}
		f = ldexp(1, sh < LS_MAX_SHIFT ? sh : LS_MAX_SHIFT) - 1;
		hi = i + 1 < LS_HIST_SLOTS ? ldexp(1, i + 1) : (double)val->max_ns;
		if (hi > (double)val->max_ns)
			hi = (double)val->max_ns;
		e->sum_var.count += f * val->hist[i];
		e->sum_var.wait += f * val->hist[i] * hi * hi;
	}
}

/* log2 of the recording's META stack_thin_ns; 0: none, or not a power of two it writes. */
uint32_t lv_meta_thin_slot(const struct profile *p)
{
	unsigned long long ns = strtoull(profile__meta_or(p, "stack_thin_ns", "0"), NULL, 10);
	uint32_t slot = 0;

	if (!ns || ns & (ns - 1) || ns > 1ULL << LS_MAX_SHIFT)
		return 0;
	while (ns >>= 1)
		slot++;
	return slot;
}

/* A kernel row's part of its lock's sum_var (struct lock_entry). */
void lv_sum_var_add(struct lock_entry *e, const struct lock_row_key *k, const struct lock_row_val *val,
		    bool no_caller, uint32_t thin_slot)
{
	double f = ldexp(1, k->shift) - 1;	/* (1 - p) / p */

	if (no_caller && thin_slot) {
		sum_var_thinned(e, k, val, thin_slot);
		return;
	}
	if (no_caller && !k->shift) {	/* a wait that could not have its stack: its chance not said */
		e->sum_var.unknown = true;
		return;
	}
	e->sum_var.count += f * (double)val->count;
	e->sum_var.wait += f * (no_caller ? (double)val->max_ns * (double)val->total_ns : val->sumsq);
}

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * est +- 1.96 standard errors, within what was seen (floor) and the
 * lock's exact figure (ceil), which lv_cap_parts() keeps every estimate
 * under; should one still be above (rounding), the interval holds it.
 */
static void ci95(double est, double var, double floor, double ceil, double *lo, double *hi)
{
	double se = sqrt(var);

	if (ceil < est)
		ceil = est;
	*lo = clamp(est - 1.96 * se, floor, ceil);
	*hi = clamp(est + 1.96 * se, floor, ceil);
}

void lock_part__hold_ci95(const struct lock_entry *e, const struct lock_part *c, bool hold,
			  double *lo, double *hi)
{
	if (hold)
		ci95((double)c->h.hold_ns, c->hest.var_hold, (double)c->hest.sampled_ns, (double)e->all.hold_ns,
		     lo, hi);
	else
		ci95((double)c->h.acquired, c->hest.var_acquired, (double)c->hest.sampled,
		     (double)e->all.acquired, lo, hi);
}

void lock_part__ci95(const struct lock_entry *e, const struct lock_part *c, bool wait,
		     double *lo, double *hi)
{
	if (wait)
		ci95((double)c->v.total_ns, c->est.var_wait, (double)c->est.sampled_ns, (double)e->all.wait_ns,
		     lo, hi);
	else
		ci95((double)c->v.count, c->est.var_count, (double)c->est.sampled, (double)e->all.count, lo, hi);
}

/* The exact figures of the lock (name, flags), filtered by caller or not. */
static struct lock_all *lock_all_of(struct lock_view *v, uint32_t name, uint32_t flags)
{
	uint64_t key = (uint64_t)name << 32 | flags;

	return htab_get(&v->all, &key, NULL);
}

int lv_count_all_waits(struct lock_view *v, const struct lock_row_key *k, const struct lock_row_val *val)
{
	struct lock_all *a = lock_all_of(v, k->name, k->flags);

	if (!a)
		return -ENOMEM;
	if (!k->err) {	/* the waits that gave up are no acquisition, in no caller's figures */
		a->count = sat_add(a->count, val->count);
		a->wait_ns = sat_add(a->wait_ns, val->total_ns);
	}
	return 0;
}

int lv_count_all_holds(struct lock_view *v, uint32_t name, uint32_t flags, const struct hold_val *h)
{
	struct lock_all *a = lock_all_of(v, name, flags);

	if (!a)
		return -ENOMEM;
	a->acquired = sat_add(a->acquired, h->acquired);
	a->hold_ns = sat_add(a->hold_ns, h->hold_ns);
	return 0;
}

/* After the rows: each lock's exact figures, those counted whatever the caller. */
void lv_set_all(struct lock_view *v)
{
	const struct lock_all *a;
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		a = htab_find(&v->all, &(uint64_t){ (uint64_t)v->locks[i].name << 32 | v->locks[i].flags });
		if (a)
			v->locks[i].all = *a;
	}
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	unsigned __int128 p = (unsigned __int128)a * b;

	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

/* x times f, rounded, no lower than floor (what the samples saw). */
static uint64_t shrink(uint64_t x, double f, uint64_t floor)
{
	uint64_t y = (uint64_t)llround((double)x * f);

	return y > floor ? y : floor;
}

/*
 * A capped part's count and total, each rounded on its own, made to fit
 * its sampled waits' min and max: a whole count n with n * min <= total
 * <= n * max, the total no more than its lock's. Where no whole count
 * fits (a total between one and two waits at most), the total goes to
 * what the count holds.
 */
static void fit_waits(struct lock_part *c, uint64_t lock_total)
{
	uint64_t t = c->v.total_ns < lock_total ? c->v.total_ns : lock_total;
	uint64_t n = c->v.count, lo, hi;

	if (!n || !c->v.max_ns)
		return;
	lo = t / c->v.max_ns + (t % c->v.max_ns != 0);
	hi = c->v.min_ns ? t / c->v.min_ns : UINT64_MAX;
	if (lo <= hi) {
		n = n < lo ? lo : n > hi ? hi : n;
	} else {
		n = hi ? hi : 1;
		if (t < sat_mul(n, c->v.min_ns))
			t = sat_mul(n, c->v.min_ns);
		if (t > sat_mul(n, c->v.max_ns))
			t = sat_mul(n, c->v.max_ns);
	}
	c->v.count = n ? n : 1;
	c->v.total_ns = t;
}

/* The factor, no more than f, that takes est down to exact. */
static double cap_factor(uint64_t est, uint64_t exact, double f)
{
	return est > exact && (double)exact / (double)est < f ? (double)exact / (double)est : f;
}

/*
 * A part's estimates above its lock's exact figures (a few waits at a
 * low p stand for more than the lock had): its count, total and
 * histogram shrink by one factor, the one that brings them within the
 * lock's, so that its average stays that of its sampled waits; never
 * below what its samples saw.
 */
static void cap_waits(struct lock_part *c, const struct lock_all *all)
{
	double f = cap_factor(c->v.total_ns, all->wait_ns, cap_factor(c->v.count, all->count, 1));
	int i;

	if (f >= 1)
		return;
	c->v.count = shrink(c->v.count, f, c->est.sampled);
	c->v.total_ns = shrink(c->v.total_ns, f, c->est.sampled_ns);
	fit_waits(c, all->wait_ns);
	for (i = 0; i < LS_HIST_SLOTS; i++)
		c->v.hist[i] = shrink(c->v.hist[i], f, c->v.hist[i] ? 1 : 0);
	c->est.var_count *= f * f;
	c->est.var_wait *= f * f;
}

/* The same for its acquisitions, releases and hold time (its hold average stays). */
static void cap_holds(struct lock_part *c, const struct lock_all *all)
{
	double f = cap_factor(c->h.hold_ns, all->hold_ns, cap_factor(c->h.acquired, all->acquired, 1));

	if (f >= 1)
		return;
	c->h.acquired = shrink(c->h.acquired, f, c->hest.sampled);
	c->h.held = shrink(c->h.held, f, 0);
	c->h.hold_ns = shrink(c->h.hold_ns, f, 0);
	c->hest.var_acquired *= f * f;
	c->hest.var_hold *= f * f;
}

/*
 * With a caller filter a lock's figures are its matching callers'
 * estimates: their sums again, once capped, and the total theirs.
 */
static void sum_callers(struct lock_view *v)
{
	size_t i, j;

	memset(&v->total, 0, sizeof(v->total));
	memset(&v->hold_total, 0, sizeof(v->hold_total));
	for (i = 0; i < v->nlocks; i++) {
		struct lock_entry *e = &v->locks[i];

		if (e->estimated)
			memset(&e->v, 0, sizeof(e->v));
		if (e->hold_estimated)
			memset(&e->h, 0, sizeof(e->h));
		for (j = 0; j < e->ncallers; j++) {
			if (e->estimated)
				lock_row_merge(&e->v, &e->callers[j].v);
			if (e->hold_estimated && e->callers[j].h.has_hold)
				lv_hold_merge(&e->h, &e->callers[j].h);
		}
		lock_row_merge(&v->total, &e->v);
		if (e->h.has_hold)
			lv_hold_merge(&v->hold_total, &e->h);
	}
}

/* No caller or stack above its lock, filtered or not. */
void lv_cap_parts(struct lock_view *v, const struct lock_filter *f)
{
	size_t i, j;

	for (i = 0; i < v->nlocks; i++) {
		struct lock_entry *e = &v->locks[i];

		for (j = 0; e->estimated && j < e->ncallers; j++)
			cap_waits(&e->callers[j], &e->all);
		for (j = 0; e->estimated && j < e->nstacks; j++)
			cap_waits(&e->stacks[j], &e->all);
		for (j = 0; e->hold_estimated && j < e->ncallers; j++)
			cap_holds(&e->callers[j], &e->all);
	}
	if (f->caller)
		sum_callers(v);
}

/* One estimated lock's kept rows while they are scaled to its exact totals. */
struct row_scale {
	double sum_count, sum_ns;	/* the rows' estimates */
	double acc_count, acc_ns;	/* ... up to the row being scaled */
	uint64_t done_count, done_ns;	/* what the rows before it were given */
};

/* The share acc / sum of an exact total, less what the rows before were given. */
static uint64_t scaled(double acc, double sum, uint64_t exact, uint64_t *done)
{
	uint64_t upto = sum > 0 ? (uint64_t)llround(acc / sum * (double)exact) : 0;
	uint64_t mine = upto > *done ? upto - *done : 0;

	*done += mine;
	return mine;
}

static void scale_row(struct lock_view_row *r, const struct lock_entry *e, struct row_scale *sc)
{
	sc->acc_count += (double)r->v.count;
	sc->acc_ns += (double)r->v.total_ns;
	r->v.count = scaled(sc->acc_count, sc->sum_count, e->v.count, &sc->done_count);
	r->v.total_ns = scaled(sc->acc_ns, sc->sum_ns, e->v.total_ns, &sc->done_ns);
}

/*
 * The kept rows of an estimated lock carry Horvitz-Thompson estimates,
 * whose sum is near the lock's exact count and wait but not on it. An
 * export draws each lock as the sum of its stacks: there each stack gets
 * its share of the estimates of the lock's exact totals (the ratio
 * estimator), so that they add up to them (cumulative rounding), and a
 * flame graph's or pprof's lock is as wide as report's.
 *
 * This cannot make a figure contradict another: an export's row has a
 * count and a wait total but no average, minimum, maximum or quantile
 * (folded, pprof, the export's JSON and CSV), and nothing else reads
 * the kept rows; report, top, diff and serve's metrics read the
 * callers' and stacks' unscaled estimates, or the locks' exact figures.
 * Count and wait are scaled each by its own ratio, so a stack's
 * wait / count in an export is not report's average of it (their ratio
 * is the lock's exact average over its estimated one, 1 within the
 * sampling error): lockstat-export(1) says so.
 */
/* The estimated lock a kept row is of, or NULL. */
static struct lock_entry *estimated_lock(struct lock_view *v, struct htab *index,
					 const struct lock_view_row *r)
{
	uint64_t key = (uint64_t)r->k.name << 32 | r->k.flags;
	size_t *slot = htab_get(index, &key, NULL);

	return slot && *slot && v->locks[*slot - 1].estimated ? &v->locks[*slot - 1] : NULL;
}

/*
 * A sampled lock none of whose waits carried a stack (a few waits at a
 * low p): one row, its exact figures under the file's name for them.
 */
static int keep_unsampled(struct lock_view *v, const struct lock_entry *e)
{
	struct lock_row_key k = { .stack_id = LS_STACK_UNSAMPLED, .name = e->name, .flags = e->flags };
	int err = lv_intern(v, "[stack not sampled]", &k.caller);

	return err ? err : lv_keep_row(v, &k, &e->v);
}

int lv_rows_to_lock_totals(struct lock_view *v, struct htab *index)
{
	struct row_scale *sc = calloc(v->nlocks ? v->nlocks : 1, sizeof(*sc));
	struct lock_entry *e;
	size_t i;
	int err = 0;

	if (!sc)
		return -ENOMEM;
	for (i = 0; i < v->nrows; i++) {
		e = estimated_lock(v, index, &v->rows[i]);
		if (!e)
			continue;
		sc[e - v->locks].sum_count += (double)v->rows[i].v.count;
		sc[e - v->locks].sum_ns += (double)v->rows[i].v.total_ns;
	}
	for (i = 0; i < v->nrows; i++) {
		e = estimated_lock(v, index, &v->rows[i]);
		if (e)
			scale_row(&v->rows[i], e, &sc[e - v->locks]);
	}
	for (i = 0; !err && i < v->nlocks; i++)
		if (v->locks[i].estimated && v->locks[i].v.count && !sc[i].sum_count)
			err = keep_unsampled(v, &v->locks[i]);
	free(sc);
	return err;
}
