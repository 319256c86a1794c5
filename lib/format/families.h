/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_FAMILIES_H
#define __LOCKSTAT_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/consts.h"
#include "format/ctable.h"

/*
 * The probe families and their counter tables: the one place that names
 * them. record's -e and its help, the opt-in and costly sets, top's hints
 * and the man pages' lists (tests/check-families.sh) come from
 * LOCKSTAT_FAMILIES; the collectors write, and the views read, the tables
 * of LOCKSTAT_TABLES by the column enums generated from it, never by a
 * name typed as a string. A family's collector is name_family
 * (lib/record/collect_*.c).
 *
 * F(NAME, name, flags, help): in the order they open and drain (uprobes
 * after ulocks, which attaches them); name is what -e takes, help what
 * probe says the family measures, through which probes.
 */
enum family_flag {
	FAM_DEFAULT = 1 << 0,	/* recorded unless -e leaves it out; the others are opt-in */
	FAM_WITH_LOCKS = 1 << 1,	/* in the default because it comes with locks */
	FAM_TABLES = 1 << 2,	/* writes counter tables (report --view tables, top's tables) */
};

#define LOCKSTAT_FAMILIES(F)								\
	F(LOCKS, locks, FAM_DEFAULT,							\
	  "kernel lock waits: lock:contention_begin/end")				\
	F(SAMPLE, sample, FAM_DEFAULT,							\
	  "where the CPU time goes: cycles where a PMU exists, else cpu-clock, one event per CPU") \
	F(MMAP_LOCK, mmap_lock, FAM_DEFAULT | FAM_WITH_LOCKS | FAM_TABLES,		\
	  "mmap_lock tracepoints: wait and hold of every acquisition, sampled stacks")	\
	F(FD, fd, FAM_TABLES,								\
	  "fd syscalls per thread, threads sharing each fd table, the fget family's calls and latency") \
	F(PAGECACHE, pagecache, FAM_TABLES,						\
	  "filemap and readahead events: pages added, evicted, looked up, faulted, per file and process") \
	F(HOLD, hold, FAM_TABLES,							\
	  "acquisitions and hold times, from the lock and unlock functions (record --hold)") \
	F(ULOCKS, ulocks, FAM_TABLES,							\
	  "user-space lock waits from the futex syscalls (record -e ulocks)")		\
	F(UPROBES, uprobes, 0,		/* its tables are ulocks' */			\
	  "acquisitions and holds of user locks, from uprobes on glibc's lock functions " \
	  "(record --uprobes; about 20 us a hit)")

enum family_index {
#define FAMILY_INDEX(NAME, name, flags, help)	FAMILY_I_##NAME,
	LOCKSTAT_FAMILIES(FAMILY_INDEX)
#undef FAMILY_INDEX
	FAMILY_COUNT
};

/* Sets of families are masks of these bits. */
enum family {
#define FAMILY_BIT(NAME, name, flags, help)	FAMILY_##NAME = 1 << FAMILY_I_##NAME,
	LOCKSTAT_FAMILIES(FAMILY_BIT)
#undef FAMILY_BIT
};

/* The families whose flags have all of these bits. */
unsigned int family_mask(unsigned int flags);
/* The default set; the opt-in families are every other one. */
#define FAMILY_DEFAULT	family_mask(FAM_DEFAULT)
#define FAMILY_OPTIN	(((1U << FAMILY_COUNT) - 1) & ~FAMILY_DEFAULT)

unsigned int family_flags(enum family f);
const char *family_name(enum family f);
/* What the family measures, through which probes: one line, for probe. */
const char *family_what(enum family f);
/* The family's name in report headers and probe.NAME keys: "contention" for "locks". */
const char *family_legacy_name(const char *family);
/* "locks,sample" -> mask; 0 or -EINVAL with the bad word in *bad. */
int family_parse(const char *list, unsigned int *mask, const char **bad);
/* The names family_parse() knows, comma-separated, for messages. */
const char *family_names_list(void);
/* The default set as -e spells it, "locks,sample" (what comes with locks left out). */
const char *family_default_names(void);
/*
 * -e's help, without a final newline: the first line follows the option's
 * own column (indent wide), the next ones are indented by indent spaces,
 * words wrapped so that no line is longer than width.
 */
const char *family_events_help(int indent, int width);
/* The names of the families with all of flags, "a, b or c" (hints). */
const char *family_names_or(unsigned int flags, char *buf, size_t len);

/*
 * The counter tables: T(ID, "name", COLS), ID giving TBL_ID and the
 * column enum ID__COLUMN (ID__NCOLS the count), COLS(C, ID) listing the
 * columns as C(ID, COLUMN, name, KIND[, total[, hist, hist_slots]]) (struct
 * tcol). Readers find the columns by the names these give, so that a
 * file whose table has other columns still reads: rename none.
 */
#define LOCK_NAMES_COLS(C, T)			/* the names of locks a family knows */ \
	C(T, LOCK, lock, KEY) C(T, NAME, name, KEY_STR)

