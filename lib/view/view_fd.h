/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_FD_H
#define __LOCKSTAT_VIEW_FD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/htab.h"
#include "format/family_meta.h"
#include "format/profile.h"

/*
 * The fd view: one row per process of the fd family's tables
 * (lib/record/collect_fd.c) joined with the lock rows. How many threads
 * share the process's fd table, how often they enter fd syscalls (and
 * which), what the fget family costs them where it was measured, and how
 * long they waited on that table's file_lock: the lock rows whose address
 * is one of the process's &files->file_lock.
 */
#define FD_TOP		3	/* syscalls named per process */

struct fd_top {
	uint32_t name;		/* string id */
	uint64_t calls;
};

struct fd_proc {
	uint32_t pid;
	uint32_t comm;		/* of its busiest thread row */
	uint64_t comm_calls;
	uint64_t files;		/* the fd table most of its syscalls used */
	uint64_t files_calls;
	uint64_t threads;	/* distinct tids that used that table */
	uint64_t syscalls;
	struct fd_top top[FD_TOP];	/* busiest first; calls 0: none */
	uint64_t fget_calls;
	uint64_t fget_ns;
	uint64_t fget_max_ns;
	uint64_t contended;	/* on the file_locks of its tables */
	uint64_t wait_ns;
	/* over the recording's duration, rounded; 0 when it has none */
	uint64_t syscalls_per_s;
	uint64_t fget_per_s;
	uint64_t fget_avg_ns;
	double wait_pct;	/* file_lock wait, % of the duration */
};

/* One thread, for the JSON detail. */
struct fd_thread_row {
	uint32_t pid;
	uint32_t tid;
	uint32_t comm;
	uint32_t __pad;
	uint64_t comm_calls;
	uint64_t files;
	uint64_t syscalls;
	uint64_t fget_calls;
};

struct pid_u64 {
	uint32_t pid;
	uint32_t __pad;
	uint64_t v;
};

/* Which processes: fnmatch(3) comm glob, pid, the busiest top_n (0: all). */
struct fd_filter {
	const char *comm;
	long pid;		/* -1: any */
	unsigned long top_n;
};

struct fd_view {
	struct htab procs;	/* uint32 pid -> fd_proc */
	struct htab threads;	/* {pid, tid} -> fd_thread_row */
	struct htab tables;	/* pid_u64 {pid, files} -> uint64 syscalls */
	struct htab table_tids;	/* {pid, tid, files} -> (set) */
	struct htab file_locks;	/* pid_u64 {pid, file_lock} -> (set) */
	struct htab sys;	/* pid_u64 {pid, name id} -> uint64 calls */
	struct htab waits;	/* uint64 lock_addr -> uint64[2] count, total */
	struct fd_proc **order;	/* the processes shown, most fd syscalls first */
	size_t n;
	struct fd_thread_row *trows;	/* sorted by pid, tid */
	size_t ntrows;
	struct family_status probe;	/* the fd family's, as recorded */
	char sys_mode[32];	/* how the syscalls were counted */
	const char *fget;	/* how the fget family was measured */
	const char *fget_why;	/* or why it was not: NULL when it was */
	bool locks;		/* the contention family was recorded */
	bool any_syscalls;	/* the profile has an fd.threads table */
	double secs;
};

/*
 * 0; -ENOENT when the profile has no fd data (v->probe says why);
 * -EINVAL when its fd tables lack a column this view needs; -ENOMEM.
 * v is to be freed in every case.
 */
int fd_view__build(struct fd_view *v, const struct profile *p, const struct fd_filter *f);
void fd_view__free(struct fd_view *v);
/* The threads of process p, sorted by tid: how many, from *first. */
size_t fd_view__threads(const struct fd_view *v, const struct fd_proc *p,
			const struct fd_thread_row **first);

#endif
