// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "locktype.h"
#include "view_locks.h"

static const char *const sort_names[] = {
	[SORT_WAIT_TOTAL] = "wait_total", [SORT_CONTENDED] = "contended",
	[SORT_WAIT_MAX] = "wait_max", [SORT_WAIT_AVG] = "wait_avg",
	[SORT_WAIT_MIN] = "wait_min", [SORT_NAME] = "name",
};

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

uint64_t row_avg(const struct lock_row_val *v)
{
	return v->count ? v->total_ns / v->count : 0;
}

/*
 * Slot i holds waits in [2^i, 2^(i+1)) ns; interpolate linearly inside the
 * slot that holds the quantile, then clamp to the exact min and max.
 */
uint64_t hist_quantile(const struct lock_row_val *v, double q)
{
	uint64_t seen = 0, total = 0, lo, hi, est;
	double rank, frac;
	int i;

	for (i = 0; i < LS_HIST_SLOTS; i++)
		total += v->hist[i];
	if (!total)
		return 0;
	rank = q * total;
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (v->hist[i] && seen + v->hist[i] >= rank)
			break;
		seen += v->hist[i];
	}
	if (i == LS_HIST_SLOTS)
		i = LS_HIST_SLOTS - 1;
	lo = i ? 1ULL << i : 0;
	hi = 1ULL << (i + 1);
	frac = v->hist[i] ? (rank - seen) / v->hist[i] : 0;
	est = lo + (uint64_t)(frac * (hi - lo));
	if (est < v->min_ns)
		est = v->min_ns;
	if (v->max_ns && est > v->max_ns)
		est = v->max_ns;
	return est;
}

static bool glob_ok(const char *pattern, const char *s)
{
	return !pattern || !fnmatch(pattern, s, 0);
}

static bool row_matches(const struct profile *p, const struct lock_row_key *k,
			const struct lock_filter *f)
{
	if (!glob_ok(f->lock, profile__str(p, k->name)))
		return false;
	if (!glob_ok(f->caller, profile__str(p, k->caller)))
		return false;
	if (f->type && !lock_type_matches(f->type, k->flags))
		return false;
	if (!glob_ok(f->comm, profile__str(p, k->comm)))
		return false;
	return f->pid < 0 || (uint32_t)f->pid == k->tgid || (uint32_t)f->pid == k->tid;
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

static int add_row(struct lock_view *v, struct htab *index, const struct lock_row_key *k,
		   const struct lock_row_val *val)
{
	struct lock_entry *e = find_lock(v, index, k->name, k->flags);
	struct lock_part *c, *s;

	if (!e)
		return -ENOMEM;
	c = find_part(&e->callers, &e->ncallers, k->caller, 0);
	s = find_part(&e->stacks, &e->nstacks, k->caller, k->stack_id);
	if (!c || !s)
		return -ENOMEM;
	lock_row_merge(&e->v, val);
	lock_row_merge(&c->v, val);
	lock_row_merge(&s->v, val);
	lock_row_merge(&v->total, val);
	return 0;
}

int lock_view__build(struct lock_view *v, const struct profile *p, const struct lock_filter *f)
{
	const struct lock_row_key *k;
	const struct lock_row_val *val;
	struct htab index;
	size_t it = 0;
	int err = 0;

	memset(v, 0, sizeof(*v));
	v->p = p;
	htab_init(&index, sizeof(uint64_t), sizeof(size_t));
	while (!err && (val = htab_next(&p->rows, &it, (const void **)&k)))
		if (row_matches(p, k, f))
			err = add_row(v, &index, k, val);
	htab_free(&index);
	if (err)
		lock_view__free(v);
	return err;
}

static enum lock_sort sort_key;
static const struct profile *sort_profile;

static int cmp_val(const struct lock_row_val *a, const struct lock_row_val *b)
{
	uint64_t x, y;

	switch (sort_key) {
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
	int c = cmp_val(&x->v, &y->v);

	return c ? c : strcmp(profile__str(sort_profile, x->caller), profile__str(sort_profile, y->caller));
}

static int cmp_lock(const void *a, const void *b)
{
	const struct lock_entry *x = a, *y = b;
	int c = sort_key == SORT_NAME ? 0 : cmp_val(&x->v, &y->v);

	if (!c)
		c = strcmp(profile__str(sort_profile, x->name), profile__str(sort_profile, y->name));
	return c ? c : (x->flags > y->flags) - (x->flags < y->flags);
}

/* Locks by the key; callers and stacks within a lock by the same key. */
void lock_view__sort(struct lock_view *v, enum lock_sort key)
{
	size_t i;

	if (!v->nlocks)
		return;
	sort_key = key;
	sort_profile = v->p;
	qsort(v->locks, v->nlocks, sizeof(*v->locks), cmp_lock);
	for (i = 0; i < v->nlocks; i++) {
		qsort(v->locks[i].callers, v->locks[i].ncallers, sizeof(struct lock_part), cmp_part);
		qsort(v->locks[i].stacks, v->locks[i].nstacks, sizeof(struct lock_part), cmp_part);
	}
}

void lock_view__free(struct lock_view *v)
{
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		free(v->locks[i].callers);
		free(v->locks[i].stacks);
	}
	free(v->locks);
	memset(v, 0, sizeof(*v));
}
