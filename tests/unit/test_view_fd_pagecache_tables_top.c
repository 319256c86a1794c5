// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The views of the counting families (lib/view): the fd view (fd tables
 * joined per process with the file_lock waits), the pagecache view
 * (files and processes merged over their rows, the i_pages lock joined)
 * the counter tables as recorded (each column's kind, keys as text) and
 * top's snapshot (two models, the interval's and the cumulative one,
 * joined by name).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fixtures_tables.h"
#include "fixtures_ulocks.h"
#include "view/view_fd.h"
#include "view/view_pagecache.h"
#include "view/view_tables.h"
#include "view/top_snap.h"
#include "format/store.h"

/* ---- the fd view ---- */

/* fd tables of two processes; 100 has a thread (103) that unshared its table. */
#define F1	0xffff888100010000ULL	/* files_struct of 100 */
#define F2	0xffff888100020000ULL	/* 103's own, after unshare */
#define F3	0xffff888100030000ULL	/* files_struct of 200 */
#define L1	(F1 + 0x40)		/* their file_locks */
#define L2	(F2 + 0x40)
#define L3	(F3 + 0x40)
#define OTHER_LOCK	0xffff888100099000ULL

struct fd_case {
	const char *mode;	/* the fd family's; NULL: not recorded */
	const char *missing, *why;
	bool locks;		/* the contention family recorded */
};

static const struct tcol fd_thread_cols[] = {
	{ "pid", TCOL_KEY }, { "tid", TCOL_KEY }, { "comm", TCOL_KEY_STR },
	{ "files", TCOL_KEY }, { "file_lock", TCOL_KEY }, { "syscalls", TCOL_SUM },
};
static const struct tcol fd_sys_cols[] = {
	{ "pid", TCOL_KEY }, { "tid", TCOL_KEY }, { "syscall", TCOL_KEY_STR }, { "calls", TCOL_SUM },
};
static const struct tcol fd_fget_cols[] = {
	{ "pid", TCOL_KEY }, { "tid", TCOL_KEY }, { "func", TCOL_KEY_STR },
	{ "calls", TCOL_SUM }, { "time_ns", TCOL_SUM }, { "max_ns", TCOL_MAX },
};
static const struct tschema fd_threads = { "fd.threads", 6, fd_thread_cols };
static const struct tschema fd_sys = { "fd.syscalls", 4, fd_sys_cols };
static const struct tschema fd_fget = { "fd.fget", 6, fd_fget_cols };

static void fd_tables(struct pwriter *w)
{
	uint64_t threads[][6] = {
		{ 100, 100, tptr("fdstorm"), F1, L1, 10 },
		{ 100, 101, tptr("fdstorm"), F1, L1, 500 },
		{ 100, 102, tptr("worker"), F1, L1, 400 },
		{ 100, 103, tptr("fdstorm"), F2, L2, 50 },
		{ 200, 200, tptr("cat"), F3, L3, 5 },
	};
	uint64_t sys[][4] = {
		{ 100, 101, tptr("dup"), 300 }, { 100, 102, tptr("dup"), 200 },
		{ 100, 101, tptr("close"), 200 }, { 100, 102, tptr("close"), 150 },
		{ 100, 100, tptr("read"), 10 }, { 100, 103, tptr("write"), 50 },
		{ 100, 102, tptr("fcntl"), 49 }, { 200, 200, tptr("read"), 5 },
	};
	uint64_t fget[][6] = {
		{ 100, 101, tptr("fget"), 100, 10000, 500 },
		{ 100, 102, tptr("fget_raw"), 50, 20000, 900 },
	};

	fxt_table(w, &fd_threads, &threads[0][0], 5);
	fxt_table(w, &fd_sys, &sys[0][0], 8);
	fxt_table(w, &fd_fget, &fget[0][0], 2);
}

static void fill_fd(struct pwriter *w, void *ctx)
{
	const struct fd_case *c = ctx;
	struct cont_row rows[3] = {
		fx_row(L1, -2, LCB_F_SPIN, LOCK_CLASS_NONE, 7, 7000, 500, 2000),
		fx_row(L2, -2, LCB_F_SPIN, LOCK_CLASS_NONE, 1, 100, 100, 100),
		fx_row(OTHER_LOCK, -2, LCB_F_SPIN, LOCK_CLASS_NONE, 99, 99000, 1000, 1000),
	};

	fxt_family(w, "locks", c->locks ? "tp_btf" : NULL, NULL, NULL);
	fxt_family(w, "fd", c->mode, c->missing, c->why);
	if (c->locks)
		assert_int_equal(pwriter__bucket(w, FX_BUCKET1_T0, FX_BUCKET1_T1, rows, 3), 0);
	if (c->mode)
		fd_tables(w);
}

