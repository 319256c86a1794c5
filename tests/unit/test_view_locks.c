// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include "format/locktype.h"
#include "format/profile.h"
#include "view/match.h"
#include "view/view_locks.h"
#include "fixtures.h"

/* ---- lock types ---- */

static void test_lock_type_name(void **state)
{
	(void)state;
	assert_string_equal(lock_type_name(LCB_F_SPIN), "spinlock");
	assert_string_equal(lock_type_name(LCB_F_SPIN | LCB_F_READ), "rwlock:R");
	assert_string_equal(lock_type_name(LCB_F_SPIN | LCB_F_WRITE), "rwlock:W");
	assert_string_equal(lock_type_name(LCB_F_READ), "rwsem:R");
	assert_string_equal(lock_type_name(LCB_F_WRITE), "rwsem:W");
	assert_string_equal(lock_type_name(LCB_F_MUTEX), "mutex");
	assert_string_equal(lock_type_name(LCB_F_MUTEX | LCB_F_SPIN), "mutex:spin");
	assert_string_equal(lock_type_name(LCB_F_RT), "rtmutex");
	assert_string_equal(lock_type_name(LCB_F_RT | LCB_F_READ), "rwlock-rt:R");
	assert_string_equal(lock_type_name(LCB_F_RT | LCB_F_WRITE), "rwlock-rt:W");
	assert_string_equal(lock_type_name(LCB_F_PERCPU | LCB_F_READ), "pcpu-sem:R");
	assert_string_equal(lock_type_name(LCB_F_PERCPU | LCB_F_WRITE), "pcpu-sem:W");
	assert_string_equal(lock_type_name(0), "semaphore");
	assert_string_equal(lock_type_name(1u << 6), "unknown");
	assert_string_equal(lock_type_name(LCB_F_SPIN | LCB_F_READ | LCB_F_WRITE), "unknown");
	assert_string_equal(lock_type_name(UINT32_MAX), "unknown");
}

static void test_lock_type_matches(void **state)
{
	(void)state;
	/* A family matches each of its modes. */
	assert_true(lock_type_matches("rwsem", LCB_F_READ));
	assert_true(lock_type_matches("rwsem", LCB_F_WRITE));
	assert_false(lock_type_matches("rwsem", LCB_F_SPIN | LCB_F_READ));
	assert_false(lock_type_matches("rwsem", 0));
	assert_true(lock_type_matches("rwlock", LCB_F_SPIN | LCB_F_READ));
	assert_true(lock_type_matches("rwlock", LCB_F_SPIN | LCB_F_WRITE));
	assert_false(lock_type_matches("rwlock", LCB_F_SPIN));
	assert_false(lock_type_matches("rwlock", LCB_F_RT | LCB_F_READ));
	assert_true(lock_type_matches("pcpu-sem", LCB_F_PERCPU | LCB_F_READ));
	assert_true(lock_type_matches("pcpu-sem", LCB_F_PERCPU | LCB_F_WRITE));
	/* A mode matches only itself. */
	assert_true(lock_type_matches("rwsem:R", LCB_F_READ));
	assert_false(lock_type_matches("rwsem:R", LCB_F_WRITE));
	assert_true(lock_type_matches("rwsem:W", LCB_F_WRITE));
	assert_false(lock_type_matches("rwsem:W", LCB_F_READ));
	/* Whole names only, no prefixes. */
	assert_true(lock_type_matches("spinlock", LCB_F_SPIN));
	assert_false(lock_type_matches("spin", LCB_F_SPIN));
	assert_false(lock_type_matches("rw", LCB_F_READ));
	assert_false(lock_type_matches("rwsem:", LCB_F_READ));
	assert_false(lock_type_matches("", LCB_F_SPIN));
	assert_true(lock_type_matches("mutex", LCB_F_MUTEX));
	assert_false(lock_type_matches("mutex", LCB_F_SPIN));
	assert_true(lock_type_matches("semaphore", 0));
	assert_false(lock_type_matches("semaphore", LCB_F_READ));
}

static void test_lock_class_name(void **state)
{
	(void)state;
	assert_null(lock_class_name(LOCK_CLASS_NONE));
	assert_string_equal(lock_class_name(LOCK_CLASS_FILES_FILE_LOCK), "files_struct.file_lock");
	assert_string_equal(lock_class_name(LOCK_CLASS_MM_MMAP_LOCK), "mm_struct.mmap_lock");
	assert_string_equal(lock_class_name(LOCK_CLASS_SIGHAND_SIGLOCK), "sighand_struct.siglock");
	assert_string_equal(lock_class_name(LOCK_CLASS_RQ_LOCK), "rq.__lock");
	assert_null(lock_class_name(LOCK_CLASS__COUNT));
	assert_null(lock_class_name(UINT32_MAX));
}

/* ---- histogram quantiles ---- */

static void test_hist_quantile_one_slot(void **state)
{
	struct lock_row_val v = { 0 };
	double q;

	(void)state;
	assert_true(hist_quantile(&v, 0.5) == 0);

	v.count = 8;
	v.hist[10] = 8;
	v.min_ns = 1024;
	v.max_ns = 2047;
	for (q = 0.05; q < 1.0; q += 0.05) {
		uint64_t x = hist_quantile(&v, q);

		assert_true(x >= 1024 && x < 2048);
	}
	assert_true(hist_quantile(&v, 0.5) == 1536);
	assert_true(hist_quantile(&v, 0.0) == 1024);

	/* The exact extremes win over the slot's bounds. */
	v.min_ns = 1100;
	v.max_ns = 1900;
	assert_true(hist_quantile(&v, 0.0) == 1100);
	assert_true(hist_quantile(&v, 0.5) == 1536);
	assert_true(hist_quantile(&v, 1.0) == 1900);
	v.min_ns = 1600;
	v.max_ns = 1700;
	assert_true(hist_quantile(&v, 0.25) == 1600);
	assert_true(hist_quantile(&v, 0.99) == 1700);
}

