// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks view: the contention rows, under the names the view gives their locks. */
#include <errno.h>
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "sym/kmap.h"
#include "view/anon.h"
#include "view/view_locks_int.h"

/* With --fold-arrays: "table[3]" is "table[]", one lock for all the array's. */
int lv_fold_name(struct lock_view *v, uint32_t *id)
{
	char folded[320];

	if (!v->fold_arrays || !kmap_fold_arrays(lock_view__str(v, *id), folded, sizeof(folded)))
		return 0;
	return lv_intern(v, folded, id);
}

/*
 * A name given by a family that knows the lock (the page cache's
 * address_space.i_pages, ...) replaces the bare address the writer had to
 * give a lock it could not name; else the view's name by busiest caller.
 */
static int named_row_unfolded(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
			      struct lock_row_key *out)
{
	const uint32_t *id = htab_find(given, &k->lock_addr);
	uint32_t *anon;
	char bare[24];
	int inserted;

	*out = *k;
	if (!lock_name_is_anon(profile__str(v->p, k->name)))
		return 0;
	if (id) {
		out->name = *id;
		return 0;
	}
	anon = htab_get(&v->anon, &k->lock_addr, &inserted);
	if (!anon)
		return -ENOMEM;
	if (inserted) {	/* no caller anywhere: the bare address */
		lock_name_anon(k->lock_addr, NULL, bare, sizeof(bare));
		if (lv_intern(v, bare, anon))
			return -ENOMEM;
	}
	out->name = *anon;
	return 0;
}

int lv_named_row(struct lock_view *v, const struct htab *given, const struct lock_row_key *k,
		 struct lock_row_key *out)
{
	int err = named_row_unfolded(v, given, k, out);

	return err ? err : lv_fold_name(v, &out->name);
}

/* Anonymous locks of names_from: address -> "0xADDRESS@busiest_function". */
int lv_name_anon_locks(struct lock_view *v, const struct profile *from)
{
	char name[320];
	const uint64_t *addr;
	const uint32_t *caller;
	struct htab best;
	uint32_t *id;
	size_t it = 0;
	int err;

	htab_init(&best, sizeof(uint64_t), sizeof(uint32_t));
	err = anon_busiest_callers(from, &best);
	while (!err && (caller = htab_next(&best, &it, (const void **)&addr))) {
		lock_name_anon(*addr, profile__str(from, *caller), name, sizeof(name));
		id = htab_get(&v->anon, addr, NULL);
		err = id ? lv_intern(v, name, id) : -ENOMEM;
	}
	htab_free(&best);
	return err;
}

int lv_index_given_names(const struct profile *p, struct htab *given)
{
	const struct ptable *t = profile__ltable(p, TBL_LOCK_NAMES);
	int lc = ptable__lcol(t, TBL_LOCK_NAMES, LOCK_NAMES__LOCK), nc = ptable__lcol(t, TBL_LOCK_NAMES, LOCK_NAMES__NAME);
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

static bool row_matches(const struct lock_view *v, const struct lock_row_key *k,
			const struct lock_filter *f)
{
	const struct profile *p = v->p;

	if (!lv_glob_ok(f->lock, lock_view__str(v, k->name)))
		return false;
	if (!lv_glob_ok(f->caller, profile__str(p, k->caller)))
		return false;
	if (f->type && !lock_type_matches(f->type, k->flags))
		return false;
	if (!lv_glob_ok(f->comm, profile__str(p, k->comm)))
		return false;
	return f->pid < 0 || (uint32_t)f->pid == k->tgid || (uint32_t)f->pid == k->tid;
}

/* The contention rows under the view's names: each lock's exact figures, and the rows the filter keeps. */
int lv_add_kernel_rows(struct lock_view *v, struct htab *index, const struct htab *given,
		       const struct lock_filter *f)
{
	const struct lock_row_key *k;
	const struct lock_row_val *val;
	struct lock_filter all_callers;
	struct lock_row_key named;
	size_t it = 0;
	int err = 0;

	while (!err && (val = htab_next(&v->p->rows, &it, (const void **)&k))) {
		err = lv_named_row(v, given, k, &named);
		if (!err && row_matches(v, &named, lv_any_caller(f, &all_callers)))
			err = lv_count_all_waits(v, &named, val);
		if (!err && row_matches(v, &named, f))
			err = lv_add_row(v, index, &named, val, f->caller != NULL);
	}
	return err;
}
