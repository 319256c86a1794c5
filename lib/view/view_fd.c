// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "view/match.h"
#include "view/view_fd.h"

static uint64_t per_sec(const struct fd_view *v, uint64_t n)
{
	return v->secs > 0 ? (uint64_t)(n / v->secs + 0.5) : 0;
}

/* Column indexes of one of the family's tables; false when one is absent. */
static bool cols_of(const struct ptable *t, enum ls_table id, const unsigned int *cols, int *idx, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((idx[i] = ptable__lcol(t, id, cols[i])) < 0)
			return false;
	return true;
}

static struct fd_proc *proc_of(struct fd_view *v, uint32_t pid)
{
	int inserted = 0;
	struct fd_proc *p = htab_get(&v->procs, &pid, &inserted);

	if (p && inserted)
		p->pid = pid;
	return p;
}

static struct fd_thread_row *thread_of(struct fd_view *v, uint32_t pid, uint32_t tid)
{
	uint32_t k[2] = { pid, tid };
	int inserted = 0;
	struct fd_thread_row *t = htab_get(&v->threads, k, &inserted);

	if (t && inserted) {
		t->pid = pid;
		t->tid = tid;
	}
	return t;
}

/* One fd.threads row: its process's tables, file_locks and comm. */
static int add_thread(struct fd_view *v, const uint64_t *row, const int *c)
{
	uint32_t pid = row[c[0]], tid = row[c[1]], comm = row[c[2]];
	uint64_t files = row[c[3]], lock = row[c[4]], calls = row[c[5]];
	struct pid_u64 tk = { .pid = pid, .v = files }, lk = { .pid = pid, .v = lock };
	uint64_t tid_key[2] = { (uint64_t)pid << 32 | tid, files }, *sum;
	struct fd_proc *p = proc_of(v, pid);
	struct fd_thread_row *t = thread_of(v, pid, tid);

	sum = htab_get(&v->tables, &tk, NULL);
	if (!p || !t || !sum || !htab_get(&v->table_tids, tid_key, NULL) ||
	    (lock && !htab_get(&v->file_locks, &lk, NULL)))
		return -ENOMEM;
	*sum += calls;
	p->syscalls += calls;
	t->syscalls += calls;
	if (calls > p->comm_calls || !p->comm) {
		p->comm = comm;
		p->comm_calls = calls;
	}
	if (calls > t->comm_calls || !t->comm) {
		t->comm = comm;
		t->comm_calls = calls;
		t->files = files;
	}
	return 0;
}

/* The table most syscalls used is the process's; count its threads. */
static void settle_tables(struct fd_view *v)
{
	const struct pid_u64 *k;
	const uint64_t *key;
	uint64_t *sum;
	struct fd_proc *p;
	size_t it = 0;

	while ((sum = htab_next(&v->tables, &it, (const void **)&k))) {
		p = htab_find(&v->procs, &k->pid);
		if (p && (*sum > p->files_calls || !p->files)) {
			p->files = k->v;
			p->files_calls = *sum;
		}
	}
	it = 0;
	while (htab_next(&v->table_tids, &it, (const void **)&key)) {
		uint32_t pid = key[0] >> 32;

		p = htab_find(&v->procs, &pid);
		if (p && p->files == key[1])
			p->threads++;
	}
}

static int read_threads(struct fd_view *v, const struct ptable *t)
{
	static const unsigned int cols[] = { FD_THREADS__PID, FD_THREADS__TID, FD_THREADS__COMM,
					     FD_THREADS__FILES, FD_THREADS__FILE_LOCK, FD_THREADS__SYSCALLS };
	int c[6];
	const uint64_t *row;
	size_t it = 0;
	int err = 0;

	if (!cols_of(t, TBL_FD_THREADS, cols, c, 6))
		return -EINVAL;
	while (!err && (row = htab_next(&t->rows, &it, NULL)))
		err = add_thread(v, row, c);
	if (!err)
		settle_tables(v);
	return err;
}

/* Keep the FD_TOP busiest syscalls of a process, busiest first. */
static void consider_top(struct fd_proc *p, uint32_t name, uint64_t calls)
{
	int i = FD_TOP - 1;

	if (calls <= p->top[i].calls)
		return;
	for (; i > 0 && calls > p->top[i - 1].calls; i--)
		p->top[i] = p->top[i - 1];
	p->top[i] = (struct fd_top){ name, calls };
}

