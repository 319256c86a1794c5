/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_STACKHASH_BPF_H
#define __LOCKSTAT_STACKHASH_BPF_H

/*
 * The key a stack is kept under in a hash map (the locks family's
 * kernel stacks, the sampler's stacks): its nr frames mixed into 64
 * bits. depth is the array's size, a constant the verifier bounds the
 * loop with.
 */
static __always_inline __u64 hash_frames(const __u64 *ip, __u32 nr, __u32 depth)
{
	__u64 h = 0x9e3779b97f4a7c15ULL ^ nr;
	__u32 i;

	for (i = 0; i < depth; i++) {
		if (i >= nr)
			break;
		h = (h ^ ip[i]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

#endif