static void test_hist_quantile_two_slots(void **state)
{
	struct lock_row_val v = { 0 };
	uint64_t x;

	(void)state;
	v.count = 20;
	v.hist[4] = 10;		/* [16, 32) */
	v.hist[20] = 10;	/* [1 MiB, 2 MiB) */
	v.min_ns = 16;
	v.max_ns = (1u << 21) - 1;
	x = hist_quantile(&v, 0.25);
	assert_true(x >= 16 && x < 32);
	assert_true(x == 24);
	x = hist_quantile(&v, 0.5);
	assert_true(x >= 16 && x <= 32);
	x = hist_quantile(&v, 0.75);
	assert_true(x >= (1u << 20) && x < (1u << 21));
	assert_true(x == (1u << 20) + (1u << 19));
	x = hist_quantile(&v, 0.99);
	assert_true(x >= (1u << 20) && x < (1u << 21));

	/* Uneven: 90% fast, p50 and p90 fast, p99 slow. */
	v.hist[4] = 90;
	assert_true(hist_quantile(&v, 0.5) < 32);
	assert_true(hist_quantile(&v, 0.9) <= 32);
	assert_true(hist_quantile(&v, 0.99) >= (1u << 20));
}

static void test_hist_quantile_monotonic(void **state)
{
	struct lock_row_val v = { 0 };
	uint64_t prev = 0;
	int i, step;

	(void)state;
	for (i = 0; i < LS_HIST_SLOTS; i += 3) {
		v.hist[i] = i % 7 + 1;
		v.count += v.hist[i];
	}
	v.min_ns = 1;
	v.max_ns = 1ULL << 39;
	for (step = 0; step <= 1000; step++) {
		uint64_t x = hist_quantile(&v, step / 1000.0);

		assert_true(x >= prev);
		assert_true(x >= v.min_ns && x <= v.max_ns);
		prev = x;
	}
	/* The top slot. */
	memset(&v, 0, sizeof(v));
	v.count = 1;
	v.hist[LS_HIST_SLOTS - 1] = 1;
	v.min_ns = 1ULL << (LS_HIST_SLOTS - 1);
	v.max_ns = 1ULL << LS_HIST_SLOTS;
	assert_true(hist_quantile(&v, 0.5) >= 1ULL << (LS_HIST_SLOTS - 1));
}

/*
 * A quantile is never outside the row's waits: not above a max of 0 (waits
 * under a nanosecond), not below the min where the row has no histogram
 * (a user lock's table without its columns), 0 only for no wait at all.
 */
static void test_hist_quantile_within_row(void **state)
{
	struct lock_row_val v = { 0 };

	(void)state;
	v.count = 3;
	v.hist[0] = 3;
	assert_true(hist_quantile(&v, 0.5) == 0);
	assert_true(hist_quantile(&v, 0.99) == 0);
	v.hist[0] = 0;
	v.min_ns = 500;
	v.max_ns = 900;
	assert_true(hist_quantile(&v, 0.5) == 500);
	assert_true(hist_quantile(&v, 0.99) >= 500 && hist_quantile(&v, 0.99) <= 900);
	/* a histogram past the max (weighed slots of a caller): clamped */
	v.hist[20] = 1;
	assert_true(hist_quantile(&v, 0.5) == 900);
	v.count = 0;
	assert_true(hist_quantile(&v, 0.5) == 0);
}

static void test_row_avg(void **state)
{
	struct lock_row_val v = { 0 };

	(void)state;
	assert_true(row_avg(&v) == 0);
	v.count = 4;
	v.total_ns = 1002;
	v.min_ns = 200;
	v.max_ns = 300;
	assert_true(row_avg(&v) == 250);
	/* a saturated total (weigh()): the average is unknown, never outside the waits */
	v.total_ns = UINT64_MAX;
	v.count = UINT64_MAX;
	assert_true(row_avg(&v) == 200);
}

static void test_sort_parse(void **state)
{
	static const struct { const char *s; enum lock_sort k; } ok[] = {
		{ "wait_total", SORT_WAIT_TOTAL }, { "contended", SORT_CONTENDED },
		{ "wait_max", SORT_WAIT_MAX }, { "wait_avg", SORT_WAIT_AVG },
		{ "wait_min", SORT_WAIT_MIN }, { "name", SORT_NAME },
		{ "acquired", SORT_ACQUIRED }, { "hold_total", SORT_HOLD_TOTAL }, { "hold_max", SORT_HOLD_MAX },
	};
	enum lock_sort k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		k = (enum lock_sort)-1;
		assert_int_equal(lock_sort_parse(ok[i].s, &k), 0);
		assert_int_equal(k, ok[i].k);
	}
	assert_false(lock_sort_by_hold(SORT_WAIT_TOTAL));
	assert_false(lock_sort_by_hold(SORT_NAME));
	assert_true(lock_sort_by_hold(SORT_ACQUIRED) && lock_sort_by_hold(SORT_HOLD_TOTAL) &&
		    lock_sort_by_hold(SORT_HOLD_MAX));
	k = SORT_NAME;
	assert_int_equal(lock_sort_parse("total", &k), -EINVAL);
	assert_int_equal(lock_sort_parse("", &k), -EINVAL);
	assert_int_equal(lock_sort_parse("Name", &k), -EINVAL);
	assert_int_equal(k, SORT_NAME);
}

/* ---- the locks view over a written profile ---- */

static int setup_profile(void **state)
{
	struct profile *p = NULL;
	char path[64], msg[256];
	uint8_t *data;
	size_t size;
	int err;

	data = fx_profile_bytes(path, &size);
	if (!data)
		return -1;
	free(data);
	err = profile__read(path, &p, msg, sizeof(msg));
	unlink(path);
	if (err)
		fprintf(stderr, "fixture: %s\n", msg);
	*state = p;
	return err ? -1 : 0;
}

