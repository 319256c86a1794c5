/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_LOCKNAME_H
#define __LOCKSTAT_LOCKNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"

/*
 * Names for the kernel locks that have no symbol, found while recording:
 * every CPU's rq.__lock, zone.lock, and a slab object's field
 * ("dentry.d_lockref.lock", else "&kmalloc-64+0x10") from the cache that
 * bpf/lockname.bpf.h looked up when the lock's first row was made. The
 * names BPF programs (bpf/names.bpf.c) run through BPF_PROG_TEST_RUN.
 */
struct lockname;

/* One lock of lockstat's own objects, named through the slab path at start. */
struct lockname_check {
	const char *what;	/* "current->files->file_lock" */
	const char *expected;	/* "files_struct.file_lock"; for the inode, a suffix */
	char found[128];
	bool ok;
};

/* A source of names, as lockstat probe lists them. */
struct lockname_source {
	const char *name;	/* "rq.__lock", "zone.lock", "slab fields" */
	bool ok;
	const char *detail;	/* how, or why not */
};

/* Never fails for want of a kernel feature: what is missing is in the status. */
int lockname__open(struct lockname **out, int ncpus);
void lockname__free(struct lockname *ln);
/* Whether the contention probes should look slab caches up (lockname_slab). */
bool lockname__want_slab(const struct lockname *ln);
/* The contention object's lock_caches map, once it is loaded. */
void lockname__use_map(struct lockname *ln, int lock_caches_fd);
/*
 * Name the addresses of these rows not seen before, in batches; rows of
 * a per-task class check the slab path against the class. Each row's
 * found is then what was found at its address (NULL: nothing), for the
 * writer's naming rule (format/lock_naming.h); ln NULL: nothing at all.
 * The names stay valid until the next call.
 */
int lockname__prepare(struct lockname *ln, struct cont_row *rows, size_t n);
/* What this recording can name, and what not and why: one line. */
const char *lockname__status(const struct lockname *ln);
/* The sources of names and whether this kernel has them: how many, up to max. */
size_t lockname__sources(const struct lockname *ln, struct lockname_source *out, size_t max);
/* The self-check of the slab path, LS_SELF__COUNT entries (none without it). */
size_t lockname__checks(const struct lockname *ln, const struct lockname_check **out);
/* Class locks whose slab name was the class's, and those where it was not. */
void lockname__class_checks(const struct lockname *ln, uint64_t *agree, uint64_t *disagree);

#endif
