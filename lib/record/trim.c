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
 * The kernel cannot read a row as it deletes it: before 5.14 it answers
 * ENOTSUPP (524, not in user space's errno.h) for a hash map, and EINVAL
 * for flags it does not know. Any other error is this row's, this time.
 */
static bool never_reads(int err)
{
	return err == 524 || err == EOPNOTSUPP || err == EINVAL;
}

/*
 * Delete one row, reading what it held at that moment where the kernel
 * can (lookup-and-delete on hash maps: 5.14 on): ROW_READ and *got set,
 * ROW_DELETED unread, ROW_GONE not there, ROW_KEPT when the kernel
 * refused (a bucket busy, a lock that timed out): the row is still there,
 * and so must it be in totals, or the next drain counts it all again.
 */
enum { ROW_KEPT = -2, ROW_GONE = -1, ROW_DELETED = 0, ROW_READ = 1 };

static int delete_row(struct bpf_map *map, const void *key, size_t ksz, void *val, size_t vsz, bool *got)
{
	static bool unread;	/* the kernel cannot read as it deletes: it never will */

	*got = false;
	if (val && !unread) {
		if (!bpf_map__lookup_and_delete_elem(map, key, ksz, val, vsz, 0)) {
			*got = true;
			return ROW_READ;
		}
		if (errno == ENOENT)
			return ROW_GONE;
		if (!never_reads(errno))
			return ROW_KEPT;
		unread = true;
	}
	if (!bpf_map__delete_elem(map, key, ksz, 0))
		return ROW_DELETED;
	return errno == ENOENT ? ROW_GONE : ROW_KEPT;
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

/* Keep key's total, and when it last changed if known: 0 or -ENOMEM. */
static int keep_row(struct htab *totals, struct htab *seen, const void *key, const void *total,
		    const uint32_t *when)
{
	void *dst = htab_get(totals, key, NULL);
	uint32_t *dst_when = dst && when ? htab_get(seen, key, NULL) : NULL;

	if (!dst || (when && !dst_when))
		return -ENOMEM;
	memcpy(dst, total, totals->val_size);
	if (when)
		*dst_when = *when;
	return 0;
}

int forget_older(struct htab *totals, struct htab *seen, struct bpf_map *map, uint32_t before,
		 late_events_fn late, void *ctx, uint64_t *late_events)
{
	size_t vsz = lookup_size(map), it = 0;
	void *buf = late ? malloc(vsz) : NULL;
	struct htab kept_totals, kept_seen;
	const uint32_t *when;
	const void *k;
	int removed = 0, r;
	void *v;
	bool got;

	htab_init(&kept_totals, totals->key_size, totals->val_size);
	htab_init(&kept_seen, seen->key_size, seen->val_size);
	while ((v = htab_next(totals, &it, &k))) {
		when = htab_find(seen, k);
		got = false;
		r = ROW_KEPT;
		if (!when || *when < before)
			r = delete_row(map, k, totals->key_size, buf, vsz, &got);
		removed += r >= 0;
		if (got)
			*late_events += late(v, buf, ctx);
		if (r == ROW_KEPT && keep_row(&kept_totals, &kept_seen, k, v, when)) {
			free(buf);
			htab_free(&kept_totals);
			htab_free(&kept_seen);
			return -ENOMEM;
		}
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