static int read_syscalls(struct fd_view *v, const struct ptable *t)
{
	static const unsigned int cols[] = { FD_SYSCALLS__PID, FD_SYSCALLS__SYSCALL, FD_SYSCALLS__CALLS };
	const struct pid_u64 *k;
	const uint64_t *row;
	struct fd_proc *p;
	uint64_t *sum;
	size_t it = 0;
	int c[3];

	if (!t)
		return 0;
	if (!cols_of(t, TBL_FD_SYSCALLS, cols, c, 3))
		return -EINVAL;
	while ((row = htab_next(&t->rows, &it, NULL))) {
		struct pid_u64 key = { .pid = row[c[0]], .v = row[c[1]] };

		if (!(sum = htab_get(&v->sys, &key, NULL)))
			return -ENOMEM;
		*sum += row[c[2]];
	}
	it = 0;
	while ((sum = htab_next(&v->sys, &it, (const void **)&k)))
		if ((p = htab_find(&v->procs, &k->pid)))
			consider_top(p, k->v, *sum);
	return 0;
}

static int read_fget(struct fd_view *v, const struct ptable *t)
{
	static const unsigned int cols[] = { FD_FGET__PID, FD_FGET__TID, FD_FGET__CALLS, FD_FGET__TIME_NS,
					     FD_FGET__MAX_NS };
	const uint64_t *row;
	size_t it = 0;
	int c[5];

	if (!t)
		return 0;
	if (!cols_of(t, TBL_FD_FGET, cols, c, 5))
		return -EINVAL;
	while ((row = htab_next(&t->rows, &it, NULL))) {
		struct fd_proc *p = proc_of(v, row[c[0]]);
		struct fd_thread_row *th = thread_of(v, row[c[0]], row[c[1]]);

		if (!p || !th)
			return -ENOMEM;
		p->fget_calls += row[c[2]];
		p->fget_ns += row[c[3]];
		if (row[c[4]] > p->fget_max_ns)
			p->fget_max_ns = row[c[4]];
		th->fget_calls += row[c[2]];
	}
	return 0;
}

/* The contention of every lock address, then of each process's file_locks. */
static int read_waits(struct fd_view *v, const struct profile *prof)
{
	const struct lock_row_key *k;
	const struct lock_row_val *lv;
	const struct pid_u64 *fk;
	uint64_t *w;
	size_t it = 0;

	while ((lv = htab_next(&prof->rows, &it, (const void **)&k))) {
		if (!(w = htab_get(&v->waits, &k->lock_addr, NULL)))
			return -ENOMEM;
		w[0] += lv->count;
		w[1] += lv->total_ns;
	}
	it = 0;
	while (htab_next(&v->file_locks, &it, (const void **)&fk)) {
		struct fd_proc *p = htab_find(&v->procs, &fk->pid);

		if (p && (w = htab_find(&v->waits, &fk->v))) {
			p->contended += w[0];
			p->wait_ns += w[1];
		}
	}
	return 0;
}

/*
 * The fd family's mode is the syscalls' ("tp_btf"), then "+" and the fget
 * family's where it was measured ("+fentry(fget,fget_raw)"); otherwise
 * fget is the part it lacks, and why says why.
 */
static int read_probe(struct fd_view *v, const struct profile *p)
{
	struct family_status *st = &v->probe, locks;
	const char *plus;

	family_meta_read(p, family_name(FAMILY_FD), st);
	if (st->state != FSTATE_ATTACHED)
		return -ENOENT;
	plus = strchr(st->mode, '+');
	snprintf(v->sys_mode, sizeof(v->sys_mode), "%.*s",
		 plus ? (int)(plus - st->mode) : (int)strlen(st->mode), st->mode);
	if (plus)
		v->fget = plus + 1;
	else
		v->fget_why = !strcmp(st->missing, "fget") ? st->why : "no fget information in this profile";
	family_meta_read(p, family_name(FAMILY_LOCKS), &locks);
	v->locks = locks.state == FSTATE_ATTACHED;
	return 0;
}

static bool shown(const struct profile *prof, const struct fd_filter *f, const struct fd_proc *p)
{
	if (f->pid >= 0 && (int64_t)p->pid != f->pid)
		return false;
	return name_matches(f->comm, profile__str(prof, p->comm));
}

