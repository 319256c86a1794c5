/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_STEAL_READ_H
#define __LOCKSTAT_STEAL_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/steal.h"

/*
 * Each CPU's steal time, read from /proc/stat at the start of a
 * recording, at every drain and at its end: the total over the
 * recording and the most one CPU lost between two readings.
 */

#define STEAL_ABSENT	UINT64_MAX	/* a CPU /proc/stat does not list (offline) */

/*
 * The steal field (the 8th number) of each "cpuN" line of /proc/stat's
 * text, in its ticks, into ticks[N] for N < max; the CPUs not listed get
 * STEAL_ABSENT. Returns the highest N listed plus one (more than max:
 * call again with as many), or -EINVAL for a cpu line without a steal
 * field, -ENOENT for a text without cpu lines.
 */
long steal_parse(const char *text, uint64_t *ticks, size_t max);

struct steal_cpu {
	bool seen;
	uint64_t first;		/* ticks at the first reading that listed it */
	uint64_t last;
	uint64_t max_iv;	/* the most it gained between two readings */
};

struct steal_tracker {
	const char *path;	/* /proc/stat; another in tests */
	uint64_t tick_ns;
	uint64_t interval_ns;
	uint64_t t_first, t_last;
	size_t ncpu;		/* slots of cpu[] and of ticks[] */
	struct steal_cpu *cpu;
	uint64_t *ticks;	/* the last reading */
	char *text;		/* the file, read whole */
	size_t text_size;
	char *per_cpu;		/* steal_summary.per_cpu, made by steal_tracker__summary() */
	size_t per_cpu_size;
};

/*
 * The first reading, at now; interval_ns: how often sample() will be
 * called, for the report. 0, or -errno when the file cannot be read or
 * parsed (steal not recorded).
 */
int steal_tracker__init(struct steal_tracker *st, const char *path, uint64_t interval_ns, uint64_t now);
/* A reading at now: 0 or -errno (that reading is skipped; the next one covers its interval). */
int steal_tracker__sample(struct steal_tracker *st, uint64_t now);
/* From the last reading on, as if it were the first (serve's next profile). */
void steal_tracker__restart(struct steal_tracker *st);
/* The readings so far; s->per_cpu points into st, valid until the next call. */
void steal_tracker__summary(struct steal_tracker *st, struct steal_summary *s);
void steal_tracker__free(struct steal_tracker *st);

#endif
