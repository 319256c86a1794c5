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

/*
 * The last answer per CPU, valid while no process was added: most events
 * come from the task that ran last on this CPU, and a per-CPU array costs
 * less than the hash lookup.
 */
struct target_cache {
	__u32 tgid;
	__u32 is_target;
	__u64 generation;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct target_cache);
	__uint(max_entries, 1);
} target_cache SEC(".maps");

static __always_inline bool is_target(__u32 tgid)
{
	__u32 zero = 0;
	struct targets_gen *g;
	struct target_cache *tc;
	bool yes;

	if (!filter_targets)
		return true;
	g = bpf_map_lookup_elem(&targets_gen, &zero);
	tc = bpf_map_lookup_elem(&target_cache, &zero);
	if (g && tc && tc->tgid == tgid && tc->generation == g->generation)
		return tc->is_target;
	yes = bpf_map_lookup_elem(&targets, &tgid) != NULL;
	if (g && tc) {
		tc->tgid = tgid;
		tc->is_target = yes;
		tc->generation = g->generation;
	}
	return yes;
}

#endif
