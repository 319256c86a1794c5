/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PAGECACHE_H
#define __LOCKSTAT_PAGECACHE_H

/*
 * Page cache traffic from the filemap and readahead tracepoints, per file
 * and per process. Shared by bpf/pagecache.bpf.c and lib/record/collect_pagecache.c;
 * only __u32/__u64 and char arrays.
 */
#define LS_PC_COMM_LEN	16
#define LS_PC_NAME_LEN	64	/* one path component; longer ones are cut */
#define LS_PC_DEPTH	8	/* components kept, innermost first */

/* Counters of a row, in pages: the index into pc_val.v. */
#define PC_ADDED	0	/* folios added to the cache (reads, writes, readahead) */
#define PC_EVICTED	1	/* removed by reclaim (the task had PF_MEMALLOC) */
#define PC_REMOVED	2	/* removed otherwise: truncate, unlink, fadvise, drop_caches */
#define PC_LOOKUPS	3	/* pages asked of the cache by read(): mm_filemap_get_pages */
#define PC_FAULTS	4	/* filemap_fault() calls: one page each */
#define PC_MAP_PAGES	5	/* pages of fault-around windows (filemap_map_pages) */
#define PC_READAHEAD	6	/* pages readahead set out to read */
#define PC__COUNT	7

struct pc_file_key {
	__u64 ino;
	__u32 dev;		/* the kernel's encoding: major << 20 | minor */
	__u32 __pad;
};

struct pc_proc_key {
	__u32 tgid;
	__u32 __pad;
	char comm[LS_PC_COMM_LEN];
};

struct pc_val {
	__u64 v[PC__COUNT];
};

/* What the probes learn of a file on its first event (tp_btf only). */
struct pc_info {
	__u64 i_pages_lock;	/* &mapping->i_pages.xa_lock */
	__u64 i_lock;		/* &mapping->host->i_lock */
	__u32 depth;		/* components in names[] */
	__u32 truncated;	/* the walk stopped before the root */
	char names[LS_PC_DEPTH][LS_PC_NAME_LEN];	/* the file's name first */
};

struct pc_lost {
	__u64 files_full;
	__u64 procs_full;
	__u64 info_full;
};

#endif