#define MMAP_LOCK_COLS(C, T)								\
	C(T, LOCK, lock, KEY) C(T, PID, pid, KEY) C(T, WRITE, write, KEY)		\
	C(T, STACK, stack, KEY_KSTACK) C(T, SHIFT, shift, KEY)				\
	C(T, ACQUIRED, acquired, SUM) C(T, FAILED, failed, SUM)			\
	C(T, WAIT_NS, wait_ns, SUM) C(T, WAIT_MAX_NS, wait_max_ns, MAX, "wait_ns")	\
	C(T, HELD, held, SUM) C(T, HOLD_NS, hold_ns, SUM)				\
	C(T, HOLD_MAX_NS, hold_max_ns, MAX, "hold_ns")
#define MMAP_LOCK_LOST_COLS(C, T)							\
	C(T, RELEASED_UNSEEN, released_unseen, SUM) C(T, PENDING_FULL, pending_full, SUM) \
	C(T, ROWS_FULL, rows_full, SUM)

#define FD_SYSCALLS_COLS(C, T)								\
	C(T, PID, pid, KEY) C(T, TID, tid, KEY) C(T, SYSCALL, syscall, KEY_STR)	\
	C(T, CALLS, calls, SUM)
#define FD_THREADS_COLS(C, T)								\
	C(T, PID, pid, KEY) C(T, TID, tid, KEY) C(T, COMM, comm, KEY_STR)		\
	C(T, FILES, files, KEY) C(T, FILE_LOCK, file_lock, KEY) C(T, SYSCALLS, syscalls, SUM)
#define FD_FGET_COLS(C, T)								\
	C(T, PID, pid, KEY) C(T, TID, tid, KEY) C(T, FUNC, func, KEY_STR)		\
	C(T, CALLS, calls, SUM) C(T, TIME_NS, time_ns, SUM) C(T, MAX_NS, max_ns, MAX, "time_ns")
#define FD_LOST_COLS(C, T)								\
	C(T, THREADS_FULL, threads_full, SUM) C(T, FGET_FULL, fget_full, SUM)		\
	C(T, PENDING_FULL, pending_full, SUM) C(T, EXIT_UNSEEN, exit_unseen, SUM)

/* A file's or a process's page cache events: struct pc_val, in its order. */
#define PC_VALUE_COLS(C, T)								\
	C(T, ADDED, added, SUM) C(T, EVICTED, evicted, SUM) C(T, REMOVED, removed, SUM) \
	C(T, LOOKUPS, lookups, SUM) C(T, FAULTS, faults, SUM)				\
	C(T, MAP_PAGES, map_pages, SUM) C(T, READAHEAD, readahead, SUM)
#define PC_FILES_COLS(C, T)								\
	C(T, DEV, dev, KEY) C(T, INO, ino, KEY) C(T, PATH, path, KEY_STR)		\
	C(T, I_PAGES_LOCK, i_pages_lock, KEY) PC_VALUE_COLS(C, T)
#define PC_PROCS_COLS(C, T)								\
	C(T, PID, pid, KEY) C(T, COMM, comm, KEY_STR) PC_VALUE_COLS(C, T)
#define PC_LOST_COLS(C, T)								\
	C(T, FILES_FULL, files_full, SUM) C(T, PROCS_FULL, procs_full, SUM)		\
	C(T, INFO_FULL, info_full, SUM)

#define HOLD_COLS(C, T)									\
	C(T, LOCK, lock, KEY) C(T, KIND, kind, KEY) C(T, STACK, stack, KEY_KSTACK)	\
	C(T, ACQUIRED, acquired, SUM) C(T, HELD, held, SUM) C(T, HOLD_NS, hold_ns, SUM) \
	C(T, HOLD_MAX_NS, hold_max_ns, MAX, "hold_ns") C(T, FAILED, failed, SUM)
#define HOLD_LOST_COLS(C, T)								\
	C(T, UNMATCHED_RELEASE, unmatched_release, SUM)					\
	C(T, RELEASE_UNSEEN, release_unseen, SUM) C(T, PENDING_FULL, pending_full, SUM) \
	C(T, ROWS_FULL, rows_full, SUM) C(T, NESTED, nested, SUM)			\
	C(T, RECURSION, recursion, SUM)		/* programs the kernel skipped */

/* The key columns the three ulocks row tables share, in this order. */
#define ULOCK_KEY_COLS(C, T)								\
	C(T, LOCK, lock, KEY) C(T, PID, pid, KEY) C(T, KIND, kind, KEY)		\
	C(T, STACK, stack, KEY_USTACK) C(T, NAME, name, KEY_STR) C(T, COMM, comm, KEY_STR)
