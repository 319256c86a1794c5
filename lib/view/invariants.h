/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_INVARIANTS_H
#define __LOCKSTAT_INVARIANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"
#include "view/view_locks.h"

/*
 * The invariant checker (lockstat fsck --deep, and the tests over every
 * profile they produce): builds what the report shows from a profile (the
 * locks view with its callers, stacks and hold figures, the fd and page
 * cache views, the counter tables, the hit list) and checks every row for
 * figures that contradict each other. Each finding is one line of text
 * that names the row and the figures as report prints them. The rules,
 * and why each holds, are in lockstat-fsck(1).
 */
enum inv_kind {
	INV_AVG,	/* min <= avg <= max, total >= max */
	INV_QUANTILE,	/* p50 <= p99 <= max */
	INV_COUNT,	/* a count > 0 exactly where its total time > 0 */
	INV_HIST_SUM,	/* an exact row's histogram counts its waits */
	INV_HIST_ENDS,	/* the lowest and highest non-empty slots are min's and max's */
	INV_INTERVAL,	/* estimated callers add up to their lock within their 95 % intervals */
	INV_RECORDING,	/* no single wait or hold longer than the recording */
	INV_WRAPPED,	/* no negative or wrapped figure (2^63 ns and more) */
	INV_HOLD,	/* held <= acquired, contended <= acquired */
	INV_SAMPLES,	/* the hit list's samples add up to its total */
	INV__COUNT,
};

struct inv_violation {
	enum inv_kind kind;
	/*
	 * A finding that chance alone explains (an estimate outside its
	 * 95 % interval, no more often than 95 % allows): said, not failed.
	 */
	bool warning;
	char *msg;		/* "lock L caller C: avg 22.60 us > max 1.26 us" */
};

struct inv_report {
	struct inv_violation *v;
	size_t n, cap;
	size_t errors;		/* the findings that are not warnings */
	size_t warnings;
	size_t by_kind[INV__COUNT];	/* errors by kind */
	size_t rows;		/* rows checked */
	size_t intervals;	/* interval tests made (an estimated lock: count and wait) */
	size_t missed;		/* of which the lock's figure fell outside */
	int err;		/* -ENOMEM from adding a finding */
};

/*
 * Check every view of p. 0, with the findings in r (to be freed with
 * inv_report__free in every case); -errno when a view could not be built.
 */
int invariants_check(const struct profile *p, struct inv_report *r);
void inv_report__free(struct inv_report *r);
/* "avg", "quantile", ...: a word per kind, for counts by kind. */
const char *inv_kind_name(enum inv_kind k);

/*
 * The checks themselves, for the views' rows (and the unit tests): where
 * names the row in the findings; duration_ns 0 when the recording has
 * none. exact: the row counts every wait (not an estimate from sampled
 * stacks), so its histogram holds exactly its count.
 */
void inv_check_row(struct inv_report *r, const char *where, const struct lock_row_val *v, bool exact,
		   uint64_t duration_ns);
/* Hold figures; contended: the row's waits, checked against its acquisitions when exact. */
void inv_check_hold(struct inv_report *r, const char *where, const struct hold_val *h,
		    const struct lock_row_val *contended, bool exact, uint64_t duration_ns);
/* An estimated caller or stack: its figures within its own stated 95 % intervals. */
void inv_check_estimate(struct inv_report *r, const char *where, const struct lock_entry *e,
			const struct lock_part *c);
/* An estimated lock's callers against its exact count and total (INV_INTERVAL). */
void inv_check_callers(struct inv_report *r, const char *where, const struct lock_entry *e);
/*
 * After every inv_check_callers: the misses are warnings while their
 * number is what 95 % intervals allow, errors when it is far more.
 */
void inv_settle_intervals(struct inv_report *r);

#endif