static struct profile *fd_profile(const struct fd_case *c)
{
	struct pwriter_opts o = { 0 };

	return fxt_profile(o, fill_fd, (void *)c);
}

static void test_fd_view_joins(void **state)
{
	const struct fd_case c = { "tp_btf+fentry(fget,fget_raw)", NULL, NULL, true };
	struct fd_filter f = { .pid = -1 };
	struct profile *p = fd_profile(&c);
	const struct fd_thread_row *t;
	const struct fd_proc *a, *b;
	struct fd_view v;

	(void)state;
	assert_int_equal(fd_view__build(&v, p, &f), 0);
	assert_string_equal(v.sys_mode, "tp_btf");
	assert_string_equal(v.fget, "fentry(fget,fget_raw)");
	assert_null(v.fget_why);
	assert_true(v.locks && v.any_syscalls);
	assert_int_equal(v.n, 2);
	a = v.order[0];		/* most fd syscalls first */
	b = v.order[1];
	assert_int_equal(a->pid, 100);
	assert_int_equal(a->syscalls, 960);
	/* The table most calls used is the process's: 103 unshared its own. */
	assert_int_equal(a->files, F1);
	assert_int_equal(a->threads, 3);
	assert_string_equal(profile__str(p, a->comm), "fdstorm");
	assert_string_equal(profile__str(p, a->top[0].name), "dup");
	assert_int_equal(a->top[0].calls, 500);
	assert_string_equal(profile__str(p, a->top[1].name), "close");
	assert_string_equal(profile__str(p, a->top[2].name), "write");
	assert_int_equal(a->top[2].calls, 50);
	assert_int_equal(a->fget_calls, 150);
	assert_int_equal(a->fget_max_ns, 900);
	assert_int_equal(a->fget_avg_ns, 200);
	/* Both of its tables' file_locks, not the other lock. */
	assert_int_equal(a->contended, 8);
	assert_int_equal(a->wait_ns, 7100);
	assert_int_equal(a->syscalls_per_s, 192);	/* over 5 s */
	assert_int_equal(a->fget_per_s, 30);
	assert_true(fabs(a->wait_pct - 100.0 * 7100 / 5e9) < 1e-12);
	assert_int_equal(b->pid, 200);
	assert_int_equal(b->contended, 0);
	assert_int_equal(b->top[1].calls, 0);
	assert_int_equal(fd_view__threads(&v, a, &t), 4);
	assert_int_equal(t[0].tid, 100);
	assert_int_equal(t[3].tid, 103);
	assert_int_equal(t[3].files, F2);
	assert_int_equal(t[1].fget_calls, 100);
	assert_int_equal(fd_view__threads(&v, b, &t), 1);
	fd_view__free(&v);
	profile__free(p);
}

static void test_fd_view_fget_not_measured(void **state)
{
	const struct fd_case c = { "tp_btf", "fget", "fentry: refused", false };
	struct fd_filter f = { .pid = -1 };
	struct profile *p = fd_profile(&c);
	struct fd_view v;

	(void)state;
	assert_int_equal(fd_view__build(&v, p, &f), 0);
	assert_string_equal(v.sys_mode, "tp_btf");
	assert_null(v.fget);
	assert_string_equal(v.fget_why, "fentry: refused");
	assert_false(v.locks);
	assert_int_equal(v.order[0]->contended, 0);
	fd_view__free(&v);
	profile__free(p);
}

static void test_fd_view_filters(void **state)
{
	const struct fd_case c = { "tp_btf", NULL, NULL, true };
	struct profile *p = fd_profile(&c);
	struct fd_filter by_comm = { .comm = "c*", .pid = -1 }, by_pid = { .pid = 100 };
	struct fd_filter top = { .pid = -1, .top_n = 1 };
	struct fd_view v;

	(void)state;
	assert_int_equal(fd_view__build(&v, p, &by_comm), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.order[0]->pid, 200);
	fd_view__free(&v);
	assert_int_equal(fd_view__build(&v, p, &by_pid), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.order[0]->pid, 100);
	fd_view__free(&v);
	assert_int_equal(fd_view__build(&v, p, &top), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.order[0]->pid, 100);
	/* No fget information: why says so. */
	assert_string_equal(v.fget_why, "no fget information in this profile");
	fd_view__free(&v);
	profile__free(p);
}

