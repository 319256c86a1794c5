/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HIST_H
#define __LOCKSTAT_HIST_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The log2 histogram slot of a duration in ns, for the BPF families that
 * keep one and for the collector, which closes the waits still open at
 * the end: slot i holds [2^i, 2^(i+1)), the last one everything longer.
 * Branch-free, so the verifier sees one path.
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
