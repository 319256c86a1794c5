// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks view: acquisitions and holds, from the mmap_lock and hold tables. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "format/consts.h"
#include "view/anon.h"
#include "view/view_locks_int.h"

/* Lock address -> name string id, from the contention rows and lock_names tables. */
static int index_names(const struct profile *p, struct htab *names)
{
	const struct ptable *t = profile__ltable(p, TBL_LOCK_NAMES);
	const struct lock_row_key *k;
	const uint64_t *row;
	int lc = ptable__lcol(t, TBL_LOCK_NAMES, LOCK_NAMES__LOCK), nc = ptable__lcol(t, TBL_LOCK_NAMES, LOCK_NAMES__NAME);
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
		if (!*id || lock_name_is_anon(profile__str(p, *id - 1)))	/* better than an address */
			*id = row[nc] + 1;
	}
	return 0;
}

struct hold_source {
	enum ls_table table;
	const char *fixed_name;	/* every lock of the table has this name */
	/* lock, stack, kind (mmap_lock's write), acquired, held, hold_ns, hold_max_ns, shift (-1: none) */
	int cols[8];
};

static const struct hold_source hold_sources[] = {
	{ TBL_MMAP_LOCK, "mm_struct.mmap_lock", { MMAP_LOCK__LOCK, MMAP_LOCK__STACK, MMAP_LOCK__WRITE,
	  MMAP_LOCK__ACQUIRED, MMAP_LOCK__HELD, MMAP_LOCK__HOLD_NS, MMAP_LOCK__HOLD_MAX_NS, MMAP_LOCK__SHIFT } },
	{ TBL_HOLD, NULL, { HOLD__LOCK, HOLD__STACK, HOLD__KIND, HOLD__ACQUIRED, HOLD__HELD, HOLD__HOLD_NS,
	  HOLD__HOLD_MAX_NS, -1 } },
};

static int hold_col(const struct ptable *t, const struct hold_source *src, int i)
{
	return src->cols[i] < 0 ? -1 : ptable__lcol(t, src->table, src->cols[i]);
}