static int teardown_profile(void **state)
{
	profile__free(*state);
	return 0;
}

static const struct lock_filter any = { .pid = -1 };

static const struct lock_entry *find_lock(const struct lock_view *v, const char *name, uint32_t flags)
{
	size_t i;

	for (i = 0; i < v->nlocks; i++)
		if (v->locks[i].flags == flags && !strcmp(lock_view__str(v, v->locks[i].name), name))
			return &v->locks[i];
	return NULL;
}

static void test_view_groups(void **state)
{
	const struct profile *p = *state;
	const struct lock_entry *e;
	struct lock_view v;

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	/* Eight rows, seven (name, type) pairs. */
	assert_int_equal(v.nlocks, 7);
	assert_true(v.total.count == 20);
	assert_true(v.total.total_ns == 262600);
	assert_true(v.total.min_ns == 100);
	assert_true(v.total.max_ns == 100000);

	/* Two addresses, two stacks, one caller: one lock. */
	e = find_lock(&v, "files_struct.file_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->v.count == 6);
	assert_true(e->v.total_ns == 16200);
	assert_true(e->v.min_ns == 200);
	assert_true(e->v.max_ns == 9000);
	assert_true(e->v.hist[13] == 1 && e->v.hist[7] == 1 && e->v.hist[10] == 1);
	assert_int_equal(e->ncallers, 1);
	assert_string_equal(profile__str(p, e->callers[0].caller), "alloc_fd+0x20");
	assert_true(e->callers[0].v.count == 6);
	assert_true(e->callers[0].v.total_ns == 16200);
	assert_int_equal(e->nstacks, 2);
	assert_true(e->stacks[0].stack_id != e->stacks[1].stack_id);
	assert_true(e->stacks[0].v.count + e->stacks[1].v.count == 6);

	/* One name, two types: two locks. */
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN | LCB_F_READ);
	assert_non_null(e);
	assert_true(e->v.count == 2 && e->v.total_ns == 20000);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN | LCB_F_WRITE);
	assert_non_null(e);
	assert_true(e->v.count == 1 && e->v.total_ns == 6000);
	e = find_lock(&v, "0xffff888100003000@do_sys_open", LCB_F_READ);
	assert_non_null(e);
	assert_true(e->v.count == 5);
	assert_int_equal(e->ncallers, 1);
	assert_string_equal(profile__str(p, e->callers[0].caller), "[stack lost]");
	assert_int_equal(e->nstacks, 1);
	assert_int_equal(e->stacks[0].stack_id, -1);
	e = find_lock(&v, "0xffff888100003000@do_sys_open", LCB_F_WRITE);
	assert_non_null(e);
	assert_string_equal(profile__str(p, e->callers[0].caller), "do_sys_open+0x44");

	assert_non_null(find_lock(&v, "0xffff888100002000@alloc_fd", LCB_F_MUTEX));
	assert_non_null(find_lock(&v, "rq.__lock", LCB_F_SPIN));
	lock_view__free(&v);
	assert_int_equal(v.nlocks, 0);
	assert_null(v.locks);
}

/* Sort, then compare the order of (name, flags) with the expected one. */
static void expect_order(const struct profile *p, enum lock_sort key,
			 const char *const *names, const uint32_t *flags, size_t n)
{
	struct lock_view v;
	size_t i;

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	lock_view__sort(&v, key);
	assert_int_equal(v.nlocks, n);
	for (i = 0; i < n; i++) {
		const char *got = lock_view__str(&v, v.locks[i].name);

		if (strcmp(got, names[i]) || v.locks[i].flags != flags[i])
			fail_msg("sort %d, position %zu: got %s/%u, want %s/%u", key, i,
				 got, v.locks[i].flags, names[i], flags[i]);
	}
	lock_view__free(&v);
}

#define ANON_MUTEX	"0xffff888100002000@alloc_fd"
#define ANON_RWSEM	"0xffff888100003000@do_sys_open"
#define FILES		"files_struct.file_lock"
#define TASKLIST	"tasklist_lock"
#define RQ		"rq.__lock"
#define SR		(LCB_F_SPIN | LCB_F_READ)
#define SW		(LCB_F_SPIN | LCB_F_WRITE)

static void test_view_sort(void **state)
{
	const struct profile *p = *state;
	static const char *const by_total[] = { ANON_MUTEX, ANON_RWSEM, ANON_RWSEM, TASKLIST, FILES, TASKLIST, RQ };
	static const uint32_t by_total_f[] = { LCB_F_MUTEX, LCB_F_WRITE, LCB_F_READ, SR, LCB_F_SPIN, SW, LCB_F_SPIN };
	/* Ties (three locks contended once) go by name. */
	static const char *const by_count[] = { FILES, ANON_RWSEM, RQ, TASKLIST, ANON_MUTEX, ANON_RWSEM, TASKLIST };
	static const uint32_t by_count_f[] = { LCB_F_SPIN, LCB_F_READ, LCB_F_SPIN, SR, LCB_F_MUTEX, LCB_F_WRITE, SW };
	/* By name, then by type. */
	static const char *const by_name[] = { ANON_MUTEX, ANON_RWSEM, ANON_RWSEM, FILES, RQ, TASKLIST, TASKLIST };
	static const uint32_t by_name_f[] = { LCB_F_MUTEX, LCB_F_READ, LCB_F_WRITE, LCB_F_SPIN, LCB_F_SPIN, SR, SW };
	static const char *const by_max[] = { ANON_MUTEX, ANON_RWSEM, ANON_RWSEM, TASKLIST, FILES, TASKLIST, RQ };
	static const uint32_t by_max_f[] = { LCB_F_MUTEX, LCB_F_WRITE, LCB_F_READ, SR, LCB_F_SPIN, SW, LCB_F_SPIN };
	static const char *const by_min[] = { ANON_MUTEX, ANON_RWSEM, TASKLIST, TASKLIST, ANON_RWSEM, FILES, RQ };
	static const uint32_t by_min_f[] = { LCB_F_MUTEX, LCB_F_WRITE, SR, SW, LCB_F_READ, LCB_F_SPIN, LCB_F_SPIN };
	/* rwsem:R and tasklist:R tie at 10000 ns on average. */
	static const char *const by_avg[] = { ANON_MUTEX, ANON_RWSEM, ANON_RWSEM, TASKLIST, TASKLIST, FILES, RQ };
	static const uint32_t by_avg_f[] = { LCB_F_MUTEX, LCB_F_WRITE, LCB_F_READ, SR, SW, LCB_F_SPIN, LCB_F_SPIN };

	expect_order(p, SORT_WAIT_TOTAL, by_total, by_total_f, 7);
	expect_order(p, SORT_CONTENDED, by_count, by_count_f, 7);
	expect_order(p, SORT_NAME, by_name, by_name_f, 7);
	expect_order(p, SORT_WAIT_MAX, by_max, by_max_f, 7);
	expect_order(p, SORT_WAIT_MIN, by_min, by_min_f, 7);
	expect_order(p, SORT_WAIT_AVG, by_avg, by_avg_f, 7);
}

