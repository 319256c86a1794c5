// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target filter's BPF code (bpf/targets.bpf.h), compiled here against
 * stand-ins for the map helpers, so that a race with user space can be
 * played at the one place it matters: between is_target()'s map lookup
 * and its caching of the answer. Also the adoption of a target that
 * lockstat named from inside a PID namespace.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <linux/bpf.h>
#include <cmocka.h>

/* What libbpf's headers give a BPF program, enough for targets.bpf.h. */
#define SEC(name)
#define __uint(name, val)	int (*name)[val]
#define __type(name, val)	typeof(val) *name
#ifndef __always_inline
#define __always_inline		inline
#endif

static void *bpf_map_lookup_elem(void *map, const void *key);
static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags);
static long bpf_map_delete_elem(void *map, const void *key);
static long bpf_get_ns_current_pid_tgid(__u64 dev, __u64 ino, struct bpf_pidns_info *ns, __u32 size);
static long bpf_current_task_under_cgroup(void *map, __u32 index);

#include "targets.bpf.h"

/* The targets hash as a small set of keys. */
#define NKEYS	8
static __u32 keys[NKEYS];
static size_t nkeys;
static __u32 one = 1;
static struct targets_gen gen_value;
static struct target_cache cache_values[TARGET_CACHE_SLOTS];
/* Played inside the next lookup of the targets map, as if another CPU ran it there. */
static void (*during_lookup)(void);
static __u32 ns_tgid;		/* the current task's tgid in lockstat's namespace */
static long under_cgroup;	/* what bpf_current_task_under_cgroup() answers */

static long find_key(__u32 k)
{
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (keys[i] == k)
			return i;
	return -1;
}

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	void (*hook)(void) = during_lookup;

	if (map == &targets_gen)
		return &gen_value;
	if (map == &target_cache) {
		assert_true(*(const __u32 *)key < TARGET_CACHE_SLOTS);
		return &cache_values[*(const __u32 *)key];
	}
	assert_ptr_equal(map, &targets);
	if (hook) {
		during_lookup = NULL;
		hook();
		return NULL;	/* the lookup itself was done before */
	}
	return find_key(*(const __u32 *)key) >= 0 ? &one : NULL;
}

static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags)
{
	(void)value;
	(void)flags;
	assert_ptr_equal(map, &targets);
	if (find_key(*(const __u32 *)key) < 0 && nkeys < NKEYS)
		keys[nkeys++] = *(const __u32 *)key;
	return 0;
}

static long bpf_map_delete_elem(void *map, const void *key)
{
	long i = find_key(*(const __u32 *)key);

	assert_ptr_equal(map, &targets);
	if (i < 0)
		return -2;
	keys[i] = keys[--nkeys];
	return 0;
}

static long bpf_get_ns_current_pid_tgid(__u64 dev, __u64 ino, struct bpf_pidns_info *ns, __u32 size)
{
	assert_int_equal(size, sizeof(*ns));
	if (dev != gen_value.pidns_dev || ino != gen_value.pidns_ino || !ns_tgid)
		return -22;
	ns->tgid = ns->pid = ns_tgid;
	return 0;
}

static long bpf_current_task_under_cgroup(void *map, __u32 index)
{
	assert_ptr_equal(map, &target_cgroup);
	assert_int_equal(index, 0);
	return under_cgroup;
}

/* collector__add_target(): the key, then a new generation. */
static void user_adds_1234(void)
{
	bpf_map_update_elem(&targets, &(__u32){ 1234 }, &one, BPF_ANY);
	gen_value.generation++;
}

static int reset(void **state)
{
	(void)state;
	nkeys = 0;
	memset(&gen_value, 0, sizeof(gen_value));
	memset(cache_values, 0, sizeof(cache_values));
	during_lookup = NULL;
	ns_tgid = 0;
	under_cgroup = 0;
	*(volatile __u32 *)&filter_targets = 1;
	return 0;
}

static void test_cached_answer(void **state)
{
	(void)state;
	user_adds_1234();
	assert_true(is_target(1234));
	assert_false(is_target(99));
	assert_true(is_target(1234));
	/* A process added later voids the cached "no". */
	assert_false(is_target(77));
	bpf_map_update_elem(&targets, &(__u32){ 77 }, &one, BPF_ANY);
	gen_value.generation++;
	assert_true(is_target(77));
}

static void lookup_not_expected(void)
{
	fail_msg("the targets hash was asked: the cache should have answered");
}

