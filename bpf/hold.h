/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HOLD_H
#define __LOCKSTAT_HOLD_H

#include "format/consts.h"

/*
 * Hold times of kernel spinlocks, mutexes and rw_semaphores from the lock
 * functions themselves (fexit/fentry; never kprobes): every
 * acquisition, not only the contended ones, as lockmeter counted them.
 * Shared by bpf/hold.bpf.c and lib/record/collect_hold.c; only __u32/__u64.
 */
#define HOLD_STACK_DEPTH	TSTACK_DEPTH

/* Row kinds (HOLD_SPIN ...): format/consts.h. */

/* What a lock function's return value says about the acquisition. */
#define HOLD_RET_VOID		0	/* returns when it has the lock */
#define HOLD_RET_TRY		1	/* nonzero: acquired; zero: gave up at once */
#define HOLD_RET_ERR		2	/* zero: acquired; -EINTR: a signal came first */

/*
 * X(function, kind, how, release): the acquire side. A function is only
 * attached with its release function, since a hold that never ends
 * would fill the per-CPU slots. spin_trylock_irqsave() is
 * _raw_spin_trylock() released by _raw_spin_unlock_irqrestore(): releases
 * match by lock address, whichever variant ends the hold.
 */
#define HOLD_LOCK_FUNCS(X)								\
	X(_raw_spin_lock, HOLD_SPIN, HOLD_RET_VOID, _raw_spin_unlock)			\
	X(_raw_spin_lock_irq, HOLD_SPIN, HOLD_RET_VOID, _raw_spin_unlock_irq)		\
	X(_raw_spin_lock_irqsave, HOLD_SPIN, HOLD_RET_VOID, _raw_spin_unlock_irqrestore) \
	X(_raw_spin_lock_bh, HOLD_SPIN, HOLD_RET_VOID, _raw_spin_unlock_bh)		\
	X(_raw_spin_trylock, HOLD_SPIN, HOLD_RET_TRY, _raw_spin_unlock)			\
	X(mutex_lock, HOLD_MUTEX, HOLD_RET_VOID, mutex_unlock)				\
	X(mutex_lock_interruptible, HOLD_MUTEX, HOLD_RET_ERR, mutex_unlock)		\
	X(mutex_lock_killable, HOLD_MUTEX, HOLD_RET_ERR, mutex_unlock)			\
	X(mutex_trylock, HOLD_MUTEX, HOLD_RET_TRY, mutex_unlock)			\
	X(down_read, HOLD_RWSEM_READ, HOLD_RET_VOID, up_read)				\
	X(down_read_interruptible, HOLD_RWSEM_READ, HOLD_RET_ERR, up_read)		\
	X(down_read_killable, HOLD_RWSEM_READ, HOLD_RET_ERR, up_read)			\
	X(down_read_trylock, HOLD_RWSEM_READ, HOLD_RET_TRY, up_read)			\
	X(down_write, HOLD_RWSEM_WRITE, HOLD_RET_VOID, up_write)			\
	X(down_write_killable, HOLD_RWSEM_WRITE, HOLD_RET_ERR, up_write)		\
	X(down_write_trylock, HOLD_RWSEM_WRITE, HOLD_RET_TRY, up_write)

/*
 * X(function, kind): the release side. downgrade_write() ends a write
 * hold and starts a read hold, as the mmap_lock tracepoints count it;
 * it comes after up_read, which ends that read hold.
 */
#define HOLD_DOWNGRADE		5	/* not a row kind: a release's */
#define HOLD_UNLOCK_FUNCS(X)				\
	X(_raw_spin_unlock, HOLD_SPIN)			\
	X(_raw_spin_unlock_irq, HOLD_SPIN)		\
	X(_raw_spin_unlock_irqrestore, HOLD_SPIN)	\
	X(_raw_spin_unlock_bh, HOLD_SPIN)		\
	X(mutex_unlock, HOLD_MUTEX)			\
	X(up_read, HOLD_RWSEM_READ)			\
	X(up_write, HOLD_RWSEM_WRITE)			\
	X(downgrade_write, HOLD_DOWNGRADE)

/* One row: a lock, how it was taken, and the short stack of the taker. */
struct hold_row_key {
	__u64 lock_addr;
	__u32 kind;		/* HOLD_SPIN .. HOLD_RWSEM_WRITE */
	__u32 pad;
	__u64 frames[HOLD_STACK_DEPTH];
};

struct hold_row_val {
	__u64 acquired;
	__u64 held;		/* releases matched to an acquisition */
	__u64 hold_ns;
	__u64 hold_max_ns;
	__u64 failed;		/* trylock, or interrupted/killed while waiting */
};

struct hold_lost {
	__u64 unmatched_release;	/* a release with no acquisition seen */
	__u64 release_unseen;		/* a hold dropped: its release was never seen */
	__u64 pending_full;		/* a hold not tracked: slots or map full */
	__u64 rows_full;
	__u64 nested;			/* a lock taken while one of our programs ran on its CPU */
};

#endif
