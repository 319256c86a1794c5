/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

/*
 * A hand-written subset of the kernel's types, as perf does
 * (tools/perf/util/bpf_skel/vmlinux/vmlinux.h), rather than a 3 MB generated
 * vmlinux.h: lockstat reads a handful of fields, every struct here is
 * preserve_access_index so CO-RE relocates each field against the running
 * kernel's BTF, the build needs no BTF of its own, and a reviewer sees at a
 * glance which kernel fields the probes depend on. Field types only need
 * to be "compatible" for CO-RE (a struct for a struct), so lock types are
 * reduced to opaque structs whose addresses we compare and never read.
 *
 * Everything here exists on every kernel that has lock:contention_begin
 * (v5.19, commit 16edd9b51180 "locking: Add lock contention tracepoints"),
 * which is why no ___old flavours are needed for rq::__lock (v5.14) or
 * mm_struct::mmap_lock (v5.8).
 */

#include <linux/types.h>
#include <linux/bpf.h>

#define EEXIST 17

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef _Bool bool;
enum { false = 0, true = 1 };

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

struct raw_spinlock { int __opaque; };
typedef struct raw_spinlock raw_spinlock_t;
struct spinlock { int __opaque; };
typedef struct spinlock spinlock_t;
struct rw_semaphore { long __opaque; };

struct files_struct {
	spinlock_t file_lock;
};

struct mm_struct {
	struct rw_semaphore mmap_lock;
};

struct sighand_struct {
	spinlock_t siglock;
};

struct rq {
	raw_spinlock_t __lock;
};

struct task_struct {
	int pid;
	int tgid;
	char comm[16];
	struct files_struct *files;
	struct mm_struct *mm;
	struct sighand_struct *sighand;
	struct task_struct *real_parent;
};

struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

/* Classic tracepoint records, used where tp_btf cannot attach. */
struct trace_event_raw_contention_begin {
	struct trace_entry ent;
	void *lock_addr;
	unsigned int flags;
};

struct trace_event_raw_contention_end {
	struct trace_entry ent;
	void *lock_addr;
	int ret;
};

struct trace_event_raw_sched_process_fork {
	struct trace_entry ent;
	int parent_pid;
	int child_pid;
};

struct trace_event_raw_sched_process_template {
	struct trace_entry ent;
	int pid;
};

/* Kernel register names, as bpf_tracing.h expects when __VMLINUX_H__ is set. */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