/* Build with a filter; return the number of locks and the total count. */
static size_t filtered(const struct profile *p, const struct lock_filter *f, uint64_t *count)
{
	struct lock_view v;
	size_t n;

	assert_int_equal(lock_view__build(&v, p, f), 0);
	n = v.nlocks;
	if (count)
		*count = v.total.count;
	lock_view__free(&v);
	return n;
}

static void test_view_filters(void **state)
{
	const struct profile *p = *state;
	struct lock_filter f;
	uint64_t count;

	/* --lock: a glob over the whole lock name, a word anywhere inside it (view/match.h). */
	f = any;
	f.lock = "tasklist*";
	assert_int_equal(filtered(p, &f, &count), 2);
	assert_true(count == 3);
	f.lock = "files_struct.*";
	assert_int_equal(filtered(p, &f, &count), 1);
	assert_true(count == 6);
	f.lock = "0x*@alloc_fd";
	assert_int_equal(filtered(p, &f, NULL), 1);
	f.lock = "tasklist";
	assert_int_equal(filtered(p, &f, NULL), 2);
	f.lock = "tasklist_lock_";
	assert_int_equal(filtered(p, &f, NULL), 0);

	/* --type: lock_type_matches(). */
	f = any;
	f.type = "rwsem";
	assert_int_equal(filtered(p, &f, &count), 2);
	assert_true(count == 6);
	f.type = "rwsem:R";
	assert_int_equal(filtered(p, &f, &count), 1);
	assert_true(count == 5);
	f.type = "rwlock";
	assert_int_equal(filtered(p, &f, NULL), 2);
	f.type = "spinlock";
	assert_int_equal(filtered(p, &f, &count), 2);
	assert_true(count == 10);
	f.type = "rtmutex";
	assert_int_equal(filtered(p, &f, NULL), 0);

	/* --caller: a glob over the caller. */
	f = any;
	f.caller = "alloc_fd*";
	assert_int_equal(filtered(p, &f, &count), 2);
	assert_true(count == 7);
	f.caller = "do_sys_open+0x44";
	assert_int_equal(filtered(p, &f, NULL), 4);
	f.caller = "*stack lost*";
	assert_int_equal(filtered(p, &f, NULL), 1);
	f.caller = "alloc_fd";	/* inside "alloc_fd+0x20", as top's filter does */
	assert_int_equal(filtered(p, &f, NULL), 2);

	/* Filters combine. */
	f = any;
	f.type = "rwlock";
	f.caller = "do_sys_open*";
	f.lock = "task*";
	assert_int_equal(filtered(p, &f, NULL), 2);
	f.type = "rwlock:W";
	assert_int_equal(filtered(p, &f, &count), 1);
	assert_true(count == 1);

	/* Per task. */
	f = any;
	f.comm = "work*";
	assert_int_equal(filtered(p, &f, NULL), 1);
	f = any;
	f.pid = 100;
	assert_int_equal(filtered(p, &f, NULL), 1);
	f.pid = 101;
	assert_int_equal(filtered(p, &f, NULL), 1);
	f.pid = 102;
	assert_int_equal(filtered(p, &f, NULL), 0);
}

/*
 * One lock taken from two callers through three stacks: callers merge
 * across stacks, and both lists sort by the view's key.
 */
/* A profile of one lock's rows, written and read back. */
static struct profile *rows_profile(struct cont_row *rows, size_t n)
{
	const struct cont_row *buckets[1] = { rows };
	struct profile *p = fx_written(buckets, &n, 1, 1);

	assert_non_null(p);
	return p;
}

static void test_view_callers(void **state)
{
	struct cont_row rows[3];
	const struct lock_entry *e;
	struct lock_view v;
	struct profile *p;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 1, 100, 100, 100);
	rows[1] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN, 0, 5, 50, 10, 10);
	rows[2] = fx_row(FX_TASKLIST_LOCK, 3, LCB_F_SPIN, 0, 2, 500, 200, 300);
	p = rows_profile(rows, 3);

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	assert_int_equal(v.nlocks, 1);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->v.count == 8);
	assert_int_equal(e->ncallers, 2);
	assert_int_equal(e->nstacks, 3);

	lock_view__sort(&v, SORT_WAIT_TOTAL);
	assert_string_equal(profile__str(p, e->callers[0].caller), "alloc_fd+0x20");
	assert_true(e->callers[0].v.count == 3);
	assert_true(e->callers[0].v.total_ns == 600);
	assert_true(e->callers[0].v.min_ns == 100);
	assert_true(e->callers[0].v.max_ns == 300);
	assert_string_equal(profile__str(p, e->callers[1].caller), "do_sys_open+0x44");
	assert_int_equal(e->stacks[0].stack_id, 3);
	assert_int_equal(e->stacks[1].stack_id, 1);
	assert_int_equal(e->stacks[2].stack_id, 2);

	lock_view__sort(&v, SORT_CONTENDED);
	assert_string_equal(profile__str(p, e->callers[0].caller), "do_sys_open+0x44");
	assert_true(e->callers[0].v.count == 5);
	assert_int_equal(e->stacks[0].stack_id, 2);
	assert_int_equal(e->stacks[1].stack_id, 3);
	assert_int_equal(e->stacks[2].stack_id, 1);

	lock_view__free(&v);
	profile__free(p);
}

