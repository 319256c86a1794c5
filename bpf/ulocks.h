/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_ULOCKS_H
#define __LOCKSTAT_ULOCKS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "format/consts.h"

/*
 * User-space locks, for any process and without LD_PRELOAD: waits from
 * the futex syscall tracepoints (per lock word, process and user stack),
 * the threads whose wakes ended them, and, opt-in, acquisitions and hold
 * times from uprobes on glibc's lock functions. Shared by
 * bpf/ulocks.bpf.c and lib/record/collect_ulocks.c; only __u32/__u64.
 */
#define LS_ULOCK_STACK_DEPTH	TUSTACK_DEPTH
#define LS_ULOCK_HIST_SLOTS	LS_HIST_SLOTS

/*
 * A thread: the contended acquisition it is in and its futex wait so far
 * (user space closes the ones still open when the recording stops).
 */
struct ulock_thread {
	__u64 lock;		/* the contention in progress, 0 when none */
	__u64 wait_start;	/* in a futex wait since (ktime), 0 when not */
	__u64 waited_ns;	/* the merged waits of this contention */
	__u64 cond_wait_ns;	/* its waits on condition variables, of a mutex unknown */
	__u64 wait_word;	/* the word of the wait in progress */
	__u32 kind;
	__u32 owner;		/* a mutex's __owner at the first wait */
	__u32 wait_kind;
	__u32 tgid;
	__u64 frames[LS_ULOCK_STACK_DEPTH];	/* its last wait's stack */
	__u64 wake_frames[LS_ULOCK_STACK_DEPTH];	/* its last wake's */
	__u64 frames_at[4];	/* ip, sp, bp, *(bp + 8) where frames were taken */
	__u64 wake_frames_at[4];
	__u64 in_lock;		/* uprobes: the lock of its last lock call, 0 after unlock */
	__u32 in_lock_kind;
	__u32 tid;		/* its key: the waiter of the wait rows it closes */
	__u64 cond_mutex;	/* uprobes: the mutex its last condition wait let go, 0: unknown */
};

/* A row of the wait and hold tables. */
struct ulock_key {
	__u64 lock;		/* user address: the futex word, or the pthread object */
	__u32 tgid;
	__u32 kind;		/* ULK_* */
	__u64 frames[LS_ULOCK_STACK_DEPTH];	/* user stack of the waiter or locker */
};

/* One contended acquisition: its futex waits merged (lib/record/collect_ulocks.c). */
struct ulock_wait {
	__u64 count;
	__u64 total_ns;
	__u64 min_ns;
	__u64 max_ns;
	/*
	 * The lowest and highest TID that waited: equal over every row of
	 * a word, one thread waited on it (a per-thread semaphore or event,
	 * which the locks view groups by its wait site).
	 */
	__u32 waiter_min;
	__u32 waiter_max;
	__u32 hist[LS_ULOCK_HIST_SLOTS];
};

/* A waiter woken by one thread, charged to that thread's release. */
struct uwake_key {
	__u64 lock;
	__u32 tgid;
	__u32 kind;
	__u32 waker;		/* TID of the waking thread, or the owner read at wait time */
	__u32 from_owner;	/* 1: no wake seen, waker is the mutex's __owner */
	__u64 frames[LS_ULOCK_STACK_DEPTH];	/* the waker's stack; none for an owner */
};

struct uwake_val {
	__u64 wakes;
	__u64 wait_ns;		/* the woken waits' time */
};

/* uprobes: every acquisition, contended or not. */
struct uhold_val {
	__u64 acquired;
	__u64 held;		/* releases matched to an acquisition */
	__u64 hold_ns;		/* lock call to unlock call, less the futex waits between */
	__u64 hold_max_ns;
};

struct ulock_lost {
	__u64 threads_full;	/* no slot for a thread: its waits are not counted */
	__u64 rows_full;
	__u64 stack_error;	/* no user stack (a row keyed by the lock alone) */
	__u64 wakes_full;
	__u64 holds_full;	/* no slot for a held lock */
	__u64 unlock_unseen;	/* an unlock of a lock taken before the start (or by trylock) */
};

#endif
