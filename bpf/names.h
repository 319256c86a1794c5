/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_NAMES_H
#define __LOCKSTAT_NAMES_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The names object (bpf/names.bpf.c): programs run through
 * BPF_PROG_TEST_RUN, never attached, that find what only BPF can see of
 * the kernel's locks. Inputs and outputs are its global variables.
 */
#define LS_MAX_CPUS		1024	/* perf found 4096 iterations too many for the verifier */
#define LS_NAMES_BATCH		64	/* addresses or caches per run */
#define LS_CACHE_NAME_LEN	48

/*
 * lock_caches' value for a lock on the waiting task's own stack (no
 * kmem_cache is at address 1): a completion or wait queue head that a
 * function put on its stack (bpf/lockname.bpf.h).
 */
#define LS_CACHE_ON_STACK	1
/*
 * THREAD_SIZE of x86-64 and arm64 (KASAN doubles it: a lock in the upper
 * half of such a stack is then left unnamed, never misnamed).
 */
#define LS_THREAD_SIZE		16384

/* A kmem_cache, as read_caches copies it. */
struct ls_cache {
	__u64 cache;		/* in: the kmem_cache pointer */
	__u32 size;		/* object plus metadata: the stride in a slab */
	__u32 object_size;
	__u32 order;		/* of a slab, from s->oo */
	__u32 min_order;	/* of a slab allocated under memory pressure, from s->min */
	__u32 red_left_pad;
	__s32 refcount;		/* above 1: other caches were merged into it */
	char name[LS_CACHE_NAME_LEN];
};

/*
 * Locks of lockstat's own objects whose place the self-check knows: each
 * is named through the slab path and compared with the expected name.
 */
enum ls_self_lock {
	LS_SELF_FILE_LOCK,	/* current->files->file_lock */
	LS_SELF_MMAP_LOCK,	/* current->mm->mmap_lock */
	LS_SELF_SIGLOCK,	/* current->sighand->siglock */
	LS_SELF_PI_LOCK,	/* current->pi_lock */
	LS_SELF_CRED_GUARD,	/* current->signal->cred_guard_mutex */
	LS_SELF_F_POS_LOCK,	/* the file of fd self_fd: f_pos_lock */
	LS_SELF_D_LOCK,		/* its dentry's d_lockref.lock */
	LS_SELF_I_LOCK,		/* its inode's i_lock */
	LS_SELF__COUNT,
};

#endif