/* ---- anonymous locks: named by the function with the most waits ---- */

#define FX_ANON_ONLY_UNSAMPLED	0xffff888100004000ULL

/* A profile of these buckets of rows, with the fixture's symbols; NULL on error. */
static struct profile *written_named(const struct cont_row *const *buckets, const size_t *n, size_t nbuckets,
				     fx_found_fn found)
{
	return fx_written_named(buckets, n, nbuckets, 1, found);
}

static struct profile *written(const struct cont_row *const *buckets, const size_t *n, size_t nbuckets)
{
	return written_named(buckets, n, nbuckets, NULL);
}

static void anon_rows(struct cont_row *first, struct cont_row *later)
{
	/* Seen first from do_sys_open (2 waits); alloc_fd waits 1005 times later. */
	first[0] = fx_row(FX_ANON_MUTEX, 2, LCB_F_MUTEX, 0, 2, 200, 100, 100);
	later[0] = fx_row(FX_ANON_MUTEX, 1, LCB_F_MUTEX, 0, 1000, 100000, 100, 100);
	later[1] = fx_row(FX_ANON_MUTEX, 3, LCB_F_MUTEX, 0, 5, 500, 100, 100);
	/* A tie, 4 and 4: the first function in byte order; unsampled waits have no function. */
	later[2] = fx_row(FX_ANON_RWSEM, 2, LCB_F_READ, 0, 4, 400, 100, 100);
	later[3] = fx_row(FX_ANON_RWSEM, 1, LCB_F_READ, 0, 4, 400, 100, 100);
	later[4] = fx_row(FX_ANON_RWSEM, LS_STACK_UNSAMPLED, LCB_F_READ, 0, 9000, 900000, 100, 100);
	later[5] = fx_row(FX_ANON_ONLY_UNSAMPLED, LS_STACK_UNSAMPLED, LCB_F_SPIN, 0, 7, 700, 100, 100);
}

static void test_view_anon_busiest(void **state)
{
	struct cont_row first[1], later[6];
	const struct cont_row *buckets[] = { first, later };
	const size_t n[] = { 1, 6 };
	struct profile *p;
	struct lock_view v;

	(void)state;
	anon_rows(first, later);
	p = written(buckets, n, 2);
	assert_non_null(p);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	assert_non_null(find_lock(&v, "0xffff888100002000@alloc_fd", LCB_F_MUTEX));
	assert_null(find_lock(&v, "0xffff888100002000@do_sys_open", LCB_F_MUTEX));
	assert_non_null(find_lock(&v, "0xffff888100003000@alloc_fd", LCB_F_READ));
	assert_non_null(find_lock(&v, "0xffff888100004000", LCB_F_SPIN));
	assert_int_equal(v.nlocks, 3);
	lock_view__free(&v);
	profile__free(p);
}

/* Two elements of one array, as lockname or a System.map would name them. */
static int array_found(void *ctx, uint64_t addr, char *buf, size_t len)
{
	(void)ctx;
	if (addr != FX_ANON_MUTEX && addr != FX_ANON_RWSEM)
		return -ENOENT;
	snprintf(buf, len, "bit_wait_table[%d]", addr == FX_ANON_MUTEX ? 3 : 7);
	return 0;
}

/* --fold-arrays: table[3] and table[7] are one row, table[], their waits added. */
static void test_view_fold_arrays(void **state)
{
	struct cont_row rows[3] = {
		fx_row(FX_ANON_MUTEX, 1, LCB_F_SPIN, 0, 2, 300, 100, 200),
		fx_row(FX_ANON_RWSEM, 1, LCB_F_SPIN, 0, 3, 3000, 50, 2000),
		fx_row(FX_ANON_RWSEM, 2, LCB_F_SPIN, 0, 1, 40, 40, 40),
	};
	const struct cont_row *buckets[] = { rows };
	const size_t n[] = { 3 };
	struct lock_filter fold = { .pid = -1, .fold_arrays = true };
	const struct lock_entry *e;
	struct profile *p;
	struct lock_view v;

	(void)state;
	p = written_named(buckets, n, 1, array_found);
	assert_non_null(p);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	assert_int_equal(v.nlocks, 2);
	assert_non_null(find_lock(&v, "bit_wait_table[3]", LCB_F_SPIN));
	assert_non_null(find_lock(&v, "bit_wait_table[7]", LCB_F_SPIN));
	lock_view__free(&v);
	assert_int_equal(lock_view__build(&v, p, &fold), 0);
	assert_int_equal(v.nlocks, 1);
	e = find_lock(&v, "bit_wait_table[]", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->v.count == 6);
	assert_true(e->v.total_ns == 3340);
	assert_true(e->v.min_ns == 40);
	assert_true(e->v.max_ns == 2000);
	assert_int_equal(e->ncallers, 2);
	lock_view__free(&v);
	profile__free(p);
}

/*
 * Sampled rows (p = 1, 1/4, 1/2): the callers are estimates (3 + 4 + 4 =
 * 11 waits of the 6 counted), the lock exact; the rows an export draws are
 * the estimates' shares of the lock's exact figures, which they add up to.
 */
