/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_FORMAT_CONSTS_H
#define __LOCKSTAT_FORMAT_CONSTS_H

/*
 * The numbers the profile file is defined by: its histograms' slots, its
 * stacks' depths, the codes of its lock types and kinds. The file format
 * owns them; the BPF programs' headers (bpf/NAME.h) include this one, so
 * that what the kernel side counts is what the file can hold, and never
 * the reverse. BPF C includes it too: no libc, only #defines, an enum, one
 * struct and one inline function on the kernel's __u32/__u64.
 */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Lock rows: a wait's log2(ns) histogram, slot i holds [2^i, 2^(i+1)) ns. */
#define LS_HIST_SLOTS		40
#define LS_STACK_DEPTH		32	/* kernel frames kept per lock stack */
#define LS_COMM_LEN		16
#define LS_MAX_SHIFT		30	/* a sampled row's lowest probability: 2^-shift */

/*
 * A lock row's waits, as the contention program counts them and the
 * writer takes them (struct cont_row).
 */
struct cont_val {
	__u64 count;
	__u64 total_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 sumsq_lo;		/* sum of the squared waits (shift > 0 only), 128 bits */
	__u64 sumsq_hi;
	__u32 hist[LS_HIST_SLOTS];
};

/* Stack ids of lock rows that have no stack. */
#define LS_STACK_FAILED		(-1)	/* sampled, the stack lost */
#define LS_STACK_UNSAMPLED	(-2)	/* not sampled */

/* Samples: frames per stack. */
#define LS_SAMPLE_KSTACK_DEPTH	64
#define LS_SAMPLE_USTACK_DEPTH	64

/* Counter tables' stacks: short kernel stacks and user stacks. */
#define TSTACK_DEPTH		8
#define TUSTACK_DEPTH		16

/* A lock row's type: lock:contention_begin's flags, include/trace/events/lock.h */
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

/* The "kind" column of the hold table. */
#define HOLD_SPIN		1
#define HOLD_MUTEX		2
#define HOLD_RWSEM_READ		3
#define HOLD_RWSEM_WRITE	4

/* The "shift" column of the mmap_lock table: no stack was taken. */
#define LS_MMAP_UNSAMPLED	0xffff

/*
 * The "kind" column of the ulocks tables. Mutex-style locks first; COND
 * and FUTEX are waits for an event, not for a lock, and stay out of the
 * lock table unless asked for by type (lockstat-report(1)).
 */
#define ULK_MUTEX	1	/* FUTEX_WAIT with val 2: glibc's lll_lock protocol */
#define ULK_MUTEX_PI	2	/* FUTEX_LOCK_PI: owner TID in the lock word */
#define ULK_RWLOCK_R	3	/* uprobes only: glibc's rwlock futexes are not told apart */
#define ULK_RWLOCK_W	4
#define ULK_SPIN	5	/* uprobes only: spins in user space, never sleeps */
#define ULK_COND	6	/* FUTEX_WAIT_BITSET on a pthread_cond_t's __g_signals */
#define ULK_FUTEX	7	/* any other futex wait: semaphores, joins, barriers, rwlocks */
/*
 * Never recorded: the locks view's rows of waits on words that one thread
 * alone waited on (per-thread semaphores, events), grouped by wait site.
 */
#define ULK_SITE	8
#define ULK__COUNT	9

/*
 * The log2 histogram slot of a duration in ns, for the BPF families that
 * keep one, the collector, which closes the waits still open at the end,
 * and the readers that check a row: slot i holds [2^i, 2^(i+1)), the last
 * one everything longer. Branch-free, so the verifier sees one path.
 */
static inline __attribute__((always_inline)) __u32 log2_slot(__u64 v, __u32 nslots)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r < nslots ? r : nslots - 1;
}

#endif
