/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HIST_BPF_H
#define __LOCKSTAT_HIST_BPF_H

/*
 * The log2 histogram slot of a duration in ns, for every family that
 * keeps one: slot i holds [2^i, 2^(i+1)), the last one everything longer.
 * Branch-free, so the verifier sees one path.
 */
static __always_inline __u32 log2_slot(__u64 v, __u32 nslots)
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
