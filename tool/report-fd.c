// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --view fd: one row per process of the fd family's
 * tables (lib/record/collect_fd.c) joined with the lock rows. How many threads
 * share the process's fd table, how often they enter fd syscalls (and
 * which), what the fget family costs them where it was measured, and how
 * long they waited on that table's file_lock: the lock rows whose address
 * is one of the process's &files->file_lock.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/family_meta.h"
#include "base/log.h"
#include "report.h"

#define FD_TOP		3	/* syscalls named per process */

struct fd_top {
	uint32_t name;		/* string id */
	uint64_t calls;
};

struct fd_proc {
	uint32_t pid;
	uint32_t comm;		/* of its busiest thread row */
	uint64_t comm_calls;
	uint64_t files;		/* the fd table most of its syscalls used */
	uint64_t files_calls;
	uint64_t threads;	/* distinct tids that used that table */
	uint64_t syscalls;
	struct fd_top top[FD_TOP];
	uint64_t fget_calls;
	uint64_t fget_ns;
	uint64_t fget_max_ns;
	uint64_t contended;	/* on the file_locks of its tables */
	uint64_t wait_ns;
};

/* One thread, for the JSON detail. */
struct fd_thread_row {
	uint32_t pid;
	uint32_t tid;
	uint32_t comm;
	uint32_t __pad;
	uint64_t comm_calls;
	uint64_t files;
	uint64_t syscalls;
	uint64_t fget_calls;
};

struct pid_u64 {
	uint32_t pid;
	uint32_t __pad;
	uint64_t v;
};

struct fd_view {
	struct htab procs;	/* uint32 pid -> fd_proc */
	struct htab threads;	/* {pid, tid} -> fd_thread_row */
	struct htab tables;	/* pid_u64 {pid, files} -> uint64 syscalls */
	struct htab table_tids;	/* {pid, tid, files} -> (set) */
	struct htab file_locks;	/* pid_u64 {pid, file_lock} -> (set) */
	struct htab sys;	/* pid_u64 {pid, name id} -> uint64 calls */
	struct htab waits;	/* uint64 lock_addr -> uint64[2] count, total */
	struct fd_proc **order;
	size_t n;
	struct fd_thread_row *trows;	/* sorted by pid, tid */
	size_t ntrows;
	struct family_status probe;	/* the fd family's, as recorded */
	char sys_mode[32];	/* how the syscalls were counted */
	const char *fget;	/* how the fget family was measured */
	const char *fget_why;	/* or why it was not: NULL when it was */
	bool locks;		/* the contention family was recorded */
	double secs;
};

