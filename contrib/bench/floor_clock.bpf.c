// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The timing floor for contrib/bench/overhead: the least any tool that
 * times lock waits does on lock:contention_begin/end. The begin reads the
 * clock into a per-CPU slot; the end reads the clock again and adds the
 * difference to a per-CPU sum. No key, no row, no stack: what is left of
 * lockstat's cost above this is its own bookkeeping, above floor.bpf.c
 * is the clock as well.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct clock_slot {
	__u64 start_ns;
	__u64 sum_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct clock_slot);
	__uint(max_entries, 1);
} clock_slots SEC(".maps");

SEC("tp_btf/contention_begin")
int BPF_PROG(clock_begin)
{
	__u32 zero = 0;
	struct clock_slot *s = bpf_map_lookup_elem(&clock_slots, &zero);

	if (s)
		s->start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(clock_end)
{
	__u32 zero = 0;
	struct clock_slot *s = bpf_map_lookup_elem(&clock_slots, &zero);

	if (s && s->start_ns)
		s->sum_ns += bpf_ktime_get_ns() - s->start_ns;
	return 0;
}