static void test_view_rows_add_up(void **state)
{
	struct cont_row rows[4];
	const struct lock_entry *e;
	struct lock_view v;
	struct profile *p;
	uint64_t count = 0, ns = 0;
	size_t i;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 3, 3000, 1000, 1000);
	rows[1] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN, 0, 1, 100, 100, 100);
	rows[1].key.shift = 2;
	rows[2] = fx_row(FX_TASKLIST_LOCK, 3, LCB_F_SPIN, 0, 2, 400, 200, 200);
	rows[2].key.shift = 1;
	/* a lock none of whose waits carried a stack: one row, exact, no caller */
	rows[3] = fx_row(FX_ANON_MUTEX, LS_STACK_UNSAMPLED, LCB_F_SPIN, 0, 2, 70, 30, 40);
	rows[3].key.shift = 3;
	p = rows_profile(rows, 4);
	assert_int_equal(lock_view__build_rows(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->estimated);
	assert_true(e->v.count == 6 && e->v.total_ns == 3500);
	assert_int_equal(v.nrows, 4);
	assert_true(v.rows[3].k.stack_id == LS_STACK_UNSAMPLED);
	assert_true(v.rows[3].v.count == 2 && v.rows[3].v.total_ns == 70);
	for (i = 0; i < 3; i++) {
		count += v.rows[i].v.count;
		ns += v.rows[i].v.total_ns;
		/* the rows estimated 3000, 400 and 800 ns: 4200 in all */
		assert_true(v.rows[i].v.total_ns <= 3500 * 3000 / 4200 + 1);
	}
	assert_true(count == 6);
	assert_true(ns == 3500);
	lock_view__free(&v);

	/*
	 * The view itself keeps the callers' Horvitz-Thompson estimates, but
	 * for alloc_fd's 7 (3800 ns) over the lock's 6 (3500 ns): those
	 * shrink by 6 / 7 to 6, and 3257 ns, which is less than its sampled
	 * waits' 3400 ns: 3400.
	 */
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	count = 0;
	for (i = 0; i < e->ncallers; i++) {
		const struct lock_row_val *c = &e->callers[i].v;

		count += c->count;
		if (!strcmp(lock_view__str(&v, e->callers[i].caller), "alloc_fd+0x20"))
			assert_true(c->count == 6 && c->total_ns == 3400);
	}
	assert_true(count == 10);
	lock_view__free(&v);
	profile__free(p);
}

/* min <= avg <= max and p50 <= p99 <= max, with the min and avg of a row that has waits. */
static void assert_consistent(const struct lock_row_val *v, const char *what)
{
	uint64_t avg = row_avg(v), p50 = hist_quantile(v, 0.50), p99 = hist_quantile(v, 0.99);

	if (!v->count)
		return;
	if (v->min_ns > avg || avg > v->max_ns || p50 > p99 || p99 > v->max_ns || p50 < v->min_ns)
		fail_msg("%s: count %llu total %llu: min %llu avg %llu max %llu p50 %llu p99 %llu", what,
			 (unsigned long long)v->count, (unsigned long long)v->total_ns,
			 (unsigned long long)v->min_ns, (unsigned long long)avg, (unsigned long long)v->max_ns,
			 (unsigned long long)p50, (unsigned long long)p99);
}

static const struct lock_part *find_caller(const struct lock_view *v, const struct lock_entry *e,
					   const char *name)
{
	size_t i;

	for (i = 0; i < e->ncallers; i++)
		if (!strcmp(lock_view__str(v, e->callers[i].caller), name))
			return &e->callers[i];
	return NULL;
}

static void assert_same_part(const struct lock_entry *e, const struct lock_part *a,
			     const struct lock_entry *fe, const struct lock_part *b)
{
	double lo[2], hi[2];
	int w;

	assert_true(a->v.count == b->v.count && a->v.total_ns == b->v.total_ns);
	assert_true(a->v.min_ns == b->v.min_ns && a->v.max_ns == b->v.max_ns);
	assert_memory_equal(a->v.hist, b->v.hist, sizeof(a->v.hist));
	for (w = 0; w < 2; w++) {
		lock_part__ci95(e, a, w, &lo[0], &hi[0]);
		lock_part__ci95(fe, b, w, &lo[1], &hi[1]);
		assert_true(lo[0] == lo[1] && hi[0] == hi[1]);
		/* the interval holds its estimate */
		assert_true(lo[0] <= (w ? (double)a->v.total_ns : (double)a->v.count));
		assert_true(hi[0] >= (w ? (double)a->v.total_ns : (double)a->v.count));
	}
}

/*
 * A lock whose waits without a stack are long and whose sampled ones are
 * short: scaling the callers' totals to the lock's exact total (as the
 * view once did, leaving their counts, max and histogram alone) gave
 * alloc_fd an average of 25 us over a max of 100 ns. Every caller and
 * stack is now one estimate, sum 1/p and sum wait/p, whose average lies
 * within its sampled waits, and a caller filter changes none of them.
 */