/* Column indexes of one table, looked up by name; -1 when absent. */
static bool cols_of(const struct ptable *t, const char *const *names, int *idx, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((idx[i] = ptable__col(t, names[i])) < 0)
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
	static const char *const names[] = { "pid", "tid", "comm", "files", "file_lock", "syscalls" };
	int c[6];
	const uint64_t *row;
	size_t it = 0;
	int err = 0;

	if (!cols_of(t, names, c, 6))
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
	static const char *const names[] = { "pid", "syscall", "calls" };
	const struct pid_u64 *k;
	const uint64_t *row;
	struct fd_proc *p;
	uint64_t *sum;
	size_t it = 0;
	int c[3];

	if (!t)
		return 0;
	if (!cols_of(t, names, c, 3))
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
	static const char *const names[] = { "pid", "tid", "calls", "time_ns", "max_ns" };
	const uint64_t *row;
	size_t it = 0;
	int c[5];

	if (!t)
		return 0;
	if (!cols_of(t, names, c, 5))
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
static int read_probe(struct fd_view *v, const struct report *r)
{
	struct family_status *st = &v->probe, locks;
	const char *plus;
	char line[600];

	family_meta_read(r->p, "fd", st);
	if (st->state != FSTATE_ATTACHED) {
		pr_err("%s has no fd data (probe.fd: %s): record with -e fd\n", r->o.input,
		       family_status_line(st, line, sizeof(line)));
		return -ENOENT;
	}
	plus = strchr(st->mode, '+');
	snprintf(v->sys_mode, sizeof(v->sys_mode), "%.*s",
		 plus ? (int)(plus - st->mode) : (int)strlen(st->mode), st->mode);
	if (plus)
		v->fget = plus + 1;
	else
		v->fget_why = !strcmp(st->missing, "fget") ? st->why : "no fget information in this profile";
	family_meta_read(r->p, "locks", &locks);
	v->locks = locks.state == FSTATE_ATTACHED;
	return 0;
}

static bool shown(const struct report *r, const struct fd_proc *p)
{
	if (r->o.hits.pid >= 0 && (int64_t)p->pid != r->o.hits.pid)
		return false;
	return !r->o.hits.comm || !fnmatch(r->o.hits.comm, profile__str(r->p, p->comm), 0);
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
static int order(struct fd_view *v, const struct report *r)
{
	struct fd_proc *p;
	struct fd_thread_row *t;
	size_t it = 0;

	v->order = calloc(v->procs.count + 1, sizeof(*v->order));
	v->trows = calloc(v->threads.count + 1, sizeof(*v->trows));
	if (!v->order || !v->trows)
		return -ENOMEM;
	while ((p = htab_next(&v->procs, &it, NULL)))
		if (shown(r, p))
			v->order[v->n++] = p;
	qsort(v->order, v->n, sizeof(*v->order), by_syscalls);
	if (r->o.top_n && r->o.top_n < v->n)
		v->n = r->o.top_n;
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

static void fd_view_free(struct fd_view *v)
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

static int fd_view_build(struct fd_view *v, const struct report *r)
{
	const struct ptable *threads = profile__table(r->p, "fd.threads");
	int err = read_probe(v, r);

	if (err)
		return err;
	v->secs = profile__duration_ns(r->p) / 1e9;
	if (!threads) {
		pr_warn("%s: no fd syscalls were seen from the recorded processes\n", r->o.input);
		return 0;
	}
	err = read_threads(v, threads);
	if (!err)
		err = read_syscalls(v, profile__table(r->p, "fd.syscalls"));
	if (!err)
		err = read_fget(v, profile__table(r->p, "fd.fget"));
	if (!err)
		err = read_waits(v, r->p);
	if (!err)
		err = order(v, r);
	if (err == -EINVAL)
		pr_err("%s: the fd tables lack a column this view needs\n", r->o.input);
	else if (err)
		pr_err("building the fd view: %s\n", strerror(-err));
	return err;
}

/* --- output: one column list for text, CSV and JSON --------------------------- */

enum {
	FD_PID, FD_COMM, FD_THREADS, FD_SYSCALLS, FD_SYSCALLS_RATE, FD_FGET, FD_FGET_RATE,
	FD_FGET_AVG, FD_FGET_MAX, FD_CONTENDED, FD_WAIT, FD_WAIT_PCT, FD_TOP_SYSCALLS, FD__COUNT,
};

static const struct out_col fd_cols[FD__COUNT] = {
	[FD_PID] = { "pid", "pid", COL_U64, 8, false },
	[FD_COMM] = { "comm", "comm", COL_STR, 16, true },
	[FD_THREADS] = { "threads", "threads", COL_U64, 7, false },
	[FD_SYSCALLS] = { "fd_syscalls", "fd syscalls", COL_U64, 11, false },
	[FD_SYSCALLS_RATE] = { "fd_syscalls_per_s", "/s", COL_U64, 10, false },
	[FD_FGET] = { "fget_calls", "fget", COL_U64, 10, false },
	[FD_FGET_RATE] = { "fget_per_s", "/s", COL_U64, 10, false },
	[FD_FGET_AVG] = { "fget_avg_ns", "fget avg", COL_NS, 9, false },
	[FD_FGET_MAX] = { "fget_max_ns", "fget max", COL_NS, 9, false },
	[FD_CONTENDED] = { "file_lock_contended", "file_lock", COL_U64, 10, false },
	[FD_WAIT] = { "file_lock_wait_ns", "wait", COL_NS, 10, false },
	[FD_WAIT_PCT] = { "file_lock_wait_pct", "%time", COL_PCT, 6, false },
	[FD_TOP_SYSCALLS] = { "top_syscalls", "top fd syscalls", COL_STR, 0, true },
};

static uint64_t per_sec(const struct fd_view *v, uint64_t n)
{
	return v->secs > 0 ? (uint64_t)(n / v->secs + 0.5) : 0;
}

/* "close:940616 dup:939986 read:2" */
static void top_text(const struct report *r, const struct fd_proc *p, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < FD_TOP && p->top[i].calls && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s:%" PRIu64, i ? " " : "",
				 profile__str(r->p, p->top[i].name), p->top[i].calls);
}

/* Whether column c has a value: fget and file_lock ones need their probes. */
static bool measured(const struct fd_view *v, int c)
{
	if (c >= FD_FGET && c <= FD_FGET_MAX)
		return !v->fget_why;
	if (c >= FD_CONTENDED && c <= FD_WAIT_PCT)
		return v->locks;
	return true;
}

static uint64_t cell_u64(const struct fd_view *v, const struct fd_proc *p, int c)
{
	switch (c) {
	case FD_PID: return p->pid;
	case FD_THREADS: return p->threads;
	case FD_SYSCALLS: return p->syscalls;
	case FD_SYSCALLS_RATE: return per_sec(v, p->syscalls);
	case FD_FGET: return p->fget_calls;
	case FD_FGET_RATE: return per_sec(v, p->fget_calls);
	case FD_FGET_AVG: return p->fget_calls ? p->fget_ns / p->fget_calls : 0;
	case FD_FGET_MAX: return p->fget_max_ns;
	case FD_CONTENDED: return p->contended;
	case FD_WAIT: return p->wait_ns;
	default: return 0;
	}
}

static double wait_pct(const struct fd_view *v, const struct fd_proc *p)
{
	return v->secs > 0 ? 100.0 * p->wait_ns / (v->secs * 1e9) : 0;
}

static void put_row(struct out_table *t, const struct report *r, const struct fd_view *v,
		    const struct fd_proc *p)
{
	char top[256];
	int c;

	out_table__row_begin(t, 0);
	for (c = 0; c < FD__COUNT; c++) {
		if (!measured(v, c)) {
			out_table__none(t);
		} else if (c == FD_COMM) {
			out_table__str(t, profile__str(r->p, p->comm));
		} else if (c == FD_TOP_SYSCALLS) {
			top_text(r, p, top, sizeof(top));
			out_table__str(t, top);
		} else if (c == FD_WAIT_PCT) {
			out_table__pct(t, wait_pct(v, p));
		} else if (fd_cols[c].type == COL_NS) {
			out_table__ns(t, cell_u64(v, p, c));
		} else {
			out_table__u64(t, cell_u64(v, p, c));
		}
	}
	out_table__row_end(t);
}

static void print_fd_header(const struct report *r, const struct fd_view *v)
{
	out_head__text(stdout, r->p, r->o.input);
	printf("# fd syscalls: %s; threads: those that entered one, sharing the process's fd table\n",
	       v->sys_mode);
	if (v->fget_why)
		printf("# fget: not measured on this kernel: %s\n", v->fget_why);
	else
		printf("# fget: %s\n", v->fget);
	if (!v->locks)
		printf("# file_lock: not measured (record with -e locks,fd)\n");
	printf("#\n");
}

static void table_fd(const struct report *r, const struct fd_view *v)
{
	struct out_table *t;
	size_t i;

	if (r->o.format == OUT_TEXT)
		print_fd_header(r, v);
	t = out_table__new(stdout, r->o.format, fd_cols, FD__COUNT);
	for (i = 0; t && i < v->n; i++)
		put_row(t, r, v, v->order[i]);
	out_table__free(t);
}

static void json_top(struct json_writer *jw, const struct report *r, const struct fd_proc *p)
{
	size_t i;

	jw_name(jw, fd_cols[FD_TOP_SYSCALLS].key);
	jw_start_array(jw);
	for (i = 0; i < FD_TOP && p->top[i].calls; i++) {
		jw_start_object(jw);
		jw_string_field(jw, "syscall", profile__str(r->p, p->top[i].name));
		jw_u64_field(jw, "calls", p->top[i].calls);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_threads(struct json_writer *jw, const struct report *r, const struct fd_view *v,
			 const struct fd_proc *p)
{
	struct fd_thread_row key = { .pid = p->pid }, *t;
	size_t lo = 0, hi = v->ntrows;
	char files[24];

	while (lo < hi) {	/* the first row of the process */
		size_t mid = (lo + hi) / 2;

		if (by_thread(&v->trows[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	jw_name(jw, "threads_detail");
	jw_start_array(jw);
	for (t = v->trows + lo; t < v->trows + v->ntrows && t->pid == p->pid; t++) {
		jw_start_object(jw);
		jw_u64_field(jw, "tid", t->tid);
		jw_string_field(jw, "comm", profile__str(r->p, t->comm));
		snprintf(files, sizeof(files), "0x%" PRIx64, t->files);	/* above 2^53: a string */
		jw_string_field(jw, "files", files);
		jw_bool_field(jw, "shares_fd_table", t->files == p->files);
		jw_u64_field(jw, "fd_syscalls", t->syscalls);
		if (v->fget_why)
			jw_null_field(jw, "fget_calls");
		else
			jw_u64_field(jw, "fget_calls", t->fget_calls);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_proc(struct json_writer *jw, const struct report *r, const struct fd_view *v,
		      const struct fd_proc *p)
{
	int c;

	jw_start_object(jw);
	for (c = 0; c < FD__COUNT; c++) {
		const char *key = fd_cols[c].key;

		if (!measured(v, c))
			jw_null_field(jw, key);
		else if (c == FD_COMM)
			jw_string_field(jw, key, profile__str(r->p, p->comm));
		else if (c == FD_TOP_SYSCALLS)
			json_top(jw, r, p);
		else if (c == FD_WAIT_PCT)
			jw_double_field(jw, key, wait_pct(v, p));
		else
			jw_u64_field(jw, key, cell_u64(v, p, c));
	}
	json_threads(jw, r, v, p);
	jw_end_object(jw);
}

static void json_probe(struct json_writer *jw, const struct fd_view *v)
{
	jw_name(jw, "fd_probe");
	jw_start_object(jw);
	jw_string_field(jw, "syscalls", v->sys_mode);
	jw_bool_field(jw, "fget_measured", !v->fget_why);
	jw_string_field(jw, "fget", v->fget);
	jw_string_field(jw, "fget_why", v->fget_why);
	jw_bool_field(jw, "file_lock_measured", v->locks);
	jw_end_object(jw);
}

static void json_fd(const struct report *r, const struct fd_view *v)
{
	struct json_writer *jw = jw_new(stdout, isatty(STDOUT_FILENO));
	size_t i;

	if (!jw)
		return;
	jw_start_object(jw);
	out_head__json(jw, r->p, r->o.input);
	out_lost__json(jw, r->p);
	json_probe(jw, v);
	jw_name(jw, "fd");
	jw_start_array(jw);
	for (i = 0; i < v->n; i++)
		json_proc(jw, r, v, v->order[i]);
	jw_end_array(jw);
	jw_end_object(jw);
	jw_free(jw);
}

int print_fd(const struct report *r)
{
	struct fd_view v;
	int err;

	fd_view_init(&v);
	err = fd_view_build(&v, r);
	if (!err && r->o.format == OUT_JSON)
		json_fd(r, &v);
	else if (!err)
		table_fd(r, &v);
	fd_view_free(&v);
	return err;
}