static void test_fd_view_not_recorded(void **state)
{
	const struct fd_case c = { NULL, NULL, NULL, true };
	struct fd_filter f = { .pid = -1 };
	struct profile *p = fd_profile(&c);
	struct fd_view v;

	(void)state;
	assert_int_equal(fd_view__build(&v, p, &f), -ENOENT);
	assert_int_equal(v.probe.state, FSTATE_NOT_WANTED);
	fd_view__free(&v);
	profile__free(p);
}

/* ---- the pagecache view ---- */

#define DEV_A	((8ULL << 20) | 1)	/* 8:1 */
#define IPAGES_A	0xffff888100050000ULL
#define IPAGES_B	0xffff888100060000ULL

struct pc_case {
	const char *mode;	/* the pagecache family's; NULL: not recorded */
	bool tables;
};

#define PC_VALS	{ "added", TCOL_SUM }, { "evicted", TCOL_SUM }, { "removed", TCOL_SUM }, \
		{ "lookups", TCOL_SUM }, { "faults", TCOL_SUM }, { "map_pages", TCOL_SUM }, \
		{ "readahead", TCOL_SUM }

static const struct tcol pc_file_cols[] = {
	{ "dev", TCOL_KEY }, { "ino", TCOL_KEY }, { "path", TCOL_KEY_STR }, { "i_pages_lock", TCOL_KEY }, PC_VALS,
};
static const struct tcol pc_proc_cols[] = { { "pid", TCOL_KEY }, { "comm", TCOL_KEY_STR }, PC_VALS };
static const struct tschema pc_files = { "pagecache.files", 11, pc_file_cols };
static const struct tschema pc_procs = { "pagecache.procs", 9, pc_proc_cols };

static void pc_tables(struct pwriter *w)
{
	/* File 11 is seen first without its path (classic tracepoints), then with it. */
	uint64_t files[][11] = {
		{ DEV_A, 11, tptr(""), 0, 100, 0, 0, 400, 0, 0, 0 },
		{ DEV_A, 11, tptr("/data/a"), IPAGES_A, 28, 4, 0, 100, 1, 2, 64 },
		{ DEV_A, 12, tptr("/data/b"), IPAGES_B, 128, 0, 128, 0, 0, 0, 0 },
		{ DEV_A, 13, tptr("/data/c"), 0, 128, 0, 0, 1000, 0, 0, 0 },
	};
	uint64_t procs[][9] = {
		{ 300, tptr("tworead"), 256, 4, 128, 500, 1, 2, 64 },
		{ 301, tptr("kswapd0"), 0, 50, 0, 0, 0, 0, 0 },
	};

	fxt_table(w, &pc_files, &files[0][0], 4);
	fxt_table(w, &pc_procs, &procs[0][0], 2);
}

static void fill_pc(struct pwriter *w, void *ctx)
{
	const struct pc_case *c = ctx;
	struct cont_row rows[2] = {
		fx_row(IPAGES_A, -2, LCB_F_SPIN, LOCK_CLASS_NONE, 3, 300, 100, 100),
		fx_row(IPAGES_A, -2, LCB_F_SPIN | LCB_F_WRITE, LOCK_CLASS_NONE, 2, 50, 20, 30),
	};

	fxt_family(w, "locks", "tp_btf", NULL, NULL);
	fxt_family(w, "pagecache", c->mode, NULL, NULL);
	assert_int_equal(pwriter__bucket(w, FX_BUCKET1_T0, FX_BUCKET1_T1, rows, 2), 0);
	if (c->tables)
		pc_tables(w);
}

static struct profile *pc_profile(const struct pc_case *c)
{
	struct pwriter_opts o = { 0 };

	return fxt_profile(o, fill_pc, (void *)c);
}

