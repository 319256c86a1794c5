/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TARGETS_BPF_H
#define __LOCKSTAT_TARGETS_BPF_H

/*
 * BPF side of the target filter, included by every probe family. Maps
 * declared here are per object; the collector points them all at the
 * targets object's maps (bpf_map__reuse_fd) before loading.
 */
#include "targets.h"

const volatile __u32 filter_targets;	/* only tgids in the targets map */
/* lockstat's PID namespace, for the families that report PIDs to it (ids_in_ns()) */
const volatile __u64 pidns_dev;
const volatile __u64 pidns_ino;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, LS_MAX_TARGETS);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct targets_gen);
	__uint(max_entries, 1);
} targets_gen SEC(".maps");

/* --cgroup: the cgroup v2 directory whose subtree is recorded (by its fd). */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} target_cgroup SEC(".maps");

/*
 * The answers per CPU, valid while no process was added or removed,
 * direct-mapped by tgid: a per-CPU array costs less than the hash lookup.
 * Many slots, not just the last process's: when many processes take
 * turns on a CPU (hackbench's 160), each event's is another's, and a
 * single slot missed at nearly every one, leaving the cold hash lookup
 * in contention_begin (doc/design.md).
 */
#define TARGET_CACHE_SLOTS	256
_Static_assert(TARGET_CACHE_SLOTS == 1 << 8, "target_cache_slot() takes 8 bits");

struct target_cache {
	__u32 tgid;
	__u32 is_target;
	__u64 generation;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct target_cache);
	__uint(max_entries, TARGET_CACHE_SLOTS);
} target_cache SEC(".maps");

static __always_inline __u32 target_cache_slot(__u32 tgid)
{
	return (tgid * 0x9e3779b1U) >> 24;	/* the top 8 bits: TARGET_CACHE_SLOTS */
}

/*
 * The current task's tgid, as lockstat named it from its own PID
 * namespace (LS_NS_KEY): the initial namespace's tgid replaces it in the
 * map. Only the current task can be translated, and only the first event
 * or fork of a target gets here.
 */
static __always_inline bool adopt_current(__u32 tgid, const struct targets_gen *g)
{
	struct bpf_pidns_info ns;
	__u32 key, one = 1;

	if (!g->pidns_ino || bpf_get_ns_current_pid_tgid(g->pidns_dev, g->pidns_ino, &ns, sizeof(ns)))
		return false;
	key = ns.tgid | LS_NS_KEY;
	if (!bpf_map_lookup_elem(&targets, &key))
		return false;
	bpf_map_update_elem(&targets, &tgid, &one, BPF_ANY);
	bpf_map_delete_elem(&targets, &key);
	return true;
}

/* Whether tgid, the current task's, is recorded (the current task, by cgroup). */
static __always_inline bool is_target(__u32 tgid)
{
	__u32 zero = 0, slot = target_cache_slot(tgid);
	struct targets_gen *g;
	struct target_cache *tc;
	__u64 gen;
	bool yes;

	if (!filter_targets)
		return true;
	g = bpf_map_lookup_elem(&targets_gen, &zero);
	/*
	 * A task may move to another cgroup at any time, and nothing tells:
	 * asked every time, at the cost of a pointer walk (the kernel keeps
	 * each cgroup's ancestors in an array).
	 */
	if (g && g->by_cgroup)
		return bpf_current_task_under_cgroup(&target_cgroup, 0) == 1;
	tc = bpf_map_lookup_elem(&target_cache, &slot);
	if (!g || !tc)
		return bpf_map_lookup_elem(&targets, &tgid) != NULL;
	/*
	 * The generation before the lookup: a process added after this read
	 * bumps it, so the answer cached below is never newer than the map
	 * it was read from.
	 */
	gen = *(volatile __u64 *)&g->generation;
	if (tc->tgid == tgid && tc->generation == gen)
		return tc->is_target;
	yes = bpf_map_lookup_elem(&targets, &tgid) != NULL || adopt_current(tgid, g);
	tc->tgid = tgid;
	tc->is_target = yes;
	tc->generation = gen;
	return yes;
}

/*
 * The current task's tgid and tid (id: bpf_get_current_pid_tgid()'s) in
 * lockstat's PID namespace, where its /proc and its mapping tracker live;
 * false for a task outside that namespace, which lockstat cannot name.
 */
static __always_inline bool ids_in_ns(__u64 id, __u32 *tgid, __u32 *tid)
{
	struct bpf_pidns_info ns;

	if (pidns_ino) {
		if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
			return false;
		*tgid = ns.tgid;
		*tid = ns.pid;
		return true;
	}
	*tgid = id >> 32;
	*tid = (__u32)id;
	return true;
}

#endif
