// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/locktype.h"
#include "mmaplock.h"
#include "view/anon.h"
#include "view/match.h"
#include "sym/kmap.h"
#include "view/view_locks.h"

static const char *const sort_names[] = {
	[SORT_WAIT_TOTAL] = "wait_total", [SORT_CONTENDED] = "contended",
	[SORT_WAIT_MAX] = "wait_max", [SORT_WAIT_AVG] = "wait_avg",
	[SORT_WAIT_MIN] = "wait_min", [SORT_NAME] = "name",
	[SORT_ACQUIRED] = "acquired", [SORT_HOLD_TOTAL] = "hold_total", [SORT_HOLD_MAX] = "hold_max",
};

bool lock_sort_by_hold(enum lock_sort key)
{
	return key == SORT_ACQUIRED || key == SORT_HOLD_TOTAL || key == SORT_HOLD_MAX;
}

int lock_sort_parse(const char *s, enum lock_sort *key)
{
	size_t i;

	for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++) {
		if (!strcmp(s, sort_names[i])) {
			*key = i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * total / count, within [min, max] as every average of waits is: it is
 * the quotient itself but where a weighed total saturated (weigh()),
 * which leaves the average unknown, not outside what was seen.
 */
uint64_t row_avg(const struct lock_row_val *v)
{
	uint64_t avg;

	if (!v->count)
		return 0;
	avg = v->total_ns / v->count;
	if (avg < v->min_ns)
		avg = v->min_ns;
	if (avg > v->max_ns)
		avg = v->max_ns;
	return avg;
}

/* An estimate of a row's waits, never outside [min, max] (a row without waits: 0). */
static uint64_t within_row(const struct lock_row_val *v, uint64_t est)
{
	if (!v->count)
		return 0;
	if (est < v->min_ns)
		est = v->min_ns;
	if (est > v->max_ns)	/* a max of 0 too: waits shorter than a nanosecond */
		est = v->max_ns;
	return est;
}

/*
 * Slot i holds waits in [2^i, 2^(i+1)) ns; interpolate linearly inside the
 * slot that holds the quantile, then clamp to the exact min and max (a
 * clamp keeps the order of the quantiles: p50 <= p99 <= max). A row
 * without a histogram (a user lock's table without its columns) has only
 * its min and max to go by.
 */
uint64_t hist_quantile(const struct lock_row_val *v, double q)
{
	uint64_t seen = 0, total = 0, lo, hi, est;
	double rank, frac;
	int i;

	for (i = 0; i < LS_HIST_SLOTS; i++)
		total = sat_add(total, v->hist[i]);
	if (!total)
		return within_row(v, 0);
	rank = q * total;
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (v->hist[i] && sat_add(seen, v->hist[i]) >= rank)
			break;
		seen = sat_add(seen, v->hist[i]);
	}
	if (i == LS_HIST_SLOTS)
		i = LS_HIST_SLOTS - 1;
	lo = i ? 1ULL << i : 0;
	hi = 1ULL << (i + 1);
	frac = v->hist[i] ? (rank - seen) / v->hist[i] : 0;
	est = lo + (uint64_t)(frac * (hi - lo));
	return within_row(v, est);
}

/* Every view's one rule for name patterns (view/match.h). */
static bool glob_ok(const char *pattern, const char *s)
{
	return name_matches(pattern, s);
}

static bool row_matches(const struct lock_view *v, const struct lock_row_key *k,
			const struct lock_filter *f)
{
	const struct profile *p = v->p;

	if (!glob_ok(f->lock, lock_view__str(v, k->name)))
		return false;
	if (!glob_ok(f->caller, profile__str(p, k->caller)))
		return false;
	if (f->type && !lock_type_matches(f->type, k->flags))
		return false;
	if (!glob_ok(f->comm, profile__str(p, k->comm)))
		return false;
	return f->pid < 0 || (uint32_t)f->pid == k->tgid || (uint32_t)f->pid == k->tid;
}

/* f without its caller filter: which rows count in a lock's exact figures (lock_entry.all). */
static const struct lock_filter *any_caller(const struct lock_filter *f, struct lock_filter *buf)
{
	*buf = *f;
	buf->caller = NULL;
	return buf;
}

static struct lock_part *find_part(struct lock_part **parts, size_t *n, uint32_t caller, int32_t stack_id)
{
	struct lock_part *grown;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*parts)[i].caller == caller && (*parts)[i].stack_id == stack_id)
			return &(*parts)[i];
	grown = realloc(*parts, (*n + 1) * sizeof(**parts));
	if (!grown)
		return NULL;
	*parts = grown;
	memset(&grown[*n], 0, sizeof(grown[*n]));
	grown[*n].caller = caller;
	grown[*n].stack_id = stack_id;
	return &grown[(*n)++];
}

static struct lock_entry *find_lock(struct lock_view *v, struct htab *index, uint32_t name, uint32_t flags)
{
	uint64_t key = (uint64_t)name << 32 | flags;
	size_t *slot = htab_get(index, &key, NULL);
	struct lock_entry *grown;

