// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User locks: their types, the naming of static locks (a process's
 * mappings, the variable's symbol), and their rows in the locks view
 * (callers outside the C library, holds joined to waits, event waits
 * kept out unless asked for).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fixtures_ulocks.h"
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "sym/syms.h"
#include "record/ulock_names.h"
#include "ulocks.h"
#include "view/view_locks.h"

/* Not static: the test names them from the symbol table of its own binary. */
pthread_mutex_t test_global_lock = PTHREAD_MUTEX_INITIALIZER;
int test_global_array[16] = { 1 };

/* --- types ------------------------------------------------------------------ */

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(lock_type_name(LOCK_F_USER | ULK_MUTEX), "u:mutex");
	assert_string_equal(lock_type_name(LOCK_F_USER | ULK_RWLOCK_R), "u:rwlock:R");
	assert_string_equal(lock_type_name(LOCK_F_USER | ULK_COND), "u:cond");
	assert_string_equal(lock_type_name(LOCK_F_USER | 99), "u:unknown");
	assert_string_equal(lock_type_name(LCB_F_MUTEX), "mutex");
	assert_true(lock_type_matches("u", LOCK_F_USER | ULK_MUTEX));
	assert_true(lock_type_matches("u:rwlock", LOCK_F_USER | ULK_RWLOCK_W));
	assert_true(lock_type_matches("u:mutex", LOCK_F_USER | ULK_MUTEX));
	assert_false(lock_type_matches("u:mutex", LOCK_F_USER | ULK_MUTEX_PI));
	assert_false(lock_type_matches("mutex", LOCK_F_USER | ULK_MUTEX));
	assert_false(lock_type_matches("u", LCB_F_MUTEX));
	/* The kernel's families are unchanged. */
	assert_true(lock_type_matches("rwsem", LCB_F_READ));
	assert_true(lock_type_matches("mutex", LCB_F_MUTEX | LCB_F_SPIN));
	assert_true(lock_type_is_wait(LOCK_F_USER | ULK_COND));
	assert_true(lock_type_is_wait(LOCK_F_USER | ULK_FUTEX));
	assert_false(lock_type_is_wait(LOCK_F_USER | ULK_MUTEX));
	assert_false(lock_type_is_wait(ULK_COND));	/* a kernel flag set, not a user kind */
	assert_true(lock_type_is_user(LOCK_F_USER | ULK_SPIN));
	assert_false(lock_type_is_user(UINT32_MAX));
	assert_string_equal(lock_type_name(UINT32_MAX), "unknown");
}

/* The --type values lockstat-report(1) documents, and some it does not. */
static void test_type_filters(void **state)
{
	static const char *const known[] = {
		"spinlock", "rwlock", "rwlock:R", "rwlock:W", "rwsem", "rwsem:R", "rwsem:W",
		"mutex", "mutex:spin", "rtmutex", "rwlock-rt", "rwlock-rt:R", "rwlock-rt:W",
		"pcpu-sem", "pcpu-sem:R", "pcpu-sem:W", "semaphore",
		"u", "u:mutex", "u:mutex-pi", "u:rwlock", "u:rwlock:R", "u:rwlock:W", "u:spinlock",
		"u:cond", "u:futex",
	};
	static const char *const unknown[] = {
		"", "spin", "rwlock:X", "mutex:", "rwsem:R:W", "u:", "u:unknown", "unknown",
		"u:mutex:spin", "Spinlock",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!lock_type_known(known[i]))
			fail_msg("'%s' should be a known --type", known[i]);
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		if (lock_type_known(unknown[i]))
			fail_msg("'%s' should not be a known --type", unknown[i]);
}

/* --- naming ----------------------------------------------------------------- */

