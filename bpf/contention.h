/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CONTENTION_H
#define __LOCKSTAT_CONTENTION_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Map keys and values of the contention family, shared by
 * bpf/contention.bpf.c and the collector. Only __u32/__u64: no pointers,
 * no bool, explicit padding, sizes asserted in lib/record/collector.c.
 */

#define LS_STACK_DEPTH		32	/* kernel frames kept per stack */
#define LS_HIST_SLOTS		40	/* log2(ns) buckets: slot i holds [2^i, 2^(i+1)) ns */
#define LS_PENDING_SPIN_DEPTH	4	/* nested spinning waits per CPU (task + irq + nmi) */
#define LS_COMM_LEN		16

/* lock:contention_begin flags, include/trace/events/lock.h */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)

/* Locks that BPF recognises as a field of the current task's objects. */
enum lock_class {
	LOCK_CLASS_NONE = 0,		/* name it from kallsyms or the caller */
	LOCK_CLASS_FILES_FILE_LOCK,	/* current->files->file_lock */
	LOCK_CLASS_MM_MMAP_LOCK,	/* current->mm->mmap_lock */
	LOCK_CLASS_SIGHAND_SIGLOCK,	/* current->sighand->siglock */
	LOCK_CLASS_RQ_LOCK,		/* some CPU's rq->__lock (named in user space) */
	LOCK_CLASS__COUNT,
};

#define LS_STACK_FAILED		(-1)	/* bpf_get_stackid() failed: counted in lost */
#define LS_STACK_UNSAMPLED	(-2)	/* over the stack budget: not taken */

struct cont_key {
	__u64 lock_addr;
	__s32 stack_id;		/* or LS_STACK_FAILED / LS_STACK_UNSAMPLED */
	__u32 flags;		/* contention_begin flags: the lock type */
	__u32 tgid;		/* 0 unless per-task aggregation (-t) */
	__u32 tid;		/* 0 unless per-task aggregation (-t) */
	__u32 lock_class;	/* enum lock_class */
	__u32 __pad;
};

struct cont_val {
	__u64 count;
	__u64 total_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u32 hist[LS_HIST_SLOTS];
};

/* A wait in progress, from contention_begin to contention_end. */
struct cont_pending {
	__u64 start_ns;
	struct cont_key key;
};

struct cont_pending_spin {
	__u32 depth;
	__u32 pad;
	struct cont_pending slot[LS_PENDING_SPIN_DEPTH];
};

/* Per-CPU state of the stack sampler (see may_take_stack). */
struct stack_budget {
	__u64 window_start_ns;
	__u32 events;		/* waits begun in this window */
	__u32 threshold;	/* take a stack when prandom <= threshold */
	__u32 taken;		/* stacks taken in this window */
	__u32 __pad;
};

/* Every way an event can be lost; shown in the report header. */
struct cont_lost {
	__u64 missing_begin;	/* end without a begin we saw */
	__u64 nested_dropped;	/* spin nesting deeper than LS_PENDING_SPIN_DEPTH */
	__u64 stale_begin;	/* a sleeping begin replaced one that never ended */
	__u64 pending_full;	/* TID map of sleeping waits was full */
	__u64 stack_collision;	/* stack map bucket held another stack */
	__u64 stack_error;	/* bpf_get_stackid failed otherwise */
	__u64 map_full;		/* stats map full: the wait was not counted */
	__u64 targets_full;	/* a child of the workload could not be followed */
	__u64 in_probe;		/* a wait begun while one of our programs ran on its CPU */
};

#endif /* __LOCKSTAT_CONTENTION_H */
