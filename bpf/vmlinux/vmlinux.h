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

typedef struct {
	int counter;
} atomic_t;

/* The target filter: a process's threads not yet exited, 0 in the last one's sched_process_exit. */
struct signal_struct {
	atomic_t live;
};

struct task_struct {
	int pid;
	int tgid;
	char comm[16];
	unsigned int flags;		/* PF_*: pagecache tells reclaim (PF_MEMALLOC) from truncation */
	struct files_struct *files;
	struct mm_struct *mm;
	struct sighand_struct *sighand;
	struct signal_struct *signal;
	struct task_struct *real_parent;
	void *stack;			/* the task's kernel stack: locks on it (lockname.bpf.h) */
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

struct trace_event_raw_sys_enter {
	struct trace_entry ent;
	long id;
	unsigned long args[6];
};

/*
 * The page cache family (bpf/pagecache.bpf.c): a folio's file, the file's
 * xarray lock and one dentry name chain. dentry::d_name (on 6.18) and
 * inode::i_dentry sit in anonymous unions: CO-RE finds a field inside
 * anonymous members by its name.
 */
struct qstr {
	const unsigned char *name;
};

struct hlist_node {
	struct hlist_node *next;
};

struct hlist_head {
	struct hlist_node *first;
};

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	union {
		struct hlist_node d_alias;
	} d_u;
};

struct super_block {
	unsigned int s_dev;
};

struct xarray {
	spinlock_t xa_lock;
};

struct address_space {
	struct inode *host;
	struct xarray i_pages;
};

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
	struct address_space *i_mapping;
	struct hlist_head i_dentry;
	spinlock_t i_lock;	/* reclaim's __remove_mapping() takes it before i_pages */
	long long i_size;
};

/*
 * A large folio's size is in its first tail page, on 64-bit kernels:
 * _nr_pages (6.18), _folio_nr_pages in older ones (6.1). flags is the
 * first word of every struct page (a memdesc_flags_t on 6.18: read as a
 * word, not through CO-RE). PG_head tells a large folio; its value moves.
 */
struct folio {
	struct address_space *mapping;
	unsigned int _nr_pages;
};

struct folio___old {
	unsigned int _folio_nr_pages;
};

enum pageflags {
	PG_head = 6,
};

struct file_ra_state {
	unsigned int size;
};

struct trace_event_raw_mm_filemap_op_page_cache {
	struct trace_entry ent;
	unsigned long i_ino;
	unsigned long index;
	unsigned int s_dev;
	unsigned char order;	/* not on 6.1: every page counts 1 there */
};

struct trace_event_raw_mm_filemap_op_page_cache_range {
	struct trace_entry ent;
	unsigned long i_ino;
	unsigned int s_dev;
	unsigned long index;
	unsigned long last_index;
};

struct trace_event_raw_mm_filemap_fault {
	struct trace_entry ent;
	unsigned long i_ino;
	unsigned int s_dev;
	unsigned long index;
};

struct trace_event_raw_page_cache_ra_unbounded {
	struct trace_entry ent;
	unsigned long i_ino;
	unsigned int s_dev;
	unsigned long index;
	unsigned long nr_to_read;
};

struct trace_event_raw_page_cache_ra_order {
	struct trace_entry ent;
	unsigned long i_ino;
	unsigned int s_dev;
	unsigned long index;
	unsigned int order;
	unsigned int size;
};

/* A task iterator's context: the contention family reads the waits still open at the stop. */
struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id;
	__u64 seq_num;
};

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
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
