/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CONTENTION_H
#define __LOCKSTAT_CONTENTION_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "format/consts.h"
#include "sampler.h"

/*
 * Map keys and values of the contention family, shared by
 * bpf/contention.bpf.c and the collector. Only __u32/__u64: no pointers,
 * no bool, explicit padding, sizes asserted in lib/record/collect_locks.c.
 */

#define LS_PENDING_SPIN_DEPTH	4	/* nested spinning waits per CPU (task + irq + nmi) */
#define LS_PENDING_TASK_DEPTH	2	/* nested waits per task (PREEMPT_RT's rwbase and its rt_mutex) */

/*
 * The stack of a row: a key of the stacks map (a hash of the frames, its
 * top bit set), or one of these. In the profile, rows carry the file's
 * stack ids instead, with LS_STACK_FAILED and LS_STACK_UNSAMPLED.
 */
#define LS_STACK_NONE		0ULL	/* not sampled: counted in the lock's totals only */
#define LS_STACK_ERR		1ULL	/* sampled, but the stack could not be taken */
#define LS_STACK_AT_END		2ULL	/* sampled, its stack still to take: a wait in progress only */

/*
 * A row's key, looked up in contention_end while the waiter holds the
 * lock it just won: its hash is much of that handler's time, so the key
 * is kept at 24 bytes (doc/design.md): the small fields share one word
 * (cont_key_bits()) and a task's tgid is kept with its comm.
 */
struct cont_key {
	__u64 lock_addr;
	__u64 stack;		/* LS_STACK_NONE, LS_STACK_ERR or a stacks map key */
	__u32 bits;		/* lock type, class, sampling shift, error: cont_key_bits() */
	__u32 tid;		/* 0 unless per-task aggregation (-t) */
};

/*
 * The fields of cont_key.bits: the contention_begin flags (the lock
 * type; the kernel defines six), the enum lock_class, the shift of a
 * sampled wait (taken with probability 2^-shift) and -ret of
 * contention_end, the errno of a wait that ended without the lock (0
 * when it was taken; larger errnos than CK_ERR_MAX are kept as it).
 */
#define CK_FLAGS_MASK	0xffU
#define CK_CLASS_SHIFT	8
#define CK_CLASS_MASK	0xfU
#define CK_SHIFT_SHIFT	12
#define CK_SHIFT_MASK	0x1fU
#define CK_ERR_SHIFT	17
#define CK_ERR_MAX	0x7fffU

static inline __attribute__((always_inline)) __u32 cont_key_bits(__u32 flags, __u32 lock_class, __u32 shift)
{
	return (flags & CK_FLAGS_MASK) | (lock_class & CK_CLASS_MASK) << CK_CLASS_SHIFT |
	       (shift & CK_SHIFT_MASK) << CK_SHIFT_SHIFT;
}

/* A key's bits with the wait's errno added: a row of its own. */
static inline __attribute__((always_inline)) __u32 cont_key_with_err(__u32 bits, __u32 err)
{
	return bits | (err < CK_ERR_MAX ? err : CK_ERR_MAX) << CK_ERR_SHIFT;
}

static inline __attribute__((always_inline)) __u32 cont_key_flags(__u32 bits)
{
	return bits & CK_FLAGS_MASK;
}

static inline __attribute__((always_inline)) __u32 cont_key_class(__u32 bits)
{
	return bits >> CK_CLASS_SHIFT & CK_CLASS_MASK;
}

static inline __attribute__((always_inline)) __u32 cont_key_shift(__u32 bits)
{
	return bits >> CK_SHIFT_SHIFT & CK_SHIFT_MASK;
}

static inline __attribute__((always_inline)) __u32 cont_key_err(__u32 bits)
{
	return bits >> CK_ERR_SHIFT;
}

/*
 * A sampled wait that finds the map of rows full, with no row of its own
 * yet, is counted in a row its lock may have already: first its row of
 * lost stacks (LS_STACK_ERR), at the wait's own weight, so that the
 * callers' estimate stays whole with the wait's caller unknown; then its
 * unsampled row (stack and shift 0): the lock's exact figures stay exact,
 * its callers' estimate misses the wait. Each call steps key to the next
 * such row; false when there is none (an unsampled wait's own row).
 */
static inline __attribute__((always_inline)) int cont_key_fallback(struct cont_key *k)
{
	if (k->stack == LS_STACK_NONE)
		return 0;
	if (k->stack != LS_STACK_ERR) {
		k->stack = LS_STACK_ERR;
		return 1;
	}
	k->stack = LS_STACK_NONE;
	k->bits &= ~(CK_SHIFT_MASK << CK_SHIFT_SHIFT);
	return 1;
}

_Static_assert(LOCK_CLASS__COUNT <= CK_CLASS_MASK + 1, "a lock class fits cont_key.bits");
_Static_assert(LS_MAX_SHIFT <= CK_SHIFT_MASK, "a sampling shift fits cont_key.bits");

/* A task's command and process, for -t: keyed by its tid. */
struct cont_comm {
	char comm[LS_COMM_LEN];
	__u32 tgid;
	__u32 __pad;
};

/* struct cont_val, a row's value: format/consts.h (the writer takes it as is). */

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

/*
 * A task's waits in progress, innermost last: two at most, PREEMPT_RT's
 * rwbase wait and the rt_mutex wait inside it, on another address.
 * last_flags: the flags of each one's latest begin, which tell a mutex's
 * next step (a spin after a sleep, a sleep after a spin) from a new wait.
 */
struct cont_task_waits {
	struct cont_pending slot[LS_PENDING_TASK_DEPTH];
	__u32 last_flags[LS_PENDING_TASK_DEPTH];
	__u32 depth;
	__u32 pad;
};

/*
 * A spinning wait, with its task: the current one of the context that
 * spins (an interrupt's is the task it interrupted). Only that task's
 * end closes it.
 */
struct cont_spin_wait {
	struct cont_pending p;
	__u64 task;		/* its task_struct, only compared */
	__u32 nested;		/* waits that ended above it, in interrupts that came while it spun */
	__u32 __pad;
};

struct cont_pending_spin {
	__u32 depth;
	__u32 pad;
	struct cont_spin_wait slot[LS_PENDING_SPIN_DEPTH];
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
	__u64 map_full_sampled;	/* stats map full: a sampled wait counted in another row of its lock */
	__u64 stacks_full;	/* stacks map full: a sampled wait without its stack */
	__u64 stack_error;	/* bpf_get_stack failed */
	__u64 map_full;		/* stats map full: the wait was not counted */
	__u64 targets_full;	/* a child of the workload could not be followed */
	__u64 in_probe;		/* a wait begun while one of our programs ran on its CPU */
	__u64 end_before_begin;	/* an end whose clock read earlier than its begin's */
};

#endif /* __LOCKSTAT_CONTENTION_H */
