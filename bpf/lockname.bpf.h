/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_LOCKNAME_BPF_H
#define __LOCKSTAT_LOCKNAME_BPF_H

#include "names.h"

/*
 * The slab cache of each lock address, for the names of dynamic locks
 * (lib/record/lockname.c turns cache and offset into a struct field).
 *
 * Looked up when the lock's first stats row is created, once per row
 * rather than per wait, while the object is certainly alive (a task is
 * taking its lock, or holds it): at drain time it may have been freed
 * and its slab reused. The
 * kfunc is Linux 6.13+; elsewhere lockname_slab stays 0, the verifier
 * drops the call as dead code, and the weak extern resolves to nothing.
 *
 * A lock on the waiting task's own stack (a completion in submit_bio_wait)
 * is noted as LS_CACHE_ON_STACK on every kernel: its address means
 * nothing from one wait to the next, the function that put it there does.
 * One compare per new row; a lock on another task's stack is not seen.
 */
struct kmem_cache___lockname {	/* opaque; libbpf checks only that it is a struct */
	int __opaque;
};

extern struct kmem_cache___lockname *bpf_get_kmem_cache(__u64 addr) __ksym __weak;

const volatile __u32 lockname_slab;	/* the kernel has bpf_get_kmem_cache() */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);		/* lock address */
	__type(value, __u64);		/* its kmem_cache; 0: not in a slab */
	__uint(max_entries, 16384);	/* user space deletes what it has read */
} lock_caches SEC(".maps");

static __always_inline void lockname_note(__u64 addr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 cache = LS_CACHE_ON_STACK;

	if (bpf_map_lookup_elem(&lock_caches, &addr))
		return;
	if (addr - (__u64)task->stack >= LS_THREAD_SIZE) {
		if (!lockname_slab)
			return;
		cache = (__u64)bpf_get_kmem_cache(addr);
	}
	bpf_map_update_elem(&lock_caches, &addr, &cache, BPF_NOEXIST);
}

#endif
