/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SAMPLE_H
#define __LOCKSTAT_SAMPLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "format/consts.h"

/*
 * The sampling profiler: a perf_event program on every CPU counts
 * samples per (process, thread, kernel stack, user stack) in the kernel.
 * Stacks are kept in hash maps under the hash of their frames, as the
 * locks family's are: two stacks never compete for one id, and a stack
 * removed from its map comes back under the same key.
 */
#define LS_SAMPLE_STACK_DEPTH	64	/* the larger of the two: the maps' value */
#define LS_SAMPLE_NO_STACK	0ULL	/* a key's stack: none (user mode, kernel thread) or lost */

struct sample_key {
	__u32 tgid;
	__u32 tid;
	__u64 kstack;		/* a kstacks key, or LS_SAMPLE_NO_STACK */
	__u64 ustack;		/* a ustacks key, or LS_SAMPLE_NO_STACK */
};

struct sample_stack {
	__u32 nr;
	__u32 __pad;
	__u64 ip[LS_SAMPLE_STACK_DEPTH];
};

struct sample_lost {
	__u64 kstack_error;	/* bpf_get_stack failed other than "no stack" */
	__u64 ustack_error;
	__u64 stacks_full;	/* a stack map was full: the sample is counted without that stack */
	__u64 map_full;		/* the counts map was full: the sample was dropped */
	__u64 ustack_dropped;	/* --user-stack dwarf: the ring was full: counted without its user stack */
};

/*
 * --user-stack dwarf (x86-64): a sample with user registers goes to user
 * space whole, the top of its user stack with it, to be unwound there
 * (lib/record/dwunwind.h) and counted under the stack found. regs are
 * the DWARF registers 0 to 16: ax dx cx bx si di bp sp r8..r15 ip.
 */
#define LS_SAMPLE_UREGS		17
#define LS_SAMPLE_USTACK_MAX	65536	/* --user-stack-size's largest */
#define LS_SAMPLE_PAGE		4096

struct sample_uregs {
	__u32 tgid;
	__u32 tid;
	__u64 kstack;		/* a kstacks key, or LS_SAMPLE_NO_STACK */
	__u64 regs[LS_SAMPLE_UREGS];
	__u32 size;		/* bytes of stack copied from regs[7] (sp) */
	__u32 __pad;
	__u8 stack[];		/* ustack_size bytes reserved, size of them read */
};

#endif
