// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/family_meta.h"
#include "view/view_pagecache.h"

_Static_assert(PC__NVALS == PC_FILES__NCOLS - PC_FILES__ADDED, "one value per pagecache.files value column");
_Static_assert(PC__NVALS == PC_PROCS__NCOLS - PC_PROCS__ADDED, "one value per pagecache.procs value column");

const char *pc_val_name(enum pc_val v)
{
	return ls_schema(TBL_PC_FILES)->cols[PC_FILES__ADDED + v].name;
}

static struct pc_entry *entry_of(struct pc_list *l, const uint64_t id[2])
{
	int inserted;
	size_t *slot = htab_get(&l->index, id, &inserted);

	if (!slot)
		return NULL;
	if (!inserted)
		return &l->e[*slot - 1];
	if (grow_array((void **)&l->e, &l->cap, l->n + 1, sizeof(*l->e)))
		return NULL;
	memset(&l->e[l->n], 0, sizeof(l->e[0]));
	memcpy(l->e[l->n].id, id, sizeof(l->e[0].id));
	*slot = ++l->n;
	return &l->e[l->n - 1];
}

/* The columns of a table; -1 for the missing ones (and for a column id of -1). */
static void find_cols(const struct ptable *t, enum ls_table id, const int *cols, int n, int *out)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = cols[i] < 0 ? -1 : ptable__lcol(t, id, cols[i]);
}

static void merge_values(struct pc_entry *e, const uint64_t *row, const int *vc)
{
	int i;

	for (i = 0; i < PC__NVALS; i++)
		if (vc[i] >= 0)
			e->v[i] += row[vc[i]];
}

/*
 * The rows of a table by their two id columns, keys[0] and keys[1]: a
 * file by (dev, inode), a process by (pid, comm). A file whose name
 * came later (the /proc search) has rows with and without it, and a lock
 * only where the inode was read: the name and the lock win.
 */
static int build_list(struct pc_list *l, const struct profile *p, const struct ptable *t,
		      enum ls_table id, const int keys[4], int first_val)
{
	int kc[4], vc[PC__NVALS], vals[PC__NVALS], i;
	const uint64_t *row;
	struct pc_entry *e;
	size_t it = 0;

	for (i = 0; i < PC__NVALS; i++)
		vals[i] = first_val + i;
	find_cols(t, id, keys, 4, kc);
	find_cols(t, id, vals, PC__NVALS, vc);
	if (kc[0] < 0 || kc[1] < 0)
		return -EINVAL;
	while ((row = htab_next(&t->rows, &it, NULL))) {
		uint64_t id[2] = { row[kc[0]], row[kc[1]] };
		const char *name = kc[2] >= 0 ? profile__str(p, row[kc[2]]) : "";

		if (!(e = entry_of(l, id)))
			return -ENOMEM;
		if (!e->name || (!*e->name && *name))
			e->name = name;
		if (kc[3] >= 0 && row[kc[3]] && !e->lock)
			e->lock = row[kc[3]];
		merge_values(e, row, vc);
	}
	return 0;
}

/* Contention per lock address, over every caller and task. */
static int index_locks(struct pagecache_view *x, const struct profile *p)
{
	const struct lock_row_key *k;
	const struct lock_row_val *v;
	size_t it = 0;
	uint64_t *sum;

	while ((v = htab_next(&p->rows, &it, (const void **)&k))) {
		if (!(sum = htab_get(&x->locks, &k->lock_addr, NULL)))
			return -ENOMEM;
		sum[0] += v->count;
		sum[1] += v->total_ns;
	}
	return 0;
}

static void join_locks(struct pagecache_view *x)
{
	const uint64_t *sum;
	size_t i;

	for (i = 0; i < x->files.n; i++) {
		struct pc_entry *e = &x->files.e[i];

		if (e->lock && (sum = htab_find(&x->locks, &e->lock))) {
			e->contended = sum[0];
			e->wait_ns = sum[1];
		}
	}
}

/* Most pages added first, then most looked up. */
static int by_traffic(const void *a, const void *b)
{
	const struct pc_entry *x = a, *y = b;

	if (x->v[PC_ADDED] != y->v[PC_ADDED])
		return x->v[PC_ADDED] < y->v[PC_ADDED] ? 1 : -1;
	if (x->v[PC_LOOKUPS] != y->v[PC_LOOKUPS])
		return x->v[PC_LOOKUPS] < y->v[PC_LOOKUPS] ? 1 : -1;
	return x->id[1] < y->id[1] ? -1 : x->id[1] > y->id[1];
}

static void pc_list_free(struct pc_list *l)
{
	free(l->e);
	htab_free(&l->index);
}

void pagecache_view__free(struct pagecache_view *x)
{
	pc_list_free(&x->files);
	pc_list_free(&x->procs);
	htab_free(&x->locks);
}

/* The mode names the events attached: "tp_btf:add,delete,lookup,...". */
static bool lookups_counted(const struct family_status *st)
{
	const char *events = strchr(st->mode, ':');

	return st->state == FSTATE_ATTACHED && events && strstr(events, "lookup");
}

/* See struct pc_entry. */
static double hit_pct(const struct pagecache_view *x, const struct pc_entry *e)
{
	double miss;

	if (!x->lookups_counted || !e->v[PC_LOOKUPS])
		return NAN;
	miss = (double)e->v[PC_ADDED] / e->v[PC_LOOKUPS];
	return miss >= 1 ? 0 : 100.0 * (1 - miss);
}

static void hit_ratios(struct pagecache_view *x, struct pc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		l->e[i].hit_pct = hit_pct(x, &l->e[i]);
}

int pagecache_view__build(struct pagecache_view *x, const struct profile *p)
{
	static const int file_keys[4] = { PC_FILES__DEV, PC_FILES__INO, PC_FILES__PATH, PC_FILES__I_PAGES_LOCK };
	static const int proc_keys[4] = { PC_PROCS__PID, PC_PROCS__COMM, PC_PROCS__COMM, -1 };
	const struct ptable *files = profile__ltable(p, TBL_PC_FILES);
	const struct ptable *procs = profile__ltable(p, TBL_PC_PROCS);
	struct family_status st;
	int err = 0;

	memset(x, 0, sizeof(*x));
	htab_init(&x->files.index, 2 * sizeof(uint64_t), sizeof(size_t));
	htab_init(&x->procs.index, 2 * sizeof(uint64_t), sizeof(size_t));
	htab_init(&x->locks, sizeof(uint64_t), 2 * sizeof(uint64_t));
	family_meta_read(p, family_name(FAMILY_PAGECACHE), &st);
	x->recorded = st.state == FSTATE_ATTACHED;
	/* Tables are only written when they have rows: no table may still be a recording. */
	if (!files && !procs && !x->recorded)
		return -ENOENT;
	x->lookups_counted = lookups_counted(&st);
	if (files)
		err = build_list(&x->files, p, files, TBL_PC_FILES, file_keys, PC_FILES__ADDED);
	if (!err && procs)
		err = build_list(&x->procs, p, procs, TBL_PC_PROCS, proc_keys, PC_PROCS__ADDED);
	if (!err)
		err = index_locks(x, p);
	if (err)
		return err;
	join_locks(x);
	hit_ratios(x, &x->files);
	hit_ratios(x, &x->procs);
	if (x->files.n)
		qsort(x->files.e, x->files.n, sizeof(x->files.e[0]), by_traffic);
	if (x->procs.n)
		qsort(x->procs.e, x->procs.n, sizeof(x->procs.e[0]), by_traffic);
	return 0;
}
