// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Follows the workload: a process forked by a target becomes a target.
 * Loaded whenever lockstat records less than the whole system.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "targets.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

static __always_inline void follow_fork(__u32 parent_tgid, __u32 child_tgid)
{
	__u32 zero = 0, one = 1;
	struct targets_gen *g;

	if (parent_tgid == child_tgid || !bpf_map_lookup_elem(&targets, &parent_tgid))
		return;
	g = bpf_map_lookup_elem(&targets_gen, &zero);
	if (!g)
		return;
	if (bpf_map_update_elem(&targets, &child_tgid, &one, BPF_ANY))
		__sync_fetch_and_add(&g->full, 1);
	__sync_fetch_and_add(&g->generation, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	follow_fork(parent->tgid, child->tgid);
	return 0;
}

/*
 * The classic record only has the child's pid: a new thread's pid is not
 * a tgid, and lands in targets as a harmless unused key.
 */
SEC("tracepoint/sched/sched_process_fork")
int fork_tp(struct trace_event_raw_sched_process_fork *ctx)
{
	follow_fork(bpf_get_current_pid_tgid() >> 32, ctx->child_pid);
	return 0;
}
