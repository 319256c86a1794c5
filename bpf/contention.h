/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CONTENTION_H
#define __LOCKSTAT_CONTENTION_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "sampler.h"

/*
 * Map keys and values of the contention family, shared by
 * bpf/contention.bpf.c and the collector. Only __u32/__u64: no pointers,
 * no bool, explicit padding, sizes asserted in lib/record/collect_locks.c.
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

/*
 * The stack of a row: a key of the stacks map (a hash of the frames, its
 * top bit set), or one of these. In the profile, rows carry the file's
 * stack ids instead, with these two negative values.
 */
#define LS_STACK_NONE		0ULL	/* not sampled: counted in the lock's totals only */
#define LS_STACK_ERR		1ULL	/* sampled, but the stack could not be taken */
#define LS_STACK_FAILED		(-1)	/* file id: sampled, the stack lost */
#define LS_STACK_UNSAMPLED	(-2)	/* file id: not sampled */

struct cont_key {
	__u64 lock_addr;
	__u64 stack;		/* LS_STACK_NONE, LS_STACK_ERR or a stacks map key */
	__u32 flags;		/* contention_begin flags: the lock type */
	__u32 tgid;		/* 0 unless per-task aggregation (-t) */
	__u32 tid;		/* 0 unless per-task aggregation (-t) */
	__u32 lock_class;	/* enum lock_class */
	__u32 shift;		/* a sampled wait: taken with probability 2^-shift */
	__u32 err;		/* -ret of contention_end: 0 when the lock was taken */
};

struct cont_val {
	__u64 count;
	__u64 total_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 sumsq_lo;		/* sum of the squared waits (shift > 0 only), 128 bits */
	__u64 sumsq_hi;
	__u32 hist[LS_HIST_SLOTS];
};

/* A stack in the stacks map: frames innermost first. */
struct cont_stack {
	__u32 nr;
	__u32 __pad;
	__u64 ip[LS_STACK_DEPTH];
};

/* A wait in progress, from contention_begin to contention_end. */
struct cont_pending {
	__u64 start_ns;		/* 0: none (a task's slot) */
	struct cont_key key;
};

struct cont_pending_spin {
	__u32 depth;
	__u32 pad;
	struct cont_pending slot[LS_PENDING_SPIN_DEPTH];
};

/*
 * Every way BPF sees an event lost; shown in the report header, with the
 * events the kernel never ran our programs for (recursion_begin/end, read
 * from bpf_prog_info by the collector).
 */
struct cont_lost {
	__u64 missing_begin;	/* end without a begin we saw */
	__u64 nested_dropped;	/* spin nesting deeper than LS_PENDING_SPIN_DEPTH */
	__u64 stale_begin;	/* a begin replaced a wait that never ended */
	__u64 pending_full;	/* no task storage for a sleeping wait */
	__u64 stacks_full;	/* stacks map full: a sampled wait without its stack */
	__u64 stack_error;	/* bpf_get_stack failed */
	__u64 map_full;		/* stats map full: the wait was not counted */
	__u64 targets_full;	/* a child of the workload could not be followed */
	__u64 in_probe;		/* a wait begun while one of our programs ran on its CPU */
};

#endif /* __LOCKSTAT_CONTENTION_H */