/* Our own globals, named as record names a workload's. */
static void test_names_of_self(void **state)
{
	struct ulock_names n;
	struct maps_cache mc;
	const char *name;
	int *heap = malloc(64);

	(void)state;
	assert_non_null(heap);
	maps_cache__init(&mc, 0);
	assert_int_equal(ulock_names__init(&n, &mc), 0);
	name = ulock_names__lock(&n, getpid(), (uint64_t)(uintptr_t)&test_global_lock);
	assert_string_equal(name, "test_global_lock");
	name = ulock_names__lock(&n, getpid(), (uint64_t)(uintptr_t)&test_global_array[5]);
	assert_string_equal(name, "test_global_array");
	assert_string_equal(ulock_names__lock(&n, getpid(), (uint64_t)(uintptr_t)heap), "");
	assert_string_equal(ulock_names__lock(&n, 0x7fffffff, 0x1000), "");
	assert_true(ulock_names__comm(&n, getpid())[0] != '\0');
	ulock_names__free(&n);
	maps_cache__free(&mc);
	free(heap);
}

/* --- the locks view ----------------------------------------------------------- */

static int setup_profile(void **state)
{
	*state = fxu_profile();
	return *state ? 0 : -1;
}

static int teardown_profile(void **state)
{
	profile__free(*state);
	return 0;
}

static const struct lock_entry *find(const struct lock_view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nlocks; i++)
		if (!strcmp(lock_view__str(v, v->locks[i].name), name))
			return &v->locks[i];
	return NULL;
}

static void test_view_locks(void **state)
{
	const struct lock_filter any = { .pid = -1 };
	const struct lock_entry *e;
	struct lock_view v;
	char frame[128];
	char heap_name[64];

	assert_int_equal(lock_view__build(&v, *state, &any), 0);
	/* storm_lock and the heap lock; the condition variable is no lock. */
	assert_int_equal(v.nlocks, 2);
	assert_null(find(&v, "storm_cond"));
	e = find(&v, "storm_lock");
	assert_non_null(e);
	assert_string_equal(lock_type_name(e->flags), "u:mutex");
	assert_true(e->v.count == 10 && e->v.total_ns == 1000 && e->v.max_ns == 300);
	/* The caller is the first frame outside the C library; the holds join it. */
	assert_int_equal(e->ncallers, 1);
	assert_string_equal(lock_view__str(&v, e->callers[0].caller), "storm_op");
	assert_true(e->h.has_hold && e->h.acquired == 50 && e->h.hold_max_ns == 400);
	assert_true(e->callers[0].h.acquired == 50);
	assert_true(v.has_hold);
	/* Its stack is a user stack: frames by function and file. */
	assert_int_equal(e->nstacks, 1);
	lock_view__frame(&v, &e->stacks[0], PC_STORM_OP, frame, sizeof(frame));
	assert_string_equal(frame, "storm_op (mutexstorm)");
	/* A lock on the heap: its address and its caller. */
	snprintf(heap_name, sizeof(heap_name), "0x%" PRIx64 "@storm_op", (uint64_t)HEAP_LOCK);
	e = find(&v, heap_name);
	assert_non_null(e);
	assert_true(e->v.count == 3 && !e->h.has_hold);
	lock_view__free(&v);
}

static void test_view_filters(void **state)
{
	struct lock_filter f = { .pid = -1, .type = "u:cond" };
	struct lock_view v;

	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 1);
	assert_string_equal(lock_view__str(&v, v.locks[0].name), "storm_cond");
	assert_true(v.locks[0].v.count == 100);
	lock_view__free(&v);

	f.type = "u";	/* every user lock, and still no event waits */
	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 2);
	lock_view__free(&v);

	f.type = "mutex";	/* the kernel's mutexes only */
	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 0);
	lock_view__free(&v);

	f = (struct lock_filter){ .pid = TGID + 1 };
	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 0);
	lock_view__free(&v);

	f = (struct lock_filter){ .pid = -1, .caller = "storm_*", .comm = "mutex*", .lock = "storm_lock" };
	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 1);
	lock_view__free(&v);
}

/* --- per-thread waits, grouped by wait site ----------------------------------- */

/*
 * Two PostgreSQL-like backends (tgid 100 and 101), each waiting on its
 * own semaphore from LWLockAcquire through the wrapper PGSemaphoreLock;
 * a semaphore both waited on; a mutex one thread alone waited on.
 */