/*
 * Processes taking turns on a CPU each keep their cached answer: asked
 * again, in turn, none of them needs the hash (a single-entry cache
 * would ask it every time).
 */
static void test_many_processes_cached(void **state)
{
	static const __u32 tgids[] = { 1234, 2001, 2002, 2003, 2004, 99 };
	size_t i, j, n = sizeof(tgids) / sizeof(tgids[0]);

	(void)state;
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			assert_int_not_equal(target_cache_slot(tgids[i]), target_cache_slot(tgids[j]));
	for (i = 0; i + 1 < n; i++)
		bpf_map_update_elem(&targets, &tgids[i], &one, BPF_ANY);
	gen_value.generation++;
	for (i = 0; i < n; i++)
		assert_true(is_target(tgids[i]) == (i + 1 < n));
	for (i = 0; i < n; i++) {
		during_lookup = lookup_not_expected;
		assert_true(is_target(tgids[i]) == (i + 1 < n));
	}
	during_lookup = NULL;
}

/*
 * -p 1234 added while this CPU looks 1234 up: the lookup missed it, and
 * the "no" must not be cached under the generation that includes it.
 */
static void test_added_during_lookup(void **state)
{
	(void)state;
	during_lookup = user_adds_1234;
	assert_false(is_target(1234));	/* this one raced: either answer is fair */
	assert_true(is_target(1234));	/* but not from now on */
}

/* A target forgotten at its exit (its PID may be reused): the cached "yes" goes too. */
static void test_removed(void **state)
{
	(void)state;
	user_adds_1234();
	assert_true(is_target(1234));
	bpf_map_delete_elem(&targets, &(__u32){ 1234 });
	gen_value.generation++;
	assert_false(is_target(1234));
}

/* lockstat in a PID namespace names 7; BPF sees the same process as 31007. */
static void test_adopted_from_namespace(void **state)
{
	(void)state;
	gen_value.pidns_dev = 4;
	gen_value.pidns_ino = 4026532000ULL;
	bpf_map_update_elem(&targets, &(__u32){ 7 | LS_NS_KEY }, &one, BPF_ANY);
	gen_value.generation++;
	ns_tgid = 8;	/* another process of the namespace */
	assert_false(is_target(31008));
	ns_tgid = 7;
	assert_true(is_target(31007));
	assert_true(find_key(31007) >= 0);
	assert_true(find_key(7 | LS_NS_KEY) < 0);	/* once: the PID may be reused in there */
	ns_tgid = 0;	/* no longer asked */
	assert_true(is_target(31007));
	cache_values[target_cache_slot(31007)].generation = ~0ULL;	/* the hash, not the cache, answers */
	assert_true(is_target(31007));
	/* In the initial namespace nothing is translated. */
	gen_value.pidns_ino = 0;
	bpf_map_update_elem(&targets, &(__u32){ 9 | LS_NS_KEY }, &one, BPF_ANY);
	ns_tgid = 9;
	assert_false(is_target(31009));
}

/*
 * --cgroup: the kernel's answer for the current task, every time (a task
 * may change cgroups, and no generation says so); the targets map and
 * the cache are not asked, and an error is a "no".
 */
static void test_by_cgroup(void **state)
{
	(void)state;
	gen_value.by_cgroup = 1;
	user_adds_1234();
	under_cgroup = 0;
	assert_false(is_target(1234));
	under_cgroup = 1;
	assert_true(is_target(1234));
	assert_true(is_target(99));
	under_cgroup = 0;	/* the task moved out */
	assert_false(is_target(99));
	under_cgroup = -9;	/* -EBADF: no cgroup in the map */
	assert_false(is_target(99));
}

/* The families' PIDs: lockstat's namespace's, or none for a task outside it. */
static void test_ids_in_ns(void **state)
{
	__u32 tgid = 0, tid = 0;

	(void)state;
	assert_true(ids_in_ns(((__u64)31007 << 32) | 31010, &tgid, &tid));
	assert_true(tgid == 31007 && tid == 31010);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_cached_answer, reset),
		cmocka_unit_test_setup(test_many_processes_cached, reset),
		cmocka_unit_test_setup(test_added_during_lookup, reset),
		cmocka_unit_test_setup(test_removed, reset),
		cmocka_unit_test_setup(test_adopted_from_namespace, reset),
		cmocka_unit_test_setup(test_by_cgroup, reset),
		cmocka_unit_test_setup(test_ids_in_ns, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
