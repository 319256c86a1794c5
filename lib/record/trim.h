/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TRIM_H
#define __LOCKSTAT_TRIM_H

/*
 * Removing idle rows from the kernel's maps (see collector__trim_full):
 * the policy (which rows) and the removal, apart from the families so
 * that the unit tests run them on fake maps.
 */
#include <stddef.h>
#include <stdint.h>
#include "base/htab.h"

struct bpf_map;

/*
 * The events a row took between the last drain (total, as totals keeps
 * it) and its deletion (deleted, as a lookup of map returns it).
 */
typedef uint64_t (*late_events_fn)(const void *total, const void *deleted, void *ctx);
/*
 * trim: forget from totals (BPF key -> values as of the last drain) and
 * seen (key -> uint32, the drain at which its row last changed), and
 * delete from map, every key that last changed before drain before: the
 * number deleted, or -ENOMEM. A row is read as it is deleted (where the
 * kernel can), and what late() finds it took since the last drain is
 * added to *late_events: lost, and counted as such. A row the kernel
 * refuses to delete (an error other than ENOENT) stays in map, totals and
 * seen, to go at a later trim.
 */
int forget_older(struct htab *totals, struct htab *seen, struct bpf_map *map, uint32_t before,
		 late_events_fn late, void *ctx, uint64_t *late_events);
/* Record in seen that key's row changed at this drain; 0 or -ENOMEM. */
int note_seen(struct htab *seen, const void *key, uint32_t drain);
/*
 * The drain before which rows must have last changed to go, so that at
 * most keep rows are left, and none that changed at drain latest; 0
 * when no row would go.
 */
uint32_t trim_cutoff(const struct htab *seen, uint32_t latest, size_t keep);

#endif