	if (!slot)
		return NULL;
	if (*slot)
		return &v->locks[*slot - 1];
	grown = realloc(v->locks, (v->nlocks + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	v->locks = grown;
	memset(&grown[v->nlocks], 0, sizeof(grown[v->nlocks]));
	grown[v->nlocks].name = name;
	grown[v->nlocks].flags = flags;
	*slot = ++v->nlocks;
	return &grown[v->nlocks - 1];
}

static int named_row(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
		     struct lock_row_key *out);
static int fold_name(struct lock_view *v, uint32_t *id);

/* A lock without stack for some waits, or with waits sampled at p < 1. */
static bool row_estimates(const struct profile *p, const struct lock_row_key *k)
{
	return k->shift || (p->lock_sampling && k->stack_id == LS_STACK_UNSAMPLED);
}

static uint64_t lock_key(uint32_t name, uint32_t flags)
{
	return (uint64_t)name << 32 | flags;
}

/* Before the rows are added, whatever the filters: which locks are sampled. */
static int index_estimated(struct lock_view *v, const struct htab *given)
{
	const struct lock_row_key *k;
	struct lock_row_key named;
	size_t it = 0;
	uint64_t id;

	htab_init(&v->estimated, sizeof(uint64_t), 1);
	while (htab_next(&v->p->rows, &it, (const void **)&k)) {
		if (named_row(v, given, k, &named))
			return -ENOMEM;
		id = lock_key(named.name, named.flags);
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
static void weigh(struct lock_row_val *w, const struct lock_row_val *val, uint32_t shift)
{
	int i;

	*w = *val;
	w->count = sat_shl(val->count, shift);
	w->total_ns = sat_shl(val->total_ns, shift);
	for (i = 0; i < LS_HIST_SLOTS; i++)
		w->hist[i] = sat_shl(val->hist[i], shift);
}

/* A sampled event's share of the variance: (1 - p) / p^2 = 4^shift - 2^shift. */
static double var_weight(uint32_t shift)
{
	return ldexp(1, 2 * shift) - ldexp(1, shift);
}

static void part_add(struct lock_part *c, const struct lock_row_val *w, const struct lock_row_val *val,
		     uint32_t shift)
{
	double f = var_weight(shift);

	lock_row_merge(&c->v, w);
	c->est.sampled += val->count;
	c->est.sampled_ns += val->total_ns;
	c->est.var_count += f * val->count;
	c->est.var_wait += f * val->sumsq;
}

static int add_gave_up(struct lock_entry *e, uint32_t err, const struct lock_row_val *val)
{
	size_t i;

	for (i = 0; i < e->ngave_up && e->gave_up[i].err != err; i++)
		;
	if (i == e->ngave_up) {
		struct lock_gave_up *g = realloc(e->gave_up, (i + 1) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		e->gave_up = g;
		memset(&g[i], 0, sizeof(g[i]));
		g[i].err = err;
		e->ngave_up++;
	}
	lock_row_merge(&e->gave_up[i].v, val);
	return 0;
}

static int keep_row(struct lock_view *v, const struct lock_row_key *k, const struct lock_row_val *w)
{
	if (!v->keep_rows)
		return 0;
	if (grow_array((void **)&v->rows, &v->rows_cap, v->nrows + 1, sizeof(*v->rows)))
		return -ENOMEM;
	v->rows[v->nrows++] = (struct lock_view_row){ *k, *w };
	return 0;
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
static uint32_t meta_thin_slot(const struct profile *p)
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
static void sum_var_add(struct lock_entry *e, const struct lock_row_key *k, const struct lock_row_val *val,
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

/*
 * A row's waits go to its lock exactly; to its caller and stack weighed by
 * 1/p. A row without stack in a sampled profile has no caller: its waits
 * count for the lock alone. With a caller filter, the lock and the total
 * add up the matching callers' estimates.
 */
static int add_row(struct lock_view *v, struct htab *index, const struct lock_row_key *k,
		   const struct lock_row_val *val, bool by_caller)
{
	struct lock_entry *e = find_lock(v, index, k->name, k->flags);
	bool no_caller = v->p->lock_sampling && k->stack_id == LS_STACK_UNSAMPLED &&
			 !lock_type_is_user(k->flags);
	uint64_t id = lock_key(k->name, k->flags);
	struct lock_row_val w;
	struct lock_part *c, *s;

	if (!e)
		return -ENOMEM;
	if (no_caller && by_caller)
		return 0;
	weigh(&w, val, k->shift);
	if (k->err)
		return add_gave_up(e, k->err, by_caller ? &w : val);
	if (!lock_type_is_user(k->flags) && v->p->lock_sampling)
		sum_var_add(e, k, val, no_caller, v->thin_slot);
	e->estimated = htab_find(&v->estimated, &id) != NULL;
	lock_row_merge(&e->v, by_caller ? &w : val);
	lock_row_merge(&v->total, by_caller ? &w : val);
	v->total_estimated |= by_caller && e->estimated;
	if (no_caller)
		return 0;
	c = find_part(&e->callers, &e->ncallers, k->caller, 0);
	s = find_part(&e->stacks, &e->nstacks, k->caller, k->stack_id);
	if (!c || !s)
		return -ENOMEM;
	s->tgid = k->tgid;
	part_add(c, &w, val, k->shift);
	part_add(s, &w, val, k->shift);
	return keep_row(v, k, &w);
}

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * est +- 1.96 standard errors, within what was seen (floor) and the
 * lock's exact figure (ceil), which cap_parts() keeps every estimate
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

static int count_all_waits(struct lock_view *v, const struct lock_row_key *k, const struct lock_row_val *val)
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

static int count_all_holds(struct lock_view *v, uint32_t name, uint32_t flags, const struct hold_val *h)
{
	struct lock_all *a = lock_all_of(v, name, flags);

	if (!a)
		return -ENOMEM;
	a->acquired = sat_add(a->acquired, h->acquired);
	a->hold_ns = sat_add(a->hold_ns, h->hold_ns);
	return 0;
}

/* After the rows: each lock's exact figures, those counted whatever the caller. */
static void set_all(struct lock_view *v)
{
	const struct lock_all *a;
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		a = htab_find(&v->all, &(uint64_t){ (uint64_t)v->locks[i].name << 32 | v->locks[i].flags });
		if (a)
			v->locks[i].all = *a;
	}
}

static void hold_merge(struct hold_val *dst, const struct hold_val *src);

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
				hold_merge(&e->h, &e->callers[j].h);
		}
		lock_row_merge(&v->total, &e->v);
		if (e->h.has_hold)
			hold_merge(&v->hold_total, &e->h);
	}
}

/* No caller or stack above its lock, filtered or not. */
static void cap_parts(struct lock_view *v, const struct lock_filter *f)
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

const char *lock_errno_name(uint32_t err, char *buf, size_t len)
{
	static const struct { uint32_t err; const char *name; } names[] = {
		{ EINTR, "EINTR" }, { EDEADLK, "EDEADLK" }, { EALREADY, "EALREADY" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { ETIME, "ETIME" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, len, "errno %u", err);
	return buf;
}

const char *lock_view__str(const struct lock_view *v, uint32_t id)
{
	if (id < v->p->nstrs)
		return profile__str(v->p, id);
	id -= v->p->nstrs;
	return id < v->nxstrs ? v->xstrs[id] : "";
}

static int index_str(struct lock_view *v, const char *s, uint32_t id)
{
	uint64_t h = hash_bytes(s, strlen(s));
	uint32_t *slot = htab_get(&v->str_index, &h, NULL);

	if (!slot)
		return -ENOMEM;
	if (!*slot)	/* the first of equal strings keeps the id, as a scan would find it */
		*slot = id + 1;
	return 0;
}

static int index_profile_strs(struct lock_view *v)
{
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < v->p->nstrs; i++)
		err = index_str(v, v->p->strs[i], i);
	v->str_indexed = !err;
	return err;
}

/* The slow way, for a hash collision. */
static bool scan_str(const struct lock_view *v, const char *s, uint32_t *id)
{
	size_t i;

	for (i = 0; i < v->p->nstrs + v->nxstrs; i++) {
		if (!strcmp(lock_view__str(v, i), s)) {
			*id = i;
			return true;
		}
	}
	return false;
}

/* The id of a name: the profile's when it has the string, else the view's own. */
static int intern(struct lock_view *v, const char *s, uint32_t *id)
{
	uint64_t h = hash_bytes(s, strlen(s));
	const uint32_t *slot;
	int err;

	if (!v->str_indexed && (err = index_profile_strs(v)))
		return err;
	slot = htab_find(&v->str_index, &h);
	if (slot && !strcmp(lock_view__str(v, *slot - 1), s)) {
		*id = *slot - 1;
		return 0;
	}
	if (slot && scan_str(v, s, id))
		return 0;
	if (grow_array((void **)&v->xstrs, &v->xstrs_cap, v->nxstrs + 1, sizeof(char *)))
		return -ENOMEM;
	v->xstrs[v->nxstrs] = strdup(s);
	if (!v->xstrs[v->nxstrs])
		return -ENOMEM;
	*id = v->p->nstrs + v->nxstrs++;
	return index_str(v, s, *id);
}

double hold_con_pct(const struct lock_row_val *w, const struct hold_val *h)
{
	return h->has_hold && h->acquired ? 100.0 * w->count / h->acquired : NAN;
}

double hold_con_pct_estimate(const struct lock_row_val *w, const struct hold_val *h)
{
	double pct = hold_con_pct(w, h);

	return pct > 100.0 ? 100.0 : pct;
}

static void hold_merge(struct hold_val *dst, const struct hold_val *src)
{
	dst->has_hold = true;
	dst->acquired = sat_add(dst->acquired, src->acquired);
	dst->held = sat_add(dst->held, src->held);
	dst->hold_ns = sat_add(dst->hold_ns, src->hold_ns);
	if (src->hold_max_ns > dst->hold_max_ns)
		dst->hold_max_ns = src->hold_max_ns;
}

/* Lock address -> name string id, from the contention rows and lock_names tables. */
static int index_names(const struct profile *p, struct htab *names)
{
	const struct ptable *t = profile__table(p, "lock_names");
	const struct lock_row_key *k;
	const uint64_t *row;
	int lc = ptable__col(t, "lock"), nc = ptable__col(t, "name");
	size_t it = 0;
	uint32_t *id;

	while (htab_next(&p->rows, &it, (const void **)&k)) {
		if (!(id = htab_get(names, &k->lock_addr, NULL)))
			return -ENOMEM;
		*id = k->name + 1;
	}
	for (it = 0; t && lc >= 0 && nc >= 0 && (row = htab_next(&t->rows, &it, NULL));) {
		if (!(id = htab_get(names, &row[lc], NULL)))
			return -ENOMEM;
		if (!*id || profile__str(p, *id - 1)[0] == '0')	/* better than an address */
			*id = row[nc] + 1;
	}
	return 0;
}

/* The flags the contention rows give the same lock, from the hold family's kind. */
static uint32_t kind_flags(uint64_t kind)
{
	static const uint32_t flags[] = { 0, LCB_F_SPIN, LCB_F_MUTEX, LCB_F_READ, LCB_F_WRITE };

	return kind < sizeof(flags) / sizeof(flags[0]) ? flags[kind] : 0;
}

struct hold_source {
	const char *table;
	const char *fixed_name;	/* every lock of the table has this name */
	const char *kind_col;	/* the hold family's kind, or mmap_lock's "write" */
};

static const struct hold_source hold_sources[] = {
	{ "mmap_lock", "mm_struct.mmap_lock", "write" },
	{ "hold", NULL, "kind" },
};

static int hold_name_unfolded(struct lock_view *v, const struct htab *names, uint64_t addr,
			      const char *caller, uint32_t *id)
{
	const uint32_t *known = htab_find(names, &addr);
	const uint32_t *anon = htab_find(&v->anon, &addr);
	const struct ksym *sym = ksyms_find_data(&v->p->ksyms, addr);
	char name[320], func[256];

	if (known && *known && !anon_lock_name(profile__str(v->p, *known - 1))) {
		*id = *known - 1;
		return 0;
	}
	if (anon) {
		*id = *anon;
		return 0;
	}
	if (known && *known) {
		*id = *known - 1;
		return 0;
	}
	if (sym && sym->addr == addr) {
		snprintf(name, sizeof(name), "%s", sym->name);
	} else if (caller[0] == '[') {	/* no caller to name it after: as the writer does */
		snprintf(name, sizeof(name), "0x%" PRIx64, addr);
	} else {
		snprintf(func, sizeof(func), "%s", caller);
		func[strcspn(func, "+")] = '\0';
		snprintf(name, sizeof(name), "0x%" PRIx64 "@%s", addr, func);
	}
	return intern(v, name, id);
}

static int hold_name(struct lock_view *v, const struct htab *names, uint64_t addr,
		     const char *caller, uint32_t *id)
{
	int err = hold_name_unfolded(v, names, addr, caller, id);

	return err ? err : fold_name(v, id);
}

static size_t func_len(const char *s)
{
	return strcspn(s, "+");
}

/*
 * The contention caller in the same function: the wait is seen at the
 * call of the lock function, the acquisition at the tracepoint or the
 * return, a few bytes apart in one caller.
 */
static struct lock_part *same_function(const struct lock_view *v, struct lock_entry *e, const char *caller)
{
	size_t i, n = func_len(caller);

	for (i = 0; i < e->ncallers; i++) {
		const char *c = lock_view__str(v, e->callers[i].caller);

		if (func_len(c) == n && !strncmp(c, caller, n) && caller[0] != '[')
			return &e->callers[i];
	}
	return NULL;
}

/* A sampled row's acquisitions, each counting 2^shift times (its max is its own). */
static struct hold_val weigh_hold(const struct hold_val *h, uint64_t shift)
{
	struct hold_val w = *h;

	w.acquired = sat_shl(h->acquired, shift);
	w.held = sat_shl(h->held, shift);
	w.hold_ns = sat_shl(h->hold_ns, shift);
	return w;
}

/*
 * A row of acquisitions none of which carried a stack: the lock's
 * figures only (none with a caller filter, which they cannot match).
 */
static int add_unsampled_hold(struct lock_view *v, struct htab *index, uint32_t name, uint32_t flags,
			      const struct hold_val *h, const struct lock_filter *f)
{
	struct lock_entry *e;

	if (!glob_ok(f->lock, lock_view__str(v, name)) || (f->type && !lock_type_matches(f->type, flags)))
		return 0;
	if (count_all_holds(v, name, flags, h))
		return -ENOMEM;
	if (f->caller)
		return 0;
	e = find_lock(v, index, name, flags);
	if (!e)
		return -ENOMEM;
	e->hold_estimated = true;
	hold_merge(&e->h, h);
	hold_merge(&v->hold_total, h);
	v->has_hold = true;
	return 0;
}

static int add_hold_row(struct lock_view *v, struct htab *index, const struct htab *names,
			const struct hold_source *src, const struct ptable *t, const uint64_t *row,
			const struct lock_filter *f)
{
	int lc = ptable__col(t, "lock"), sc = ptable__col(t, "stack"), kc = ptable__col(t, src->kind_col);
	int ac = ptable__col(t, "acquired"), hc = ptable__col(t, "held");
	int nc = ptable__col(t, "hold_ns"), mc = ptable__col(t, "hold_max_ns");
	int shc = ptable__col(t, "shift");	/* none: every acquisition has its stack */
	uint64_t shift = shc >= 0 ? row[shc] : 0;
	struct hold_val h = { .has_hold = true }, w;
	char caller[256];
	uint32_t name, caller_id, flags;
	struct lock_entry *e;
	struct lock_part *c;
	int err;

	/* mmap_lock's own tracepoints already counted these acquisitions. */
	if (!src->fixed_name && lc >= 0 && htab_find(&v->mmap_locks, &row[lc]))
		return 0;
	if (lc < 0 || sc < 0 || kc < 0 || ac < 0 || hc < 0 || nc < 0 || mc < 0)
		return 0;	/* not the columns this lockstat knows */
	flags = src->fixed_name ? (row[kc] ? LCB_F_WRITE : LCB_F_READ) : kind_flags(row[kc]);
	h.acquired = row[ac];
	h.held = row[hc];
	h.hold_ns = row[nc];
	h.hold_max_ns = row[mc];
	if (shift == LS_MMAP_UNSAMPLED && src->fixed_name) {
		err = intern(v, src->fixed_name, &name);
		return err ? err : add_unsampled_hold(v, index, name, flags, &h, f);
	}
	if (shift > LS_MAX_SHIFT)
		return 0;	/* not a shift this lockstat writes */
	profile__caller(v->p, (int32_t)row[sc], caller, sizeof(caller));
	if (src->fixed_name)
		err = intern(v, src->fixed_name, &name);
	else
		err = hold_name(v, names, row[lc], caller, &name);
	if (!err)
		err = intern(v, caller, &caller_id);
	if (err)
		return err;
	if (!glob_ok(f->lock, lock_view__str(v, name)) || (f->type && !lock_type_matches(f->type, flags)))
		return 0;
	if (count_all_holds(v, name, flags, &h))
		return -ENOMEM;
	if (!glob_ok(f->caller, caller))
		return 0;
	e = find_lock(v, index, name, flags);
	if (!e)
		return -ENOMEM;
	c = same_function(v, e, caller);
	if (!c)
		c = find_part(&e->callers, &e->ncallers, caller_id, 0);
	if (!c)
		return -ENOMEM;
	w = weigh_hold(&h, shift);
	e->hold_estimated |= shift > 0;
	if (shc >= 0) {
		e->hold_sampled += h.acquired;
		c->hest.sampled += h.acquired;
		c->hest.sampled_ns += h.hold_ns;
		c->hest.var_acquired += var_weight(shift) * (double)h.acquired;
		c->hest.var_hold += var_weight(shift) * (double)h.hold_max_ns * (double)h.hold_ns;
		if (!shift)
			hold_merge(&c->hest.certain, &h);
	}
	v->hold_total_estimated |= f->caller && shift > 0;
	/* With a caller filter the lock's figures are its callers' estimates. */
	hold_merge(&e->h, f->caller ? &w : &h);
	hold_merge(&c->h, &w);
	hold_merge(&v->hold_total, f->caller ? &w : &h);
	v->has_hold = true;
	return 0;
}

/* Per-task filters cannot apply to hold tables, which are per lock. */
/* The locks the mmap_lock table covers: the hold family's rows for them would count twice. */
static int index_mmap_locks(struct lock_view *v)
{
	const struct ptable *t = profile__table(v->p, "mmap_lock");
	int lc = ptable__col(t, "lock");
	const uint64_t *row;
	size_t it = 0;

	while (t && lc >= 0 && (row = htab_next(&t->rows, &it, NULL)))
		if (!htab_get(&v->mmap_locks, &row[lc], NULL))
			return -ENOMEM;
	return 0;
}

/* Has addr a name better than its address: a symbol, a class, a field? */
static bool has_real_name(const struct lock_view *v, const struct htab *names, uint64_t addr)
{
	const uint32_t *known = htab_find(names, &addr);
	const struct ksym *sym = ksyms_find_data(&v->p->ksyms, addr);

	return (known && *known && !anon_lock_name(profile__str(v->p, *known - 1))) ||
	       (sym && sym->addr == addr) || htab_find(&v->anon, &addr);
}

struct hold_func {
	uint64_t acquired;
	char func[128];
};

/* Acquisitions per anonymous lock and function of the hold table. */
static int count_hold_funcs(struct lock_view *v, const struct htab *names, struct htab *per_func)
{
	const struct ptable *t = profile__table(v->p, "hold");
	int lc = ptable__col(t, "lock"), sc = ptable__col(t, "stack"), ac = ptable__col(t, "acquired");
	uint64_t key[2];
	struct hold_func *hf;
	const uint64_t *row;
	char caller[256];
	size_t it = 0;

	while (t && lc >= 0 && sc >= 0 && ac >= 0 && (row = htab_next(&t->rows, &it, NULL))) {
		if (has_real_name(v, names, row[lc]) || htab_find(&v->mmap_locks, &row[lc]))
			continue;
		profile__caller(v->p, (int32_t)row[sc], caller, sizeof(caller));
		if (caller[0] == '[')
			continue;
		caller[strcspn(caller, "+")] = '\0';
		key[0] = row[lc];
		key[1] = hash_bytes(caller, strlen(caller));
		if (!(hf = htab_get(per_func, key, NULL)))
			return -ENOMEM;
		hf->acquired += row[ac];
		snprintf(hf->func, sizeof(hf->func), "%s", caller);
	}
	return 0;
}

/*
 * A lock known from the hold table only is named as the contention rows'
 * anonymous locks are, by its busiest function (here, by acquisitions):
 * one name for all its rows, whatever caller each has.
 */
static int name_hold_only_locks(struct lock_view *v, const struct htab *names)
{
	struct htab per_func, best;
	const struct hold_func *hf;
	struct hold_func *b;
	const uint64_t *key;
	char name[320];
	uint32_t *id;
	size_t it = 0;
	int inserted, err;

	htab_init(&per_func, 2 * sizeof(uint64_t), sizeof(struct hold_func));
	htab_init(&best, sizeof(uint64_t), sizeof(struct hold_func));
	err = count_hold_funcs(v, names, &per_func);
	while (!err && (hf = htab_next(&per_func, &it, (const void **)&key))) {
		b = htab_get(&best, &key[0], &inserted);
		if (!b)
			err = -ENOMEM;
		else if (inserted || hf->acquired > b->acquired ||
			 (hf->acquired == b->acquired && strcmp(hf->func, b->func) < 0))
			*b = *hf;
	}
	for (it = 0; !err && (hf = htab_next(&best, &it, (const void **)&key));) {
		snprintf(name, sizeof(name), "0x%" PRIx64 "@%s", key[0], hf->func);
		id = htab_get(&v->anon, &key[0], NULL);
		err = id ? intern(v, name, id) : -ENOMEM;
	}
	htab_free(&per_func);
	htab_free(&best);
	return err;
}

static int add_holds(struct lock_view *v, struct htab *index, const struct lock_filter *f)
{
	struct htab names;
	size_t i, it;
	int err = 0;

	if (f->pid >= 0 || f->comm || f->waits_only)
		return 0;
	htab_init(&names, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&v->mmap_locks, sizeof(uint64_t), 1);
	err = index_names(v->p, &names);
	if (!err)
		err = index_mmap_locks(v);
	if (!err)
		err = name_hold_only_locks(v, &names);
	for (i = 0; !err && i < sizeof(hold_sources) / sizeof(hold_sources[0]); i++) {
		const struct ptable *t = profile__table(v->p, hold_sources[i].table);
		const uint64_t *row;

		for (it = 0; !err && t && (row = htab_next(&t->rows, &it, NULL));)
			err = add_hold_row(v, index, &names, &hold_sources[i], t, row, f);
	}
	htab_free(&names);
	htab_free(&v->mmap_locks);
	return err;
}

/*
 * A name given by a family that knows the lock (the page cache's
 * address_space.i_pages, ...) replaces the bare address the writer had to
 * give a lock it could not name; else the view's name by busiest caller.
 */
/* With --fold-arrays: "table[3]" is "table[]", one lock for all the array's. */
static int fold_name(struct lock_view *v, uint32_t *id)
{
	char folded[320];

	if (!v->fold_arrays || !kmap_fold_arrays(lock_view__str(v, *id), folded, sizeof(folded)))
		return 0;
	return intern(v, folded, id);
}

static int named_row_unfolded(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
			      struct lock_row_key *out);

static int named_row(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
		     struct lock_row_key *out)
{
	int err = named_row_unfolded(v, given, k, out);

	return err ? err : fold_name(v, &out->name);
}

static int named_row_unfolded(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
			      struct lock_row_key *out)
{
	const uint32_t *id = htab_find(given, &k->lock_addr);
	uint32_t *anon;
	char bare[24];
	int inserted;

	*out = *k;
	if (!anon_lock_name(profile__str(v->p, k->name)))
		return 0;
	if (id) {
		out->name = *id;
		return 0;
	}
	anon = htab_get(&v->anon, &k->lock_addr, &inserted);
	if (!anon)
		return -ENOMEM;
	if (inserted) {	/* no caller anywhere: the bare address */
		snprintf(bare, sizeof(bare), "0x%" PRIx64, k->lock_addr);
		if (intern(v, bare, anon))
			return -ENOMEM;
	}
	out->name = *anon;
	return 0;
}

/* Anonymous locks of names_from: address -> "0xADDRESS@busiest_function". */
static int name_anon_locks(struct lock_view *v, const struct profile *from)
{
	char name[320], func[256];
	const uint64_t *addr;
	const uint32_t *caller;
	struct htab best;
	uint32_t *id;
	size_t it = 0;
	int err;

	htab_init(&best, sizeof(uint64_t), sizeof(uint32_t));
	err = anon_busiest_callers(from, &best);
	while (!err && (caller = htab_next(&best, &it, (const void **)&addr))) {
		snprintf(func, sizeof(func), "%s", profile__str(from, *caller));
		func[strcspn(func, "+")] = '\0';
		snprintf(name, sizeof(name), "0x%" PRIx64 "@%s", *addr, func);
		id = htab_get(&v->anon, addr, NULL);
		err = id ? intern(v, name, id) : -ENOMEM;
	}
	htab_free(&best);
	return err;
}

static int index_given_names(const struct profile *p, struct htab *given)
{
	const struct ptable *t = profile__table(p, "lock_names");
	int lc = ptable__col(t, "lock"), nc = ptable__col(t, "name");
	const uint64_t *row;
	uint32_t *id;
	size_t it = 0;

	while (t && lc >= 0 && nc >= 0 && (row = htab_next(&t->rows, &it, NULL))) {
		if (!(id = htab_get(given, &row[lc], NULL)))
			return -ENOMEM;
		*id = row[nc];
	}
	return 0;
}

/* --- user locks (the ulocks family) ------------------------------------------ */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The C library's locking code: the frames between a futex wait or a
 * lock uprobe and whoever took the lock. The whole library counts: its
 * lock functions have many local helpers (__lll_lock_wait_private+0x50
 * is __lll_lock_wait), and the names cover a static libc.
 */
static bool user_lock_frame(const char *func, const char *module)
{
	static const char *const prefixes[] = {
		"__lll_", "lll_", "pthread_mutex_", "pthread_rwlock_", "pthread_spin_", "pthread_cond_",
		"__pthread_", "___pthread_", "__futex", "futex_", "__GI_", "__condvar_",
	};
	const char *base = base_name(module);
	size_t i;

	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5) || !strncmp(base, "libpthread", 10))
		return true;
	for (i = 0; func && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(func, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A user PC's function (the real one, outside its inlines), or NULL. */
static const char *user_function(const struct profile *p, uint32_t tgid, uint64_t pc, const char **module)
{
	const struct usym_val *u = profile__usym(p, tgid, pc);
	const struct mapping *m;

	*module = "";
	if (u && u->module)
		*module = profile__str(p, u->module);
	else if ((m = profile__mapping(p, tgid, pc)))
		*module = profile__str(p, m->path);
	if (!u || !u->nframes)
		return NULL;
	return profile__str(p, p->uframes[u->first + u->nframes - 1].function);
}

const char *user_stack_caller(const struct profile *p, uint32_t tgid, int32_t stack_id, char *buf, size_t len)
{
	const struct stack *s = stack_id >= 0 ? profile__stack(p, stack_id) : NULL;
	const char *func, *module, *last = NULL;
	uint32_t i;

	for (i = 0; s && i < s->nframes; i++) {
		func = user_function(p, tgid, s->frames[i], &module);
		if (user_lock_frame(func, module)) {
			last = func ? func : last;
			continue;
		}
		if (func)
			snprintf(buf, len, "%s", func);
		else
			snprintf(buf, len, "[unknown] %s", *module ? base_name(module) : "[anon]");
		return buf;
	}
	/* All of it is lock code (or no stack): the outermost lock function. */
	snprintf(buf, len, "%s", last ? last : s ? "[unknown]" : "[no stack]");
	return buf;
}

void lock_view__frame(const struct lock_view *v, const struct lock_part *s, uint64_t pc,
		      char *buf, size_t len)
{
	const char *func, *module;

	if (s->stack_id < 0 || (uint32_t)s->stack_id >> STACK_SPACE_SHIFT != STACK_TABLE_USER) {
		ksyms_format(&v->p->ksyms, pc, buf, len);
		return;
	}
	func = user_function(v->p, s->tgid, pc, &module);
	if (func)
		snprintf(buf, len, "%s (%s)", func, *module ? base_name(module) : "[anon]");
	else
		snprintf(buf, len, "0x%" PRIx64 " (%s)", pc, *module ? base_name(module) : "[anon]");
}

/* The key columns of the ulocks tables; false when a table lacks one. */
struct ucols {
	int lock, pid, kind, stack, name, comm;
};

static bool ucols_of(const struct ptable *t, struct ucols *c)
{
	c->lock = ptable__col(t, "lock");
	c->pid = ptable__col(t, "pid");
	c->kind = ptable__col(t, "kind");
	c->stack = ptable__col(t, "stack");
	c->name = ptable__col(t, "name");
	c->comm = ptable__col(t, "comm");
	return c->lock >= 0 && c->pid >= 0 && c->kind >= 0 && c->stack >= 0 && c->name >= 0 && c->comm >= 0;
}

/* What a row of a ulocks table says about its lock, its caller and its task. */
struct urow {
	uint64_t lock;
	uint32_t tgid;
	uint32_t flags;
	int32_t stack_id;
	const char *name;	/* the variable, "" on the heap */
	const char *comm;
	char caller[256];
};

static void urow_of(const struct profile *p, const struct ucols *c, const uint64_t *row, struct urow *r)
{
	r->lock = row[c->lock];
	r->tgid = row[c->pid];
	r->flags = LOCK_F_USER | (uint32_t)row[c->kind];
	r->stack_id = (int32_t)row[c->stack];
	r->name = profile__str(p, row[c->name]);
	r->comm = profile__str(p, row[c->comm]);
	user_stack_caller(p, r->tgid, r->stack_id, r->caller, sizeof(r->caller));
}

/*
 * Event waits (condition variables, other futexes) are no lock: they show
 * only when --type names their type.
 */
static bool urow_matches(const struct urow *r, const char *name, const struct lock_filter *f)
{
	if (lock_type_is_wait(r->flags) && (!f->type || !strcmp(f->type, "u")))
		return false;
	if (f->type && !lock_type_matches(f->type, r->flags))
		return false;
	if (!glob_ok(f->lock, name) || !glob_ok(f->caller, r->caller) || !glob_ok(f->comm, r->comm))
		return false;
	return f->pid < 0 || (uint32_t)f->pid == r->tgid;
}

/* A lock on the heap: named by its address and its busiest caller's function. */
struct uname {
	uint32_t caller;	/* view string id */
	uint64_t weight;
};

static int note_caller(struct lock_view *v, struct htab *heap, const struct urow *r, uint64_t weight)
{
	struct uname *n;
	uint32_t id;
	int inserted, err;

	if (r->name[0])
		return 0;
	err = intern(v, r->caller, &id);
	n = err ? NULL : htab_get(heap, &r->lock, &inserted);
	if (!n)
		return -ENOMEM;
	if (inserted || weight > n->weight ||
	    (weight == n->weight && strcmp(r->caller, lock_view__str(v, n->caller)) < 0)) {
		n->caller = id;
		n->weight = weight;
	}
	return 0;
}

static int heap_names(struct lock_view *v, struct htab *heap)
{
	static const char *const tables[] = { "ulocks", "ulocks.holds" };
	static const char *const weights[] = { "contended", "acquired" };
	const struct ptable *t;
	const uint64_t *row;
	struct ucols c;
	struct urow r;
	size_t i, it;
	int wc, err = 0;

	for (i = 0; i < 2 && !err; i++) {
		t = profile__table(v->p, tables[i]);
		wc = ptable__col(t, weights[i]);
		if (!t || wc < 0 || !ucols_of(t, &c))
			continue;
		for (it = 0; !err && (row = htab_next(&t->rows, &it, NULL));) {
			urow_of(v->p, &c, row, &r);
			err = note_caller(v, heap, &r, row[wc]);
		}
	}
	return err;
}

static int urow_name(struct lock_view *v, const struct htab *heap, const struct urow *r, uint32_t *id)
{
	const struct uname *n;
	char name[320];

	if (r->name[0])
		return intern(v, r->name, id);
	n = htab_find(heap, &r->lock);
	snprintf(name, sizeof(name), "0x%" PRIx64 "@%s", r->lock, n ? lock_view__str(v, n->caller) : "?");
	return intern(v, name, id);
}

/* A row of the "ulocks" table: contended acquisitions and their waits. */
static int add_user_wait(struct lock_view *v, struct htab *index, const struct htab *heap,
			 const struct ptable *t, const struct ucols *c, const uint64_t *row,
			 const struct lock_filter *f)
{
	int nc = ptable__col(t, "contended"), wc = ptable__col(t, "wait_ns");
	int lo = ptable__col(t, "wait_min_ns"), hi = ptable__col(t, "wait_max_ns");
	int h0 = ptable__col(t, "hist_0"), i;
	struct lock_row_val val = { 0 };
	struct lock_row_key k = { 0 };
	struct lock_filter all_callers;
	struct urow r;
	int err;

	if (nc < 0 || wc < 0 || lo < 0 || hi < 0)
		return 0;
	urow_of(v->p, c, row, &r);
	err = urow_name(v, heap, &r, &k.name);
	if (!err)
		err = intern(v, r.caller, &k.caller);
	if (err || !urow_matches(&r, lock_view__str(v, k.name), any_caller(f, &all_callers)))
		return err;
	k.lock_addr = r.lock;
	k.stack_id = r.stack_id;
	k.flags = r.flags;
	k.tgid = r.tgid;
	k.comm = (uint32_t)row[c->comm];
	val.count = row[nc];
	val.total_ns = row[wc];
	val.min_ns = row[lo];
	val.max_ns = row[hi];
	for (i = 0; h0 >= 0 && i < LS_HIST_SLOTS && h0 + i < (int)t->ncols; i++)
		val.hist[i] = row[h0 + i];
	/* A row without waits (its counts forgotten: top's interval) is no caller. */
	if (!val.count)
		return 0;
	err = count_all_waits(v, &k, &val);
	if (err || !glob_ok(f->caller, r.caller))
		return err;
	return add_row(v, index, &k, &val, false);
}

/* A row of the "ulocks.holds" table (uprobes): acquisitions and holds. */
static int add_user_hold(struct lock_view *v, struct htab *index, const struct htab *heap,
			 const struct ptable *t, const struct ucols *c, const uint64_t *row,
			 const struct lock_filter *f)
{
	int ac = ptable__col(t, "acquired"), hc = ptable__col(t, "held");
	int nc = ptable__col(t, "hold_ns"), mc = ptable__col(t, "hold_max_ns");
	struct hold_val h = { .has_hold = true };
	struct lock_filter all_callers;
	uint32_t name, caller_id;
	struct lock_entry *e;
	struct lock_part *p;
	struct urow r;
	int err;

	if (ac < 0 || hc < 0 || nc < 0 || mc < 0)
		return 0;
	urow_of(v->p, c, row, &r);
	err = urow_name(v, heap, &r, &name);
	if (!err)
		err = intern(v, r.caller, &caller_id);
	if (err || !urow_matches(&r, lock_view__str(v, name), any_caller(f, &all_callers)))
		return err;
	h.acquired = row[ac];
	h.held = row[hc];
	h.hold_ns = row[nc];
	h.hold_max_ns = row[mc];
	if (count_all_holds(v, name, r.flags, &h))
		return -ENOMEM;
	if (!glob_ok(f->caller, r.caller))
		return 0;
	e = find_lock(v, index, name, r.flags);
	if (!e)
		return -ENOMEM;
	p = same_function(v, e, r.caller);
	if (!p)
		p = find_part(&e->callers, &e->ncallers, caller_id, 0);
	if (!p)
		return -ENOMEM;
	hold_merge(&e->h, &h);
	hold_merge(&p->h, &h);
	hold_merge(&v->hold_total, &h);
	v->has_hold = true;
	return 0;
}

typedef int (*urow_fn)(struct lock_view *v, struct htab *index, const struct htab *heap,
		       const struct ptable *t, const struct ucols *c, const uint64_t *row,
		       const struct lock_filter *f);

static int add_utable(struct lock_view *v, struct htab *index, const struct htab *heap,
		      const char *table, urow_fn add, const struct lock_filter *f)
{
	const struct ptable *t = profile__table(v->p, table);
	const uint64_t *row;
	struct ucols c;
	size_t it = 0;
	int err = 0;

	if (!t || !ucols_of(t, &c))
		return 0;
	while (!err && (row = htab_next(&t->rows, &it, NULL)))
		err = add(v, index, heap, t, &c, row, f);
	return err;
}

/*
 * User locks join the kernel's in one table, told apart by their u:
 * types: waits from the futex tracepoints, acquisitions and holds from
 * the uprobes, matched by name and type like the kernel's hold rows.
 */
static int add_user_locks(struct lock_view *v, struct htab *index, const struct lock_filter *f)
{
	struct htab heap;
	int err;

	htab_init(&heap, sizeof(uint64_t), sizeof(struct uname));
	err = heap_names(v, &heap);
	if (!err)
		err = add_utable(v, index, &heap, "ulocks", add_user_wait, f);
	if (!err && !f->waits_only)
		err = add_utable(v, index, &heap, "ulocks.holds", add_user_hold, f);
	htab_free(&heap);
	return err;
}

/* The total's hold figures are over the locks that have them: which, and their waits. */
static void total_held(struct lock_view *v)
{
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		if (!v->locks[i].h.has_hold)
			continue;
		v->nheld++;
		lock_row_merge(&v->held_total, &v->locks[i].v);
	}
}

bool lock_view__hold_complete(const struct lock_view *v)
{
	return v->has_hold && v->nheld == v->nlocks;
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
	int err = intern(v, "[stack not sampled]", &k.caller);

	return err ? err : keep_row(v, &k, &e->v);
}

static int rows_to_lock_totals(struct lock_view *v, struct htab *index)
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

static int build(struct lock_view *v, const struct profile *p, const struct profile *names_from,
		 const struct lock_filter *f, bool keep_rows)
{
	const struct lock_row_key *k;
	const struct lock_row_val *val;
	struct lock_filter all_callers;
	struct lock_row_key named;
	struct htab index, given;
	size_t it = 0;
	int err;

	memset(v, 0, sizeof(*v));
	v->p = p;
	v->keep_rows = keep_rows;
	v->fold_arrays = f->fold_arrays;
	v->thin_slot = meta_thin_slot(p);
	htab_init(&v->str_index, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&v->anon, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&index, sizeof(uint64_t), sizeof(size_t));
	htab_init(&given, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&v->all, sizeof(uint64_t), sizeof(struct lock_all));
	err = index_given_names(p, &given);
	if (!err)
		err = name_anon_locks(v, names_from ? names_from : p);
	if (!err)
		err = index_estimated(v, &given);
	while (!err && (val = htab_next(&p->rows, &it, (const void **)&k))) {
		err = named_row(v, &given, k, &named);
		if (!err && row_matches(v, &named, any_caller(f, &all_callers)))
			err = count_all_waits(v, &named, val);
		if (!err && row_matches(v, &named, f))
			err = add_row(v, &index, &named, val, f->caller != NULL);
	}
	if (!err)
		err = add_holds(v, &index, f);
	if (!err)
		err = add_user_locks(v, &index, f);
	if (!err) {
		set_all(v);
		cap_parts(v, f);
		total_held(v);
	}
	if (!err && keep_rows && !f->caller)
		err = rows_to_lock_totals(v, &index);
	htab_free(&given);
	htab_free(&index);
	htab_free(&v->anon);
	htab_free(&v->estimated);
	htab_free(&v->all);
	if (err)
		lock_view__free(v);
	return err;
}

bool lock_view__uprobes_detached(const struct profile *p)
{
	const struct ptable *t = profile__table(p, "ulocks.uprobes");
	int dc = ptable__col(t, "detached");
	const uint64_t *row;
	size_t it = 0;

	while (t && dc >= 0 && (row = htab_next(&t->rows, &it, NULL)))
		if (row[dc])
			return true;
	return false;
}

int lock_view__build(struct lock_view *v, const struct profile *p, const struct lock_filter *f)
{
	return build(v, p, NULL, f, false);
}

int lock_view__build_named(struct lock_view *v, const struct profile *p, const struct profile *names_from,
			   const struct lock_filter *f)
{
	return build(v, p, names_from, f, false);
}

int lock_view__build_rows(struct lock_view *v, const struct profile *p, const struct lock_filter *f)
{
	return build(v, p, NULL, f, true);
}

static enum lock_sort sort_key;
static const struct lock_view *sort_view;

static int cmp_val(const struct lock_row_val *a, const struct hold_val *ha,
		   const struct lock_row_val *b, const struct hold_val *hb)
{
	uint64_t x, y;

	switch (sort_key) {
	case SORT_ACQUIRED:
		x = ha->acquired; y = hb->acquired; break;
	case SORT_HOLD_TOTAL:
		x = ha->hold_ns; y = hb->hold_ns; break;
	case SORT_HOLD_MAX:
		x = ha->hold_max_ns; y = hb->hold_max_ns; break;
	case SORT_CONTENDED:
		x = a->count; y = b->count; break;
	case SORT_WAIT_MAX:
		x = a->max_ns; y = b->max_ns; break;
	case SORT_WAIT_AVG:
		x = row_avg(a); y = row_avg(b); break;
	case SORT_WAIT_MIN:
		x = a->min_ns; y = b->min_ns; break;
	default:
		x = a->total_ns; y = b->total_ns; break;
	}
	return x == y ? 0 : (x > y ? -1 : 1);	/* largest first */
}

static int cmp_part(const void *a, const void *b)
{
	const struct lock_part *x = a, *y = b;
	int c = cmp_val(&x->v, &x->h, &y->v, &y->h);

	return c ? c : strcmp(lock_view__str(sort_view, x->caller), lock_view__str(sort_view, y->caller));
}

static int cmp_lock(const void *a, const void *b)
{
	const struct lock_entry *x = a, *y = b;
	int c = sort_key == SORT_NAME ? 0 : cmp_val(&x->v, &x->h, &y->v, &y->h);

	if (!c)
		c = strcmp(lock_view__str(sort_view, x->name), lock_view__str(sort_view, y->name));
	return c ? c : (x->flags > y->flags) - (x->flags < y->flags);
}

/* Locks by the key; callers and stacks within a lock by the same key. */
void lock_view__sort(struct lock_view *v, enum lock_sort key)
{
	size_t i;

	if (!v->nlocks)
		return;
	sort_key = key;
	sort_view = v;
	qsort(v->locks, v->nlocks, sizeof(*v->locks), cmp_lock);
	for (i = 0; i < v->nlocks; i++) {	/* a lock known from hold tables only has no stacks */
		if (v->locks[i].ncallers)
			qsort(v->locks[i].callers, v->locks[i].ncallers, sizeof(struct lock_part), cmp_part);
		if (v->locks[i].nstacks)
			qsort(v->locks[i].stacks, v->locks[i].nstacks, sizeof(struct lock_part), cmp_part);
	}
}

void lock_view__free(struct lock_view *v)
{
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		free(v->locks[i].callers);
		free(v->locks[i].stacks);
		free(v->locks[i].gave_up);
	}
	free(v->locks);
	free(v->rows);
	for (i = 0; i < v->nxstrs; i++)
		free(v->xstrs[i]);
	free(v->xstrs);
	htab_free(&v->str_index);
	memset(v, 0, sizeof(*v));
}
