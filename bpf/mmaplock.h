/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_MMAPLOCK_H
#define __LOCKSTAT_MMAPLOCK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "format/consts.h"

/*
 * mmap_lock waits and holds from the mmap_lock tracepoints: start_locking
 * -> acquire_returned -> released, per lock, process, mode and the short
 * kernel stack of the acquirer, where the stack sampler (sampler.h) gave
 * the acquisition one. Shared by bpf/mmaplock.bpf.c and
 * lib/record/collect_mmaplock.c; only __u32/__u64.
 */
#define LS_MMAP_STACK_DEPTH	TSTACK_DEPTH

struct mmap_key {
	__u64 lock_addr;	/* &mm->mmap_lock: joins the contention rows */
	__u32 tgid;
	__u16 write;
	__u16 shift;		/* the stack was taken with probability 2^-shift, or LS_MMAP_UNSAMPLED */
	__u64 frames[LS_MMAP_STACK_DEPTH];	/* zero where not sampled */
};

struct mmap_val {
	__u64 acquired;
	__u64 failed;		/* trylock or killable/interruptible lock gave up */
	__u64 wait_ns;		/* start_locking -> acquire_returned */
	__u64 wait_max_ns;
	__u64 held;		/* releases matched to an acquisition */
	__u64 hold_ns;
	__u64 hold_max_ns;
};

struct mmap_lost {
	__u64 no_acquire;	/* a release with no acquisition seen (held before the start) */
	__u64 pending_full;
	__u64 rows_full;
};

#endif