static int by_syscalls(const void *a, const void *b)
{
	const struct fd_proc *x = *(const struct fd_proc *const *)a;
	const struct fd_proc *y = *(const struct fd_proc *const *)b;

	if (x->syscalls != y->syscalls)
		return x->syscalls < y->syscalls ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int by_thread(const void *a, const void *b)
{
	const struct fd_thread_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The processes shown, busiest first, and the threads sorted for JSON. */
static int order(struct fd_view *v, const struct profile *prof, const struct fd_filter *f)
{
	struct fd_proc *p;
	struct fd_thread_row *t;
	size_t it = 0;

	v->order = calloc(v->procs.count + 1, sizeof(*v->order));
	v->trows = calloc(v->threads.count + 1, sizeof(*v->trows));
	if (!v->order || !v->trows)
		return -ENOMEM;
	while ((p = htab_next(&v->procs, &it, NULL)))
		if (shown(prof, f, p))
			v->order[v->n++] = p;
	qsort(v->order, v->n, sizeof(*v->order), by_syscalls);
	if (f->top_n && f->top_n < v->n)
		v->n = f->top_n;
	it = 0;
	while ((t = htab_next(&v->threads, &it, NULL)))
		v->trows[v->ntrows++] = *t;
	qsort(v->trows, v->ntrows, sizeof(*v->trows), by_thread);
	return 0;
}

static void fd_view_init(struct fd_view *v)
{
	memset(v, 0, sizeof(*v));
	htab_init(&v->procs, sizeof(uint32_t), sizeof(struct fd_proc));
	htab_init(&v->threads, 2 * sizeof(uint32_t), sizeof(struct fd_thread_row));
	htab_init(&v->tables, sizeof(struct pid_u64), sizeof(uint64_t));
	htab_init(&v->table_tids, 2 * sizeof(uint64_t), 1);
	htab_init(&v->file_locks, sizeof(struct pid_u64), 1);
	htab_init(&v->sys, sizeof(struct pid_u64), sizeof(uint64_t));
	htab_init(&v->waits, sizeof(uint64_t), 2 * sizeof(uint64_t));
}

void fd_view__free(struct fd_view *v)
{
	htab_free(&v->procs);
	htab_free(&v->threads);
	htab_free(&v->tables);
	htab_free(&v->table_tids);
	htab_free(&v->file_locks);
	htab_free(&v->sys);
	htab_free(&v->waits);
	free(v->order);
	free(v->trows);
}

/* The rates and averages of every process shown, over the recording. */
static void figures(struct fd_view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		struct fd_proc *p = v->order[i];

		p->syscalls_per_s = per_sec(v, p->syscalls);
		p->fget_per_s = per_sec(v, p->fget_calls);
		p->fget_avg_ns = p->fget_calls ? p->fget_ns / p->fget_calls : 0;
		p->wait_pct = v->secs > 0 ? 100.0 * p->wait_ns / (v->secs * 1e9) : 0;
	}
}

int fd_view__build(struct fd_view *v, const struct profile *p, const struct fd_filter *f)
{
	const struct ptable *threads = profile__ltable(p, TBL_FD_THREADS);
	int err;

	fd_view_init(v);
	err = read_probe(v, p);
	if (err)
		return err;
	v->secs = profile__duration_ns(p) / 1e9;
	v->any_syscalls = threads != NULL;
	if (!threads)
		return 0;
	err = read_threads(v, threads);
	if (!err)
		err = read_syscalls(v, profile__ltable(p, TBL_FD_SYSCALLS));
	if (!err)
		err = read_fget(v, profile__ltable(p, TBL_FD_FGET));
	if (!err)
		err = read_waits(v, p);
	if (!err)
		err = order(v, p, f);
	if (!err)
		figures(v);
	return err;
}

size_t fd_view__threads(const struct fd_view *v, const struct fd_proc *p,
			const struct fd_thread_row **first)
{
	struct fd_thread_row key = { .pid = p->pid };
	size_t lo = 0, hi = v->ntrows, n = 0;

	while (lo < hi) {	/* the first row of the process */
		size_t mid = (lo + hi) / 2;

		if (by_thread(&v->trows[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = v->trows + lo;
	while (lo + n < v->ntrows && v->trows[lo + n].pid == p->pid)
		n++;
	return n;
}
