/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SEGDIR_H
#define __LOCKSTAT_SEGDIR_H

/*
 * The segment directory of lockstat serve: one profile per segment,
 * named by the UTC time it begins, lockstat-20250101T140000Z.data (a
 * second one begun within the same second gets .1, .2, ... before .data),
 * so that names sort by time and "yesterday 14:00" is a name a person can
 * type. The ring keeps at most a number of segments and of bytes, oldest
 * removed first; the segment being written is never removed. Only names
 * of this form are ever listed or removed: other files in the directory
 * are left alone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SEGDIR_NAME_MAX	48

struct segment {
	char name[SEGDIR_NAME_MAX];
	uint64_t bytes;
};

/* Is name a segment's (lockstat-YYYYmmddTHHMMSSZ[.N].data)? */
bool segdir_is_segment(const char *name);
/* The name of a segment begun at t, the seq'th of that second (0: no .N). */
int segdir_name(char *buf, size_t len, time_t t, unsigned int seq);
/* Oldest first; negative, or 0 when a and b are the same segment. */
int segdir_cmp(const char *a, const char *b);
/* The segments of dir, oldest first (*out: free()). 0 or -errno. */
int segdir_list(const char *dir, struct segment **out, size_t *n);
/* What a prune left in the directory. */
struct segdir_left {
	size_t count;		/* segments, current included */
	uint64_t others_bytes;	/* the bytes of those that are not current */
};

/*
 * Remove the oldest segments until at most keep_count (0: no limit) remain
 * and they hold at most keep_bytes (0: no limit), never current (a name,
 * or NULL). How many were removed, or -errno of the first removal that
 * failed; *left is set whenever the directory could be listed, so that
 * the caller need not list it again.
 */
int segdir_prune(const char *dir, size_t keep_count, uint64_t keep_bytes, const char *current,
		 struct segdir_left *left);
/* A free name for a segment begun at t in dir. 0 or -errno. */
int segdir_new_name(const char *dir, time_t t, char *buf, size_t len);

#endif