static void test_view_estimates_consistent(void **state)
{
	struct lock_filter only = any;
	const struct lock_entry *e, *fe;
	const struct lock_part *c, *fc;
	struct cont_row rows[4];
	struct lock_view v, fv;
	struct profile *p;
	size_t i;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, LS_STACK_UNSAMPLED, LCB_F_SPIN, 0, 100, 500000, 1000, 20000);
	rows[0].val.hist[12] = 100;
	rows[1] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 3, 300, 100, 100);	/* alloc_fd */
	rows[1].key.shift = 2;
	rows[1].val.hist[6] = 3;
	rows[1].val.sumsq_lo = 3 * 100 * 100;
	rows[2] = fx_row(FX_TASKLIST_LOCK, 3, LCB_F_SPIN, 0, 1, 90, 90, 90);	/* alloc_fd too */
	rows[2].key.shift = 3;
	rows[2].val.hist[6] = 1;
	rows[2].val.sumsq_lo = 90 * 90;
	rows[3] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN, 0, 2, 400, 150, 250);	/* do_sys_open */
	rows[3].key.shift = 1;
	rows[3].val.hist[7] = 2;
	rows[3].val.sumsq_lo = 150 * 150 + 250 * 250;
	p = rows_profile(rows, 4);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->estimated);
	assert_true(e->v.count == 106 && e->v.total_ns == 500790);
	c = find_caller(&v, e, "alloc_fd+0x20");
	assert_non_null(c);
	/* 3 waits at p = 1/4, 1 at 1/8: 20 waits, 1920 ns */
	assert_true(c->v.count == 20 && c->v.total_ns == 1920);
	assert_true(c->v.min_ns == 90 && c->v.max_ns == 100);
	assert_true(c->est.sampled == 4 && c->est.sampled_ns == 390);
	for (i = 0; i < e->ncallers; i++)
		assert_consistent(&e->callers[i].v, lock_view__str(&v, e->callers[i].caller));
	for (i = 0; i < e->nstacks; i++)
		assert_consistent(&e->stacks[i].v, "a stack");
	assert_consistent(&e->v, "the lock");
	assert_consistent(&v.total, "the total");

	only.caller = "alloc_fd*";
	assert_int_equal(lock_view__build(&fv, p, &only), 0);
	fe = find_lock(&fv, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(fe);
	fc = find_caller(&fv, fe, "alloc_fd+0x20");
	assert_non_null(fc);
	assert_same_part(e, c, fe, fc);
	/* the lock: its matching callers' estimates, the interval's ceiling still its exact figures */
	assert_true(fe->v.count == 20 && fe->all.count == 106 && fe->all.wait_ns == 500790);
	assert_consistent(&fe->v, "the filtered lock");
	assert_consistent(&fv.total, "the filtered total");
	lock_view__free(&fv);
	lock_view__free(&v);
	profile__free(p);
}

/*
 * Thinned stacks (META stack_thin_ns 65536, slot 16): a row without a
 * stack at shift 0 no longer has an unknown chance. Its waits in slot 8
 * (256-511 ns) each had 2^-8, those in slot 10 2^-6: the lock's
 * variance over them is (2^8 - 1) per wait of slot 8 and (2^6 - 1) per
 * wait of slot 10, each at most its slot's top, squared. A row drawn at
 * p = 2^-7 had 2^-7 in slot 10 (thinning only lowers a chance above
 * 2^-6 there). Without the key the rows' chance at shift 0 is unknown.
 */
static void test_view_thinned_variance(void **state)
{
	const struct kv thin = { "stack_thin_ns", "65536" };
	const struct cont_row *buckets[1];
	const struct lock_entry *e;
	struct cont_row rows[3];
	struct lock_view v;
	struct profile *p;
	size_t n = 3;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, LS_STACK_UNSAMPLED, LCB_F_SPIN, 0, 12, 5000, 300, 1500);
	rows[0].val.hist[8] = 10;
	rows[0].val.hist[10] = 2;
	rows[1] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 1, 400, 400, 400);
	rows[1].key.shift = 8;
	rows[1].val.hist[8] = 1;
	rows[1].val.sumsq_lo = 400 * 400;
	rows[2] = fx_row(FX_TASKLIST_LOCK, LS_STACK_UNSAMPLED, LCB_F_SPIN, 0, 1, 1200, 1200, 1200);
	rows[2].key.shift = 7;
	rows[2].val.hist[10] = 1;
	buckets[0] = rows;
	p = fx_written_meta(buckets, &n, 1, 1, NULL, &thin, 1);
	assert_non_null(p);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_false(e->sum_var.unknown);
	assert_true(fabs(e->sum_var.count - (255.0 * 1 + 255.0 * 10 + 63.0 * 2 + 127.0)) < 1e-6);
	assert_true(fabs(e->sum_var.wait - (255.0 * 400 * 400 + 255.0 * 10 * 512 * 512 + 63.0 * 2 * 1500 * 1500 +
					    127.0 * 1200 * 1200)) < 1);
	lock_view__free(&v);
	profile__free(p);

	p = fx_written(buckets, &n, 1, 1);
	assert_non_null(p);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->sum_var.unknown);
	lock_view__free(&v);
	profile__free(p);
}

/*
 * A caller that has most of a lock's waits, few of them sampled: its
 * estimate (16 waits, 1600 ns) passes the lock's exact figures (10,
 * 1000 ns). It shrinks to them by one factor, its average (100 ns)
 * unchanged, and its interval holds it within what is certain.
 */
static void test_view_estimate_over_lock(void **state)
{
	struct cont_row rows[2];
	const struct lock_entry *e;
	struct lock_view v;
	struct profile *p;
	double lo, hi;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, LS_STACK_UNSAMPLED, LCB_F_SPIN, 0, 8, 800, 100, 100);
	rows[0].key.shift = 3;
	rows[1] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 2, 200, 100, 100);
	rows[1].key.shift = 3;
	rows[1].val.sumsq_lo = 2 * 100 * 100;
	p = rows_profile(rows, 2);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->v.count == 10 && e->callers[0].v.count == 10 && e->callers[0].v.total_ns == 1000);
	assert_consistent(&e->callers[0].v, "the caller");
	lock_part__ci95(e, &e->callers[0], false, &lo, &hi);
	assert_true(lo >= 2 && lo <= 10 && hi == 10);
	lock_part__ci95(e, &e->callers[0], true, &lo, &hi);
	assert_true(lo >= 200 && lo <= 1000 && hi == 1000);
	lock_view__free(&v);
	profile__free(p);
}

/*
 * weigh(): a sampled row's count and total times 2^shift passed 2^64 at
 * 2^(64 - shift) and wrapped (2^40 waits at p = 2^-30 came to 0 waits,
 * 2^50 ns to 0 ns). They saturate now; then above the lock's exact
 * figures, they shrink to them, and the average stays within the
 * sampled waits.
 */