static void test_pagecache_view_files(void **state)
{
	const struct pc_case c = { "tp_btf:add,delete,lookup,fault", true };
	struct profile *p = pc_profile(&c);
	struct pagecache_view v;
	const struct pc_entry *a, *b, *cc;

	(void)state;
	assert_int_equal(pagecache_view__build(&v, p), 0);
	assert_true(v.recorded && v.lookups_counted);
	assert_int_equal(v.files.n, 3);
	/* Most pages added first; a tie (128) goes to the most looked up. */
	cc = &v.files.e[0];
	a = &v.files.e[1];
	b = &v.files.e[2];
	assert_int_equal(a->id[1], 11);
	assert_int_equal(cc->id[1], 13);
	assert_int_equal(b->id[1], 12);
	/* Its two rows merged; the path and the lock from the row that had them. */
	assert_string_equal(a->name, "/data/a");
	assert_int_equal(a->lock, IPAGES_A);
	assert_int_equal(a->v[PC_ADDED], 128);
	assert_int_equal(a->v[PC_EVICTED], 4);
	assert_int_equal(a->v[PC_LOOKUPS], 500);
	assert_int_equal(a->v[PC_READAHEAD], 64);
	/* Both flags of its lock's rows. */
	assert_int_equal(a->contended, 5);
	assert_int_equal(a->wait_ns, 350);
	assert_true(fabs(a->hit_pct - 100.0 * (1 - 128.0 / 500)) < 1e-9);
	/* No lookups: no ratio; more added than looked up: 0, not negative. */
	assert_true(isnan(b->hit_pct));
	assert_int_equal(b->contended, 0);
	assert_true(fabs(cc->hit_pct - 100.0 * (1 - 128.0 / 1000)) < 1e-9);
	assert_int_equal(cc->lock, 0);
	assert_int_equal(v.procs.n, 2);
	assert_int_equal(v.procs.e[0].id[0], 300);
	assert_string_equal(v.procs.e[0].name, "tworead");
	assert_true(fabs(v.procs.e[0].hit_pct - 100.0 * (1 - 256.0 / 500)) < 1e-9);
	assert_string_equal(v.procs.e[1].name, "kswapd0");
	pagecache_view__free(&v);
	profile__free(p);
}

static void test_pagecache_view_no_lookups(void **state)
{
	const struct pc_case c = { "tracepoint:add,delete", true };
	struct profile *p = pc_profile(&c);
	struct pagecache_view v;

	(void)state;
	assert_int_equal(pagecache_view__build(&v, p), 0);
	assert_false(v.lookups_counted);
	/* The kernel could not count lookups: no hit ratio, even where a row has some. */
	assert_true(isnan(v.files.e[0].hit_pct));
	pagecache_view__free(&v);
	profile__free(p);
}

static void test_pagecache_view_absent(void **state)
{
	const struct pc_case none = { NULL, false }, quiet = { "tp_btf:add", false };
	struct profile *p = pc_profile(&none);
	struct pagecache_view v;

	(void)state;
	assert_int_equal(pagecache_view__build(&v, p), -ENOENT);
	pagecache_view__free(&v);
	profile__free(p);
	/* Recorded, nothing seen: an empty view, not an error. */
	p = pc_profile(&quiet);
	assert_int_equal(pagecache_view__build(&v, p), 0);
	assert_int_equal(v.files.n + v.procs.n, 0);
	pagecache_view__free(&v);
	profile__free(p);
}

/* ---- the counter tables as recorded ---- */

enum { TC_LOCK, TC_PID, TC_USTACK, TC_KSTACK, TC_NAME, TC_WAIT, TC_COUNT, TC__N };

static const struct tcol tv_cols[TC__N] = {
	[TC_LOCK] = { "lock", TCOL_KEY }, [TC_PID] = { "pid", TCOL_KEY },
	[TC_USTACK] = { "stack", TCOL_KEY_USTACK }, [TC_KSTACK] = { "kstack", TCOL_KEY_KSTACK },
	[TC_NAME] = { "name", TCOL_KEY_STR }, [TC_WAIT] = { "wait_ns", TCOL_SUM },
	[TC_COUNT] = { "count", TCOL_SUM },
};
static const struct tschema tv_schema = { "test.keys", TC__N, tv_cols };
static const struct tstack tv_kstack = { 2, { FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20 } };

static void fill_keys(struct pwriter *w, void *ctx)
{
	uint64_t rows[2][TC__N] = {
		{ STORM_LOCK, TGID, tptr(&fxu_waiter), tptr(&tv_kstack), tptr("storm_lock"), 1000, 10 },
		{ HEAP_LOCK, TGID, 0, 0, tptr(""), 5, 1 },	/* no stacks */
	};

	(void)ctx;
	fxt_table(w, &tv_schema, &rows[0][0], 2);
	assert_int_equal(pwriter__usyms(w), 0);
}