#define PT_LIBC_WAIT	0x7f0000001010ULL
#define PT_SEMA_LOCK	0x55d000001040ULL
#define PT_LWLOCK	0x55d000001140ULL
#define PT_XLOG		0x55d000001240ULL
#define PT_PROCARRAY	0x55d000001340ULL
#define PT_SEM_A	0x7f1000000000ULL
#define PT_SEM_B	0x7f1000000100ULL
#define PT_SHARED	0x7f2000000000ULL
#define PT_MUTEX	0x55d000004000ULL

static int pt_resolve(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns, struct usym_info *out)
{
	static const struct { uint64_t pc; const char *func; } funcs[] = {
		{ PT_LIBC_WAIT, "__futex_abstimed_wait_common" }, { PT_SEMA_LOCK, "PGSemaphoreLock" },
		{ PT_LWLOCK, "LWLockAcquire" }, { PT_XLOG, "XLogInsert" },
		{ PT_PROCARRAY, "ProcArrayEndTransaction" },
	};
	size_t i;

	(void)ctx;
	(void)seen_ns;
	memset(out, 0, sizeof(*out));
	if (tgid != 100 && tgid != 101) {
		out->why = USYM_NO_MAPPING;
		return 0;
	}
	out->module = addr >= 0x7f0000000000ULL ? LIBC : "/usr/lib/postgresql/15/bin/postgres";
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (addr >= funcs[i].pc - 0x40 && addr < funcs[i].pc + 0x40)	/* a return address less one */
			out->frames[out->nframes++] = (struct uframe){ funcs[i].func, NULL, 0 };
	return 0;
}

static const struct tcol pt_cols[] = {
	{ "lock", TCOL_KEY }, { "pid", TCOL_KEY }, { "kind", TCOL_KEY },
	{ "stack", TCOL_KEY_USTACK }, { "name", TCOL_KEY_STR }, { "comm", TCOL_KEY_STR },
	{ "contended", TCOL_SUM }, { "wait_ns", TCOL_SUM }, { "wait_min_ns", TCOL_MIN },
	{ "wait_max_ns", TCOL_MAX }, { "waiter_min", TCOL_MIN }, { "waiter_max", TCOL_MAX }, { "hist_0", TCOL_SUM },
};

static const struct tschema pt_schema = { "ulocks", 13, pt_cols };
static const struct tustack pt_xlog[2] = {
	{ 100, 4, { PT_LIBC_WAIT, PT_SEMA_LOCK, PT_LWLOCK, PT_XLOG } },
	{ 101, 4, { PT_LIBC_WAIT, PT_SEMA_LOCK, PT_LWLOCK, PT_XLOG } },
};
static const struct tustack pt_procarray = { 100, 4, { PT_LIBC_WAIT, PT_SEMA_LOCK, PT_LWLOCK, PT_PROCARRAY } };
static const struct tustack pt_mutex = { 100, 2, { PT_LIBC_WAIT, PT_XLOG } };

static int pt_write_profile(int fd)
{
	uint64_t rows[6][13] = {
		{ PT_SEM_A, 100, ULK_FUTEX, tptr(&pt_xlog[0]), tptr(""), tptr("postgres"), 5, 500, 50, 200, 1000, 1000, 0 },
		{ PT_SEM_A, 100, ULK_FUTEX, tptr(&pt_procarray), tptr(""), tptr("postgres"), 2, 100, 40, 60, 1000, 1000, 0 },
		{ PT_SEM_B, 101, ULK_FUTEX, tptr(&pt_xlog[1]), tptr(""), tptr("postgres"), 7, 700, 60, 300, 1010, 1010, 0 },
		{ PT_SHARED, 100, ULK_FUTEX, tptr(&pt_xlog[0]), tptr(""), tptr("postgres"), 3, 30, 10, 10, 1000, 1000, 0 },
		{ PT_SHARED, 101, ULK_FUTEX, tptr(&pt_xlog[1]), tptr(""), tptr("postgres"), 4, 40, 10, 10, 1010, 1010, 0 },
		{ PT_MUTEX, 100, ULK_MUTEX, tptr(&pt_mutex), tptr("xlog_mutex"), tptr("postgres"), 1, 9, 9, 9, 1000, 1000, 0 },
	};
	const struct fxu_table t = { &pt_schema, &rows[0][0], 6 };

	return fxu_write(fd, pt_resolve, &t, 1);
}

