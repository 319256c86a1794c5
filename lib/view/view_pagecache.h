/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_PAGECACHE_H
#define __LOCKSTAT_VIEW_PAGECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/htab.h"
#include "format/profile.h"

/*
 * The pagecache view: the page cache traffic of each file and process
 * (the pagecache family's tables, lib/record/collect_pagecache.c), with
 * the contention on each file's xarray lock (address_space.i_pages)
 * joined from the lock rows.
 */
enum pc_val { PC_ADDED, PC_EVICTED, PC_REMOVED, PC_LOOKUPS, PC_FAULTS, PC_MAP_PAGES, PC_READAHEAD, PC__NVALS };

/* The value columns of both tables, in enum pc_val's order. */
/* The value's column name in the pagecache tables. */
const char *pc_val_name(enum pc_val v);

/* One file (dev, ino) or process (pid, comm), merged over its rows. */
struct pc_entry {
	uint64_t id[2];		/* dev, ino; or pid, comm string id */
	const char *name;	/* path ("" when not found) or comm */
	uint64_t lock;		/* the file's i_pages lock, 0 when not known */
	uint64_t v[PC__NVALS];
	uint64_t contended;	/* on that lock */
	uint64_t wait_ns;
	/*
	 * 1 - added/lookups in %: each page read() asks for and does not
	 * find is added, so added/lookups estimates the miss ratio (see
	 * lockstat-report(1) for why it is only an estimate). NAN: not known.
	 */
	double hit_pct;
};

struct pc_list {
	struct pc_entry *e;	/* most pages added first, then most looked up */
	size_t n;
	size_t cap;
	struct htab index;	/* id[2] -> size_t + 1 */
};

struct pagecache_view {
	bool recorded;		/* the family was attached */
	bool lookups_counted;	/* the kernel had mm_filemap_get_pages */
	struct htab locks;	/* lock address -> uint64_t[2]: contended, wait_ns */
	struct pc_list files;
	struct pc_list procs;
};

/*
 * 0; -ENOENT when the profile holds no page cache data and the family
 * was not recorded; -EINVAL when a table lacks its key columns; -ENOMEM.
 * v is to be freed in every case.
 */
int pagecache_view__build(struct pagecache_view *v, const struct profile *p);
void pagecache_view__free(struct pagecache_view *v);

#endif
