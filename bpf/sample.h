/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SAMPLE_H
#define __LOCKSTAT_SAMPLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The sampling profiler: a perf_event program on every CPU counts
 * samples per (process, thread, kernel stack, user stack) in the kernel.
 */
#define LS_SAMPLE_KSTACK_DEPTH	64
#define LS_SAMPLE_USTACK_DEPTH	64

struct sample_key {
	__u32 tgid;
	__u32 tid;
	__s32 kstack;		/* <0: none (user mode) or lost */
	__s32 ustack;		/* <0: none (kernel thread) or lost */
};

struct sample_lost {
	__u64 kstack_error;	/* bpf_get_stackid failed other than "no stack" */
	__u64 ustack_error;
	__u64 stack_collision;	/* a stack map bucket held another stack */
	__u64 map_full;		/* the counts map was full: the sample was dropped */
};

#endif
