/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_FD_H
#define __LOCKSTAT_FD_H

/*
 * The fd family: fd syscalls per thread (raw_syscalls:sys_enter), the fd
 * table each thread uses (task->files, so that user space can count the
 * threads sharing one and join files->file_lock to the contention rows),
 * and calls and latency of the fget family where fentry or kprobes
 * attach. Shared by bpf/fd.bpf.c and lib/record/collect_fd.c; only __u32/__u64
 * and the comm bytes.
 */
#define LS_FD_SLOTS		4	/* fget-family functions measured at once */
#define LS_FD_NR_MAX		512	/* syscall numbers the filter can name */
#define LS_FD_NSYSCALLS		64	/* fd syscalls counted, by their index */
#define LS_FD_COMM_LEN		16

/*
 * Every key is per thread, and a thread runs on one CPU at a time: plain
 * hashes updated in place are exact.
 */
struct fd_thread_key {
	__u32 tgid;
	__u32 tid;
};

/* One lookup per syscall: the counts live in the thread's row. */
struct fd_thread {
	__u64 files;		/* task->files: threads that share it share the fd table */
	__u64 file_lock;	/* &files->file_lock: joins the contention rows */
	char comm[LS_FD_COMM_LEN];
	__u64 calls[LS_FD_NSYSCALLS];	/* by the index the collector gave each syscall */
};

struct fd_fget_key {
	__u32 tgid;
	__u32 tid;
	__u32 slot;		/* which function: the collector's choice, in order */
	__u32 __pad;
};

struct fd_fget_val {
	__u64 calls;
	__u64 total_ns;
	__u64 max_ns;
};

/* A call in progress: nested calls (fget -> __fget_files) use other slots. */
struct fd_pending_key {
	__u32 tid;
	__u32 slot;
};

struct fd_lost {
	__u64 threads_full;
	__u64 fget_full;
	__u64 pending_full;
	__u64 exit_unseen;	/* a return without its entry (attached mid-call) */
};

#endif