#define ULOCK_HIST10(C, T, d)								\
	C(T, HIST_##d##0, hist_##d##0, SUM) C(T, HIST_##d##1, hist_##d##1, SUM)		\
	C(T, HIST_##d##2, hist_##d##2, SUM) C(T, HIST_##d##3, hist_##d##3, SUM)		\
	C(T, HIST_##d##4, hist_##d##4, SUM) C(T, HIST_##d##5, hist_##d##5, SUM)		\
	C(T, HIST_##d##6, hist_##d##6, SUM) C(T, HIST_##d##7, hist_##d##7, SUM)		\
	C(T, HIST_##d##8, hist_##d##8, SUM) C(T, HIST_##d##9, hist_##d##9, SUM)
#define ULOCKS_COLS(C, T)								\
	ULOCK_KEY_COLS(C, T)								\
	C(T, CONTENDED, contended, SUM) C(T, WAIT_NS, wait_ns, SUM)			\
	C(T, WAIT_MIN_NS, wait_min_ns, MIN, "wait_ns", "hist_0", LS_HIST_SLOTS)		\
	C(T, WAIT_MAX_NS, wait_max_ns, MAX, "wait_ns", "hist_0", LS_HIST_SLOTS)		\
	C(T, WAITER_MIN, waiter_min, MIN) C(T, WAITER_MAX, waiter_max, MAX)		\
	ULOCK_HIST10(C, T, ) ULOCK_HIST10(C, T, 1) ULOCK_HIST10(C, T, 2) ULOCK_HIST10(C, T, 3)
#define ULOCKS_WAKERS_COLS(C, T)							\
	ULOCK_KEY_COLS(C, T)								\
	C(T, WAKER, waker, KEY) C(T, FROM_OWNER, from_owner, KEY)			\
	C(T, WAKES, wakes, SUM) C(T, WAIT_NS, wait_ns, SUM)
#define ULOCKS_HOLDS_COLS(C, T)								\
	ULOCK_KEY_COLS(C, T)								\
	C(T, ACQUIRED, acquired, SUM) C(T, HELD, held, SUM) C(T, HOLD_NS, hold_ns, SUM) \
	C(T, HOLD_MAX_NS, hold_max_ns, MAX, "hold_ns")
#define ULOCKS_LOST_COLS(C, T)								\
	C(T, THREADS_FULL, threads_full, SUM) C(T, ROWS_FULL, rows_full, SUM)		\
	C(T, STACK_ERROR, stack_error, SUM) C(T, WAKES_FULL, wakes_full, SUM)		\
	C(T, HOLDS_FULL, holds_full, SUM) C(T, UNLOCK_UNSEEN, unlock_unseen, SUM)
#define ULOCKS_UPROBES_COLS(C, T)							\
	C(T, HITS, hits, SUM) C(T, HIT_NS, hit_ns, MAX) C(T, BUDGET, budget, MAX)	\
	C(T, DETACHED, detached, MAX)

#define LOCKSTAT_TABLES(T)								\
	T(LOCK_NAMES, "lock_names", LOCK_NAMES_COLS)					\
	T(MMAP_LOCK, "mmap_lock", MMAP_LOCK_COLS)					\
	T(MMAP_LOCK_LOST, "mmap_lock.lost", MMAP_LOCK_LOST_COLS)			\
	T(FD_SYSCALLS, "fd.syscalls", FD_SYSCALLS_COLS)					\
	T(FD_THREADS, "fd.threads", FD_THREADS_COLS)					\
	T(FD_FGET, "fd.fget", FD_FGET_COLS)						\
	T(FD_LOST, "fd.lost", FD_LOST_COLS)						\
	T(PC_FILES, "pagecache.files", PC_FILES_COLS)					\
	T(PC_PROCS, "pagecache.procs", PC_PROCS_COLS)					\
	T(PC_LOST, "pagecache.lost", PC_LOST_COLS)					\
	T(HOLD, "hold", HOLD_COLS)							\
	T(HOLD_LOST, "hold.lost", HOLD_LOST_COLS)					\
	T(ULOCKS, "ulocks", ULOCKS_COLS)						\
	T(ULOCKS_WAKERS, "ulocks.wakers", ULOCKS_WAKERS_COLS)				\
	T(ULOCKS_HOLDS, "ulocks.holds", ULOCKS_HOLDS_COLS)				\
	T(ULOCKS_LOST, "ulocks.lost", ULOCKS_LOST_COLS)					\
	T(ULOCKS_UPROBES, "ulocks.uprobes", ULOCKS_UPROBES_COLS)

enum ls_table {
#define TABLE_ID(ID, name, COLS)	TBL_##ID,
	LOCKSTAT_TABLES(TABLE_ID)
#undef TABLE_ID
	TBL__COUNT
};

#define TABLE_COL_ID(T, COL, ...)	T##__##COL,
#define TABLE_COL_ENUM(ID, name, COLS)	enum { COLS(TABLE_COL_ID, ID) ID##__NCOLS };
LOCKSTAT_TABLES(TABLE_COL_ENUM)
#undef TABLE_COL_ENUM

/* The schema the collector writes table id with. */
const struct tschema *ls_schema(enum ls_table id);
/* The table whose name is name, or -1: a table of this lockstat's families. */
int ls_table_of(const char *name);
/* A column's name, for code that reads whichever table has such a column. */
const char *ls_col_name(enum ls_table id, unsigned int col);
/* A loss table (NAME.lost): every column a loss counter. */
bool ls_table_is_lost(const struct tschema *s);

#endif
