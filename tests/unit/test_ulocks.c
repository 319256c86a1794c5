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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_type_filters),
		cmocka_unit_test(test_names_of_self),
		cmocka_unit_test_setup_teardown(test_view_locks, setup_profile, teardown_profile),
		cmocka_unit_test_setup_teardown(test_view_filters, setup_profile, teardown_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
