/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_MAPSCAN_H
#define __LOCKSTAT_MAPSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every entry of a BPF hash map, read a chunk at a time with
 * BPF_MAP_LOOKUP_BATCH where the kernel has it (5.6 on), else one
 * get_next_key and one lookup per entry. A drain of 10 000 rows is then
 * a few dozen syscalls, not 20 000. Which one works is probed on the
 * first scan and kept for the process.
 *
 *	mapscan_init(&s, bpf_map__fd(map), key_size, val_size);
 *	mapscan_start(&s);
 *	while ((err = mapscan_next(&s, &key, &val)) > 0)
 *		use(key, val);
 *
 * val_size is the whole value as a lookup returns it: for a per-CPU map,
 * every possible CPU's, each rounded up to 8 bytes. Entries added or
 * deleted during a scan may be seen or not, as with get_next_key.
 */
struct mapscan {
	int fd;			/* the map's */
	size_t key_size, val_size;
	void *keys, *vals;	/* the chunk read */
	uint32_t cap;		/* entries the buffers hold */
	uint32_t n, at;		/* entries in the chunk, the next one to hand out */
	uint64_t cursor;	/* the kernel's batch position (a bucket for hashes) */
	bool started, done;
	uint64_t syscalls;	/* bpf() calls the scans made, for the cost lines */
};

void mapscan_init(struct mapscan *s, int fd, size_t key_size, size_t val_size);
void mapscan_free(struct mapscan *s);
/* From the first entry again. */
void mapscan_start(struct mapscan *s);
/* 1 and the next entry, 0 at the end, or -errno. */
int mapscan_next(struct mapscan *s, const void **key, const void **val);
/* Whether scans read in batches (after the first scan). */
bool mapscan_batched(void);
/* The per-entry loop from now on, as where batches are refused (tests). */
void mapscan_use_loop(void);

#endif