static int setup_per_thread(void **state)
{
	*state = fxu_profile_of(pt_write_profile);
	return *state ? 0 : -1;
}

static const struct lock_part *find_caller(const struct lock_view *v, const struct lock_entry *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->ncallers; i++)
		if (!strcmp(lock_view__str(v, e->callers[i].caller), name))
			return &e->callers[i];
	return NULL;
}

static void test_per_thread_sites(void **state)
{
	struct lock_filter f = { .pid = -1 };
	const struct lock_entry *e;
	const struct lock_part *c;
	struct lock_view v;
	char name[64];

	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	/* The two backends' semaphores: one row, by the site past the wrapper; and the mutex. */
	assert_int_equal(v.nlocks, 2);
	e = find(&v, "[per-thread]@LWLockAcquire");
	assert_non_null(e);
	assert_string_equal(lock_type_name(e->flags), "u:site");
	assert_true(e->v.count == 14 && e->v.total_ns == 1300 && e->v.min_ns == 40 && e->v.max_ns == 300);
	/* Its callers: the frames above the site. */
	assert_int_equal(e->ncallers, 2);
	c = find_caller(&v, e, "XLogInsert");
	assert_true(c && c->v.count == 12);
	c = find_caller(&v, e, "ProcArrayEndTransaction");
	assert_true(c && c->v.count == 2);
	assert_int_equal(e->nstacks, 3);
	/* A mutex one thread waited on still waited on its holder: a lock. */
	e = find(&v, "xlog_mutex");
	assert_true(e && !strcmp(lock_type_name(e->flags), "u:mutex"));
	lock_view__free(&v);

	/* The semaphore both backends waited on: its own row, an event. */
	f.type = "u:futex";
	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 1);
	snprintf(name, sizeof(name), "0x%" PRIx64 "@PGSemaphoreLock", (uint64_t)PT_SHARED);
	e = find(&v, name);
	assert_true(e && e->v.count == 7);
	lock_view__free(&v);

	f.type = "u:site";
	f.caller = "ProcArray*";
	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 1);
	assert_true(v.locks[0].v.count == 2);
	lock_view__free(&v);

	lock_name_per_thread(NULL, name, sizeof(name));
	assert_string_equal(name, "[per-thread]@?");
}

/*
 * top's interval is grouped as the whole run says: here a run without
 * the waiter columns, so that none of the interval's words is one thread's.
 */
static void test_per_thread_named(void **state)
{
	const struct lock_filter f = { .pid = -1, .type = "u:site" };
	struct profile *run = fxu_profile();
	struct lock_view v;

	assert_non_null(run);
	assert_int_equal(lock_view__build_named(&v, *state, run, &f), 0);
	assert_int_equal(v.nlocks, 0);
	lock_view__free(&v);
	assert_int_equal(lock_view__build_named(&v, *state, *state, &f), 0);
	assert_int_equal(v.nlocks, 1);
	lock_view__free(&v);
	profile__free(run);
}

/* A profile without the waiter columns (recorded before them): nothing is known per-thread. */
static void test_per_thread_unknown(void **state)
{
	const struct lock_filter f = { .pid = -1, .type = "u:site" };
	struct lock_view v;

	assert_int_equal(lock_view__build(&v, *state, &f), 0);
	assert_int_equal(v.nlocks, 0);
	lock_view__free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_type_filters),
		cmocka_unit_test(test_names_of_self),
		cmocka_unit_test_setup_teardown(test_view_locks, setup_profile, teardown_profile),
		cmocka_unit_test_setup_teardown(test_view_filters, setup_profile, teardown_profile),
		cmocka_unit_test_setup_teardown(test_per_thread_sites, setup_per_thread, teardown_profile),
		cmocka_unit_test_setup_teardown(test_per_thread_unknown, setup_profile, teardown_profile),
		cmocka_unit_test_setup_teardown(test_per_thread_named, setup_per_thread, teardown_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
