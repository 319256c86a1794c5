// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sampling profiler: one perf_event (cycles, else cpu-clock) per CPU runs
 * this program; samples are counted in the kernel per (process, thread,
 * kernel stack, user stack) and drained once per bucket. User stacks are
 * walked by the kernel through frame pointers: code built without them
 * gives short user stacks (the report says how many were truncated).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sample.h"
#include "targets.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define EFAULT	14

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LS_SAMPLE_KSTACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 16384);
} kstacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LS_SAMPLE_USTACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 16384);
} ustacks SEC(".maps");

/* perf_event programs may only use preallocated hash maps. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sample_key);
	__type(value, __u64);
	__uint(max_entries, 32768);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, char[16]);
	__uint(max_entries, 16384);
} sample_comms SEC(".maps");

/*
 * The first sample of a process is announced at once, so that user space
 * reads its mappings while it lives, even when it exits before the next
 * drain.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 16384);
} seen_tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} new_tgids SEC(".maps");

struct sample_lost lost;

static void announce(__u32 tgid)
{
	__u32 one = 1;

	if (!tgid || bpf_map_lookup_elem(&seen_tgids, &tgid))
		return;
	if (bpf_map_update_elem(&seen_tgids, &tgid, &one, BPF_NOEXIST))
		return;	/* another CPU won the race, or the map is full */
	bpf_ringbuf_output(&new_tgids, &tgid, sizeof(tgid), 0);
}

static __s32 stack_of(void *ctx, void *map, __u64 flags, __u64 *error)
{
	long id = bpf_get_stackid(ctx, map, flags);

	if (id >= 0)
		return id;
	/* -EFAULT: no stack of that kind here (user mode, kernel thread). */
	if (id == -EEXIST)
		__sync_fetch_and_add(&lost.stack_collision, 1);
	else if (id != -EFAULT)
		__sync_fetch_and_add(error, 1);
	return -1;
}

static void remember_comm(__u32 tid)
{
	char comm[16];

	if (bpf_map_lookup_elem(&sample_comms, &tid))
		return;
	bpf_get_current_comm(comm, sizeof(comm));
	bpf_map_update_elem(&sample_comms, &tid, comm, BPF_NOEXIST);
}

SEC("perf_event")
int on_sample(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), one = 1, *count;
	struct sample_key key = {};

	/* Keyed by the PIDs of lockstat's namespace: its /proc and its mapping tracker's. */
	if (!is_target(pid_tgid >> 32) || !ids_in_ns(pid_tgid, &key.tgid, &key.tid))
		return 0;
	key.kstack = stack_of(ctx, &kstacks, 0, &lost.kstack_error);
	key.ustack = stack_of(ctx, &ustacks, BPF_F_USER_STACK, &lost.ustack_error);
	remember_comm(key.tid);
	announce(key.tgid);
	count = bpf_map_lookup_elem(&counts, &key);
	if (count) {
		__sync_fetch_and_add(count, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		count = bpf_map_lookup_elem(&counts, &key);
		if (count)
			__sync_fetch_and_add(count, 1);
		else
			__sync_fetch_and_add(&lost.map_full, 1);
	}
	return 0;
}
