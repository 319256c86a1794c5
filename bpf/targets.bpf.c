// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Follows the workload: a process forked by a target becomes a target,
 * and a target whose last thread exits is forgotten, lest a process that
 * reuses its PID be recorded. Loaded whenever lockstat records less than
 * the whole system.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "targets.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

static __always_inline void follow_fork(__u32 parent_tgid, __u32 child_tgid)
{
	__u32 zero = 0, one = 1;
	struct targets_gen *g = bpf_map_lookup_elem(&targets_gen, &zero);

	/* The parent is the current task: a target named in our namespace is adopted here. */
	if (parent_tgid == child_tgid || !g ||
	    (!bpf_map_lookup_elem(&targets, &parent_tgid) && !adopt_current(parent_tgid, g)))
		return;
	if (bpf_map_update_elem(&targets, &child_tgid, &one, BPF_ANY))
		__sync_fetch_and_add(&g->full, 1);
	__sync_fetch_and_add(&g->generation, 1);
}

/* The current task exits; its process is gone when it was the last thread. */
static __always_inline void forget(__u32 tgid, struct task_struct *task)
{
	__u32 zero = 0;
	struct targets_gen *g;

	if (BPF_CORE_READ(task, signal, live.counter))
		return;
	g = bpf_map_lookup_elem(&targets_gen, &zero);
	/* The per-CPU answers cached for it say "yes": a new generation voids them. */
	if (!bpf_map_delete_elem(&targets, &tgid) && g)
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

/* Both read the task's signal_struct through BTF: loaded only where there is BTF. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *task)
{
	forget(task->tgid, task);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int exit_tp(void *ctx)
{
	forget(bpf_get_current_pid_tgid() >> 32, (struct task_struct *)bpf_get_current_task());
	return 0;
}
