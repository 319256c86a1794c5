/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SAMPLER_H
#define __LOCKSTAT_SAMPLER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "format/consts.h"

/*
 * The kernel stack sampler's per-CPU state (bpf/sampler.bpf.h), one map
 * that every family taking kernel stacks of lock events shares (the
 * contention waits and the mmap_lock acquisitions): one --stack-rate
 * budget per CPU for them all. Only __u8 to __u64, explicit padding.
 */
#define LS_SAMPLER_SLOTS	256	/* locks hashed into strata, each with its own p */
#define LS_SAMPLED_LOCKS	1024	/* per CPU, locks remembered as having had their free stack */

/* A stratum of the stack sampler: the locks hashed to one slot, on one CPU. */
struct sampler_slot {
	__u16 count;		/* its waits in this window (saturating) */
	__u8 target;		/* p = 2^-(target + the sampler's extra): the previous window's rate */
	__u8 __pad8;
	__u32 __pad;
};

/* Per-CPU state of the stack sampler (see sampler_draw). */
struct stack_sampler {
	__u64 window_start_ns;
	__u64 last_ns;		/* the clock of the latest wait begun on this CPU */
	__s32 tokens;		/* stacks this CPU may still take, in 1/1024: a second's at most; < 0: owed */
	__u32 over;		/* stacks taken without a token in this window */
	__u32 extra;		/* added to every shift: a storm within the window */
	__u32 active;		/* slots with waits in this window */
	__u32 waits;		/* waits in this window, every slot's */
	__u32 __pad;
	struct sampler_slot slot[LS_SAMPLER_SLOTS];
	__u64 sampled[LS_SAMPLED_LOCKS];	/* direct-mapped by the lock's hash: its address */
};

#endif