static int hold_name_unfolded(struct lock_view *v, const struct htab *names, uint64_t addr,
			      const char *caller, uint32_t *id)
{
	const uint32_t *known = htab_find(names, &addr);
	const uint32_t *anon = htab_find(&v->anon, &addr);
	const struct ksym *sym = ksyms_find_data(&v->p->ksyms, addr);
	char name[320];

	if (known && *known && !lock_name_is_anon(profile__str(v->p, *known - 1))) {
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
	if (sym && sym->addr == addr)
		snprintf(name, sizeof(name), "%s", sym->name);
	else	/* after its caller, the bare address without one ("[stack lost]") */
		lock_name_anon(addr, caller, name, sizeof(name));
	return lv_intern(v, name, id);
}

static int hold_name(struct lock_view *v, const struct htab *names, uint64_t addr,
		     const char *caller, uint32_t *id)
{
	int err = hold_name_unfolded(v, names, addr, caller, id);

	return err ? err : lv_fold_name(v, id);
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
struct lock_part *lv_same_function(const struct lock_view *v, struct lock_entry *e, const char *caller)
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

	if (!lv_glob_ok(f->lock, lock_view__str(v, name)) || (f->type && !lock_type_matches(f->type, flags)))
		return 0;
	if (lv_count_all_holds(v, name, flags, h))
		return -ENOMEM;
	if (f->caller)
		return 0;
	e = lv_find_lock(v, index, name, flags);
	if (!e)
		return -ENOMEM;
	e->hold_estimated = true;
	lv_hold_merge(&e->h, h);
	lv_hold_merge(&v->hold_total, h);
	v->has_hold = true;
	return 0;
}

/* A row of a table whose acquisitions carried a stack at 2^-shift: what its caller's estimates need. */
static void add_hold_sample(struct lock_entry *e, struct lock_part *c, const struct hold_val *h, uint64_t shift)
{
	e->hold_sampled += h->acquired;
	c->hest.sampled += h->acquired;
	c->hest.sampled_ns += h->hold_ns;
	c->hest.var_acquired += lv_var_weight(shift) * (double)h->acquired;
	c->hest.var_hold += lv_var_weight(shift) * (double)h->hold_max_ns * (double)h->hold_ns;
	if (!shift)
		lv_hold_merge(&c->hest.certain, h);
}

static int add_hold_row(struct lock_view *v, struct htab *index, const struct htab *names,
			const struct hold_source *src, const struct ptable *t, const uint64_t *row,
			const struct lock_filter *f)
{
	int lc = hold_col(t, src, 0), sc = hold_col(t, src, 1), kc = hold_col(t, src, 2);
	int ac = hold_col(t, src, 3), hc = hold_col(t, src, 4);
	int nc = hold_col(t, src, 5), mc = hold_col(t, src, 6);
	int shc = hold_col(t, src, 7);	/* none: every acquisition has its stack */
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
	flags = src->fixed_name ? (row[kc] ? LCB_F_WRITE : LCB_F_READ) : hold_kind_flags(row[kc]);
	h.acquired = row[ac];
	h.held = row[hc];
	h.hold_ns = row[nc];
	h.hold_max_ns = row[mc];
	if (shift == LS_MMAP_UNSAMPLED && src->fixed_name) {
		err = lv_intern(v, src->fixed_name, &name);
		return err ? err : add_unsampled_hold(v, index, name, flags, &h, f);
	}
	if (shift > LS_MAX_SHIFT)
		return 0;	/* not a shift this lockstat writes */
	profile__caller(v->p, (int32_t)row[sc], caller, sizeof(caller));
	if (src->fixed_name)
		err = lv_intern(v, src->fixed_name, &name);
	else
		err = hold_name(v, names, row[lc], caller, &name);
	if (!err)
		err = lv_intern(v, caller, &caller_id);
	if (err)
		return err;
	if (!lv_glob_ok(f->lock, lock_view__str(v, name)) || (f->type && !lock_type_matches(f->type, flags)))
		return 0;
	if (lv_count_all_holds(v, name, flags, &h))
		return -ENOMEM;
	if (!lv_glob_ok(f->caller, caller))
		return 0;
	e = lv_find_lock(v, index, name, flags);
	if (!e)
		return -ENOMEM;
	c = lv_same_function(v, e, caller);
	if (!c)
		c = lv_find_part(&e->callers, &e->ncallers, caller_id, 0);
	if (!c)
		return -ENOMEM;
	w = weigh_hold(&h, shift);
	e->hold_estimated |= shift > 0;
	if (shc >= 0)
		add_hold_sample(e, c, &h, shift);
	v->hold_total_estimated |= f->caller && shift > 0;
	/* With a caller filter the lock's figures are its callers' estimates. */
	lv_hold_merge(&e->h, f->caller ? &w : &h);
	lv_hold_merge(&c->h, &w);
	lv_hold_merge(&v->hold_total, f->caller ? &w : &h);
	v->has_hold = true;
	return 0;
}

/* The locks the mmap_lock table covers: the hold family's rows for them would count twice. */
static int index_mmap_locks(struct lock_view *v)
{
	const struct ptable *t = profile__ltable(v->p, TBL_MMAP_LOCK);
	int lc = ptable__lcol(t, TBL_MMAP_LOCK, MMAP_LOCK__LOCK);
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

	return (known && *known && !lock_name_is_anon(profile__str(v->p, *known - 1))) ||
	       (sym && sym->addr == addr) || htab_find(&v->anon, &addr);
}

struct hold_func {
	uint64_t acquired;
	char func[128];
};

/* Acquisitions per anonymous lock and function of the hold table. */
static int count_hold_funcs(struct lock_view *v, const struct htab *names, struct htab *per_func)
{
	const struct ptable *t = profile__ltable(v->p, TBL_HOLD);
	int lc = ptable__lcol(t, TBL_HOLD, HOLD__LOCK), sc = ptable__lcol(t, TBL_HOLD, HOLD__STACK);
	int ac = ptable__lcol(t, TBL_HOLD, HOLD__ACQUIRED);
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
		lock_name_anon(key[0], hf->func, name, sizeof(name));
		id = htab_get(&v->anon, &key[0], NULL);
		err = id ? lv_intern(v, name, id) : -ENOMEM;
	}
	htab_free(&per_func);
	htab_free(&best);
	return err;
}

/* Per-task filters cannot apply to hold tables, which are per lock. */
int lv_add_holds(struct lock_view *v, struct htab *index, const struct lock_filter *f)
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
		const struct ptable *t = profile__ltable(v->p, hold_sources[i].table);
		const uint64_t *row;

		for (it = 0; !err && t && (row = htab_next(&t->rows, &it, NULL));)
			err = add_hold_row(v, index, &names, &hold_sources[i], t, row, f);
	}
	htab_free(&names);
	htab_free(&v->mmap_locks);
	return err;
}