/* The row of t whose lock column holds lock. */
static const uint64_t *row_of(const struct ptable *t, uint64_t lock)
{
	const uint64_t *row;
	size_t it = 0;

	while ((row = htab_next(&t->rows, &it, NULL)))
		if (row[TC_LOCK] == lock)
			return row;
	fail_msg("no row for lock %#" PRIx64, lock);
	return NULL;
}

static void expect_col(const struct ptable *t, uint32_t c, const char *name, enum tshow show)
{
	struct tshown sh;

	table_view__col(t, c, &sh);
	assert_string_equal(sh.name, name);
	assert_int_equal(sh.show, show);
}

static void test_tables_view_keys(void **state)
{
	struct pwriter_opts o = { .resolve_user = fxu_resolve };
	const struct ptable *t;
	const uint64_t *row;
	struct profile *p;
	struct ksyms ks;
	char buf[256];

	(void)state;
	assert_int_equal(fx_ksyms(&ks), 0);
	o.ksyms = &ks;
	p = fxt_profile(o, fill_keys, NULL);
	t = profile__table(p, "test.keys");
	assert_non_null(t);
	expect_col(t, TC_LOCK, "lock", TSHOW_ADDR);
	expect_col(t, TC_PID, "pid", TSHOW_NUM);
	/* Stack columns are shown as who took the lock. */
	expect_col(t, TC_USTACK, "caller", TSHOW_TEXT);
	expect_col(t, TC_KSTACK, "caller", TSHOW_TEXT);
	expect_col(t, TC_NAME, "name", TSHOW_TEXT);
	expect_col(t, TC_WAIT, "wait_ns", TSHOW_NS);
	expect_col(t, TC_COUNT, "count", TSHOW_NUM);
	row = row_of(t, STORM_LOCK);
	assert_string_equal(table_view__key(p, t, row, TC_LOCK, buf, sizeof(buf)), "0x55d000004000");
	assert_string_equal(table_view__key(p, t, row, TC_PID, buf, sizeof(buf)), "42");
	/* The user stack's caller: past libc's lock functions, the program's storm_op, not an id. */
	assert_string_equal(table_view__key(p, t, row, TC_USTACK, buf, sizeof(buf)), "storm_op");
	assert_string_equal(table_view__key(p, t, row, TC_KSTACK, buf, sizeof(buf)), "alloc_fd+0x20");
	assert_string_equal(table_view__key(p, t, row, TC_NAME, buf, sizeof(buf)), "storm_lock");
	row = row_of(t, HEAP_LOCK);
	assert_string_equal(table_view__key(p, t, row, TC_USTACK, buf, sizeof(buf)), "[no stack]");
	assert_string_equal(table_view__key(p, t, row, TC_KSTACK, buf, sizeof(buf)), "[no stack]");
	profile__free(p);
	ksyms_free(&ks);
}

/* ---- top's snapshot ---- */

#define TOP_T1	1000000000ULL	/* the first interval ends here */

static void fill_top(struct pwriter *w, void *ctx)
{
	struct cont_row b1[1] = { fx_row(FX_FILES_LOCK_A, 1, LCB_F_SPIN, LOCK_CLASS_FILES_FILE_LOCK, 3, 3000, 500, 1500) };
	struct cont_row b2[2] = {
		fx_row(FX_FILES_LOCK_A, 1, LCB_F_SPIN, LOCK_CLASS_FILES_FILE_LOCK, 2, 4000, 1000, 3000),
		fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_READ, LOCK_CLASS_NONE, 1, 500, 500, 500),
	};
	uint64_t keys[1][TC__N] = {
		{ STORM_LOCK, TGID, tptr(&fxu_waiter), tptr(&tv_kstack), tptr("storm_lock"), 1000, 10 },
	};
	struct trows r = { .schema = &tv_schema, .n = 1, .v = &keys[0][0] };
	static const struct kv meta[] = { { (char *)"cpus", (char *)"2" } };

	(void)ctx;
	assert_int_equal(pwriter__meta(w, meta, 1), 0);
	fxt_family(w, "locks", "tp_btf", NULL, NULL);
	assert_int_equal(pwriter__bucket(w, 0, TOP_T1, b1, 1), 0);
	assert_int_equal(pwriter__bucket(w, TOP_T1, 2 * TOP_T1, b2, 2), 0);
	assert_int_equal(pwriter__table(w, TOP_T1, 2 * TOP_T1, &r), 0);
	assert_int_equal(pwriter__usyms(w), 0);
}

