// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Removing idle rows from the kernel's maps: which ones, and how. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/trim.h"

/*
 * Delete one row, reading what it held at that moment where the kernel
 * can (lookup-and-delete on hash maps: 5.14 on): 1 and *got set, 0
 * deleted unread, -1 not there.
 */
static int delete_row(struct bpf_map *map, const void *key, size_t ksz, void *val, size_t vsz, bool *got)
{
	static bool unread;	/* the kernel refused it once: it will again */

	*got = false;
	if (val && !unread) {
		if (!bpf_map__lookup_and_delete_elem(map, key, ksz, val, vsz, 0)) {
			*got = true;
			return 1;
		}
		if (errno == ENOENT)
			return -1;
		unread = true;
	}
	return bpf_map__delete_elem(map, key, ksz, 0) ? -1 : 0;
}

/* A lookup's whole value: every possible CPU's of a per-CPU map, each rounded up to 8 bytes. */
static size_t lookup_size(const struct bpf_map *map)
{
	enum bpf_map_type t = bpf_map__type(map);
	size_t v = bpf_map__value_size(map);

	if (t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_LRU_PERCPU_HASH)
		return ((v + 7) & ~(size_t)7) * libbpf_num_possible_cpus();
	return v;
}

int forget_older(struct htab *totals, struct htab *seen, struct bpf_map *map, uint32_t before,
		 late_events_fn late, void *ctx, uint64_t *late_events)
{
	size_t vsz = lookup_size(map), it = 0;
	void *buf = late ? malloc(vsz) : NULL;
	struct htab kept_totals, kept_seen;
	const uint32_t *when;
	uint32_t *dst_when;
	const void *k;
	void *v, *dst;
	int removed = 0, r;
	bool got;

	htab_init(&kept_totals, totals->key_size, totals->val_size);
	htab_init(&kept_seen, seen->key_size, seen->val_size);
	while ((v = htab_next(totals, &it, &k))) {
		when = htab_find(seen, k);
		if (!when || *when < before) {
			r = delete_row(map, k, totals->key_size, buf, vsz, &got);
			removed += r >= 0;
			if (got)
				*late_events += late(v, buf, ctx);
			continue;
		}
		dst = htab_get(&kept_totals, k, NULL);
		dst_when = dst ? htab_get(&kept_seen, k, NULL) : NULL;
		if (!dst_when) {
			free(buf);
			htab_free(&kept_totals);
			htab_free(&kept_seen);
			return -ENOMEM;
		}
		memcpy(dst, v, totals->val_size);
		*dst_when = *when;
	}
	free(buf);
	htab_free(totals);
	htab_free(seen);
	*totals = kept_totals;
	*seen = kept_seen;
	return removed;
}

/* Rows by how many drains ago they last changed; older ones share the last count. */
#define TRIM_AGES	1024

uint32_t trim_cutoff(const struct htab *seen, uint32_t latest, size_t keep)
{
	size_t n[TRIM_AGES] = { 0 }, kept, it = 0;
	const uint32_t *when;
	uint32_t age;

	while ((when = htab_next(seen, &it, NULL))) {
		age = latest - *when;
		n[age < TRIM_AGES ? age : TRIM_AGES - 1]++;
	}
	kept = n[0];
	for (age = 1; age < TRIM_AGES - 1 && kept + n[age] <= keep; age++)
		kept += n[age];
	/* Rows of age or older go; none is that old before drain age, or none is left to go. */
	return age - 1 < latest && kept < seen->count ? latest - (age - 1) : 0;
}

int note_seen(struct htab *seen, const void *key, uint32_t drain)
{
	uint32_t *when = htab_get(seen, key, NULL);

	if (!when)
		return -ENOMEM;
	*when = drain;
	return 0;
}