static void test_view_weigh_saturates(void **state)
{
	struct cont_row rows[3];
	const struct lock_entry *e;
	const struct lock_part *c;
	struct lock_view v;
	struct profile *p;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 1ULL << 40, 1ULL << 50, 1024, 1024);
	rows[0].key.shift = 30;
	rows[0].val.hist[10] = 4;
	rows[1] = fx_row(FX_TASKLIST_LOCK, 3, LCB_F_SPIN, 0, 1ULL << 34, 1ULL << 44, 1024, 1024);
	rows[1].key.shift = 30;
	rows[1].val.hist[10] = 4;
	/* a total alone past 2^64: 2^40 ns (18 min) at p = 2^-30 */
	rows[2] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN, 0, 1, 1ULL << 40, 1ULL << 40, 1ULL << 40);
	rows[2].key.shift = 30;
	rows[2].val.hist[LS_HIST_SLOTS - 1] = 1;
	p = rows_profile(rows, 3);
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = find_lock(&v, "tasklist_lock", LCB_F_SPIN);
	assert_non_null(e);
	/* the lock's exact figures: no weight */
	assert_true(e->v.count == (1ULL << 40) + (1ULL << 34) + 1);
	assert_true(e->v.total_ns == (1ULL << 50) + (1ULL << 44) + (1ULL << 40));
	assert_consistent(&e->v, "the lock");
	c = find_caller(&v, e, "alloc_fd+0x20");
	assert_non_null(c);
	assert_true(c->v.count >= c->est.sampled && c->v.count <= e->v.count);
	assert_true(c->v.total_ns >= c->est.sampled_ns && c->v.total_ns <= e->v.total_ns);
	assert_true(row_avg(&c->v) == 1024);
	assert_consistent(&c->v, "alloc_fd+0x20");
	c = find_caller(&v, e, "do_sys_open+0x44");
	assert_non_null(c);
	assert_true(c->v.count >= 1 && c->v.total_ns >= 1ULL << 40 && c->v.total_ns <= e->v.total_ns);
	assert_true(row_avg(&c->v) == 1ULL << 40);
	assert_consistent(&c->v, "do_sys_open+0x44");
	lock_view__free(&v);
	profile__free(p);
}

/* top's interval view takes the whole run's names, not its own busiest caller. */
static void test_view_anon_named_from(void **state)
{
	struct cont_row first[1], later[6];
	const struct cont_row *all[] = { first, later };
	const size_t n[] = { 1, 6 };
	struct profile *whole, *interval;
	struct lock_view v;

	(void)state;
	anon_rows(first, later);
	whole = written(all, n, 2);
	interval = written(all, n, 1);
	assert_non_null(whole);
	assert_non_null(interval);
	assert_int_equal(lock_view__build(&v, interval, &any), 0);
	assert_non_null(find_lock(&v, "0xffff888100002000@do_sys_open", LCB_F_MUTEX));
	lock_view__free(&v);
	assert_int_equal(lock_view__build_named(&v, interval, whole, &any), 0);
	assert_non_null(find_lock(&v, "0xffff888100002000@alloc_fd", LCB_F_MUTEX));
	assert_int_equal(v.nlocks, 1);
	lock_view__free(&v);
	profile__free(whole);
	profile__free(interval);
}

/* A filter that leaves nothing: an empty view, which sorts and frees. */
static void test_view_empty(void **state)
{
	const struct profile *p = *state;
	struct lock_filter f = any;
	struct lock_view v;

	f.lock = "no-such-lock";
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	assert_int_equal(v.nlocks, 0);
	assert_true(v.total.count == 0);
	lock_view__sort(&v, SORT_WAIT_TOTAL);
	lock_view__free(&v);
}

/* One rule for every name pattern: a glob matches the whole name, a word anywhere inside it. */
static void test_name_matches(void **state)
{
	(void)state;
	assert_true(name_matches(NULL, "files_struct.file_lock"));
	assert_true(name_matches("", "files_struct.file_lock"));
	assert_true(name_matches("file_lock", "files_struct.file_lock"));
	assert_true(name_matches("files_struct.file_lock", "files_struct.file_lock"));
	assert_false(name_matches("mmap", "files_struct.file_lock"));
	/* With a glob character: fnmatch(3) on the whole name. */
	assert_true(name_matches("files_*", "files_struct.file_lock"));
	assert_false(name_matches("file_*", "files_struct.file_lock"));
	assert_true(name_matches("*file_lock", "files_struct.file_lock"));
	assert_true(name_matches("alloc_fd+0x??", "alloc_fd+0x36"));
	assert_false(name_matches("alloc_fd?", "alloc_fd+0x36"));
	assert_true(name_matches("[a-c]lloc_fd*", "alloc_fd+0x36"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_type_name),
		cmocka_unit_test(test_lock_type_matches),
		cmocka_unit_test(test_lock_class_name),
		cmocka_unit_test(test_hist_quantile_one_slot),
		cmocka_unit_test(test_hist_quantile_two_slots),
		cmocka_unit_test(test_hist_quantile_monotonic),
		cmocka_unit_test(test_hist_quantile_within_row),
		cmocka_unit_test(test_row_avg),
		cmocka_unit_test(test_sort_parse),
		cmocka_unit_test(test_name_matches),
		cmocka_unit_test_setup_teardown(test_view_groups, setup_profile, teardown_profile),
		cmocka_unit_test_setup_teardown(test_view_sort, setup_profile, teardown_profile),
		cmocka_unit_test_setup_teardown(test_view_filters, setup_profile, teardown_profile),
		cmocka_unit_test(test_view_callers),
		cmocka_unit_test(test_view_anon_busiest),
		cmocka_unit_test(test_view_anon_named_from),
		cmocka_unit_test(test_view_fold_arrays),
		cmocka_unit_test(test_view_rows_add_up),
		cmocka_unit_test(test_view_estimates_consistent),
		cmocka_unit_test(test_view_estimate_over_lock),
		cmocka_unit_test(test_view_thinned_variance),
		cmocka_unit_test(test_view_weigh_saturates),
		cmocka_unit_test_setup_teardown(test_view_empty, setup_profile, teardown_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