/* The file fed to m as top feeds it: a new interval where the second one starts. */
static void feed_top(struct top_model *m, const char *path)
{
	struct store_chunk ch;
	struct store_file f;
	const char *why = NULL;
	uint64_t pos, t0, t1;
	bool second = false;

	assert_int_equal(store_open(path, &f, &why), 0);
	assert_int_equal(top_model__set_header(m, &f.hdr), 0);
	pos = f.hdr.header_len;
	while (store_next_chunk(&f, &pos, &ch) == WALK_CHUNK) {
		if (!second && chunk_span(&ch, &t0, &t1) && t0 >= TOP_T1) {
			top_model__next_interval(m);
			second = true;
		}
		assert_int_equal(top_model__feed(m, &ch), 0);
	}
	assert_true(second);
	store_close(&f);
}

static const struct top_lock *top_lock(const struct top_snap *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlocks; i++)
		if (!strcmp(s->locks[i].name, name))
			return &s->locks[i];
	return NULL;
}

static void test_top_snapshot(void **state)
{
	struct pwriter_opts o = { .fetch_stack = fx_fetch_stack, .resolve_user = fxu_resolve };
	struct top_query q = { .tables = true, .detail = true, .detail_name = "files_struct.file_lock",
			       .detail_flags = LCB_F_SPIN };
	const struct top_lock *l;
	struct top_model m;
	struct top_snap *s;
	char path[64];
	struct ksyms ks;
	int fd;

	(void)state;
	assert_int_equal(fx_ksyms(&ks), 0);
	o.ksyms = &ks;
	fd = fx_tmpfile(path);
	assert_true(fd >= 0);
	close(fd);
	/* fxt_profile() writes and reads back; top reads the file itself. */
	profile__free(fxt_profile_at(o, fill_top, NULL, path));
	top_model__init(&m);
	feed_top(&m, path);
	unlink(path);
	assert_int_equal(top_snap__build(&s, &m, &q), 0);
	assert_int_equal(s->cpus, 2);
	assert_int_equal(s->iv_ns, TOP_T1);
	/* The lock of both intervals: in all 5, in the last one 2. */
	l = top_lock(s, "files_struct.file_lock");
	assert_non_null(l);
	assert_int_equal(l->cum.count, 5);
	assert_int_equal(l->cum.total_ns, 7000);
	assert_int_equal(l->iv.count, 2);
	assert_int_equal(l->iv.max_ns, 3000);
	assert_string_equal(l->caller, "alloc_fd+0x20");
	assert_true(s->detail == l && l->nstacks == 1 && l->stacks[0].nframes == 3);
	assert_string_equal(l->stacks[0].frames[1], "alloc_fd+0x20");
	assert_int_equal(s->locks_cum.count, 6);
	assert_int_equal(s->locks_iv.count, 3);
	/* A table's user stack is its caller, as in report. */
	assert_int_equal(s->ntables, 1);
	assert_string_equal(s->tables[0].key_names[2], "caller");
	assert_string_equal(s->tables[0].rows[0].keys[2], "storm_op");
	top_snap__free(s);
	/* A word filters inside names, as in report. */
	snprintf(q.lock, sizeof(q.lock), "file");
	assert_int_equal(top_snap__build(&s, &m, &q), 0);
	assert_int_equal(s->nlocks, 1);
	assert_non_null(top_lock(s, "files_struct.file_lock"));
	top_snap__free(s);
	top_model__free(&m);
	ksyms_free(&ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd_view_joins),
		cmocka_unit_test(test_fd_view_fget_not_measured),
		cmocka_unit_test(test_fd_view_filters),
		cmocka_unit_test(test_fd_view_not_recorded),
		cmocka_unit_test(test_pagecache_view_files),
		cmocka_unit_test(test_pagecache_view_no_lookups),
		cmocka_unit_test(test_pagecache_view_absent),
		cmocka_unit_test(test_tables_view_keys),
		cmocka_unit_test(test_top_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
