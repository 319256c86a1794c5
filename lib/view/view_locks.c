// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks view's core: locks and their parts, strings, filter, sort, build (view_locks_int.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/locktype.h"
#include "view/match.h"
#include "view/view_locks_int.h"

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
 * the quotient itself but where a weighed total saturated (lv_weigh()),
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
bool lv_glob_ok(const char *pattern, const char *s)
{
	return name_matches(pattern, s);
}

/* f without its caller filter: which rows count in a lock's exact figures (lock_entry.all). */
const struct lock_filter *lv_any_caller(const struct lock_filter *f, struct lock_filter *buf)
{
	*buf = *f;
	buf->caller = NULL;
	return buf;
}

struct lock_part *lv_find_part(struct lock_part **parts, size_t *n, uint32_t caller, int32_t stack_id)
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

struct lock_entry *lv_find_lock(struct lock_view *v, struct htab *index, uint32_t name, uint32_t flags)
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

int lv_keep_row(struct lock_view *v, const struct lock_row_key *k, const struct lock_row_val *w)
{
	if (!v->keep_rows)
		return 0;
	if (grow_array((void **)&v->rows, &v->rows_cap, v->nrows + 1, sizeof(*v->rows)))
		return -ENOMEM;
	v->rows[v->nrows++] = (struct lock_view_row){ *k, *w };
	return 0;
}

/*
 * A row's waits go to its lock exactly; to its caller and stack weighed by
 * 1/p. A row without stack in a sampled profile has no caller: its waits
 * count for the lock alone. With a caller filter, the lock and the total
 * add up the matching callers' estimates.
 */
int lv_add_row(struct lock_view *v, struct htab *index, const struct lock_row_key *k,
	       const struct lock_row_val *val, bool by_caller)
{
	struct lock_entry *e = lv_find_lock(v, index, k->name, k->flags);
	bool no_caller = v->p->lock_sampling && k->stack_id == LS_STACK_UNSAMPLED &&
			 !lock_type_is_user(k->flags);
	uint64_t id = lv_lock_key(k->name, k->flags);
	struct lock_row_val w;
	struct lock_part *c, *s;

	if (!e)
		return -ENOMEM;
	if (no_caller && by_caller)
		return 0;
	lv_weigh(&w, val, k->shift);
	if (k->err)
		return add_gave_up(e, k->err, by_caller ? &w : val);
	if (!lock_type_is_user(k->flags) && v->p->lock_sampling)
		lv_sum_var_add(e, k, val, no_caller, v->thin_slot);
	e->estimated = htab_find(&v->estimated, &id) != NULL;
	lock_row_merge(&e->v, by_caller ? &w : val);
	lock_row_merge(&v->total, by_caller ? &w : val);
	v->total_estimated |= by_caller && e->estimated;
	if (no_caller)
		return 0;
	c = lv_find_part(&e->callers, &e->ncallers, k->caller, 0);
	s = lv_find_part(&e->stacks, &e->nstacks, k->caller, k->stack_id);
	if (!c || !s)
		return -ENOMEM;
	s->tgid = k->tgid;
	lv_part_add(c, &w, val, k->shift);
	lv_part_add(s, &w, val, k->shift);
	return lv_keep_row(v, k, &w);
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
int lv_intern(struct lock_view *v, const char *s, uint32_t *id)
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

void lv_hold_merge(struct hold_val *dst, const struct hold_val *src)
{
	dst->has_hold = true;
	dst->acquired = sat_add(dst->acquired, src->acquired);
	dst->held = sat_add(dst->held, src->held);
	dst->hold_ns = sat_add(dst->hold_ns, src->hold_ns);
	if (src->hold_max_ns > dst->hold_max_ns)
		dst->hold_max_ns = src->hold_max_ns;
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

/* An empty view of p, with the indexes it keeps while building. */
static void build_init(struct lock_view *v, const struct profile *p, const struct lock_filter *f, bool keep_rows)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->keep_rows = keep_rows;
	v->fold_arrays = f->fold_arrays;
	v->thin_slot = lv_meta_thin_slot(p);
	htab_init(&v->str_index, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&v->anon, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&v->all, sizeof(uint64_t), sizeof(struct lock_all));
}

static int build(struct lock_view *v, const struct profile *p, const struct profile *names_from,
		 const struct lock_filter *f, bool keep_rows)
{
	struct htab index, given;
	int err;

	build_init(v, p, f, keep_rows);
	v->names_from = names_from ? names_from : p;
	htab_init(&index, sizeof(uint64_t), sizeof(size_t));
	htab_init(&given, sizeof(uint64_t), sizeof(uint32_t));
	err = lv_index_given_names(p, &given);
	if (!err)
		err = lv_name_anon_locks(v, v->names_from);
	if (!err)
		err = lv_index_estimated(v, &given);
	if (!err)
		err = lv_add_kernel_rows(v, &index, &given, f);
	if (!err)
		err = lv_add_holds(v, &index, f);
	if (!err)
		err = lv_add_user_locks(v, &index, f);
	if (!err) {
		lv_set_all(v);
		lv_cap_parts(v, f);
		total_held(v);
	}
	if (!err && keep_rows && !f->caller)
		err = lv_rows_to_lock_totals(v, &index);
	htab_free(&given);
	htab_free(&index);
	htab_free(&v->anon);
	htab_free(&v->estimated);
	htab_free(&v->all);
	v->names_from = NULL;
	if (err)
		lock_view__free(v);
	return err;
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
