/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_METRICS_H
#define __LOCKSTAT_METRICS_H

/*
 * The counters of lockstat serve's /metrics, in Prometheus's text format
 * (version 0.0.4): per lock name and type, contended acquisitions, wait
 * time and its histogram, and hold time where a family measured it;
 * lockstat's own losses, probe cost, CPU and memory.
 *
 * Bounded cardinality: at most max_series locks have series of their own,
 * every other lock's waits go to lock="other". A lock's series counts
 * from the moment it got one; a lock that gets a series mid-way does not
 * move what "other" counted before, so that every series only grows,
 * across segments and re-rankings alike. Once a ranking period, the locks
 * that waited most in it may take the places of those that waited least
 * (by a factor RANK_HYSTERESIS, so that two locks of the same weight do
 * not trade places every period); a lock that loses its place loses its
 * series. A lock that carries a place's share of the period's waits (at
 * least 1/max_series of them) need not wait for the period's end: it takes
 * its place at the bucket where it waited RANK_HYSTERESIS times as long as
 * the weakest member did in this period and in the last. Otherwise a storm
 * that starts mid-period would be counted in "other" for up to a minute,
 * behind locks that merely waited first; and at most max_series locks can
 * hold such a share, so that they never trade places among themselves.
 * Names are report's, with unnamed locks' addresses dropped
 * ("[anon]@caller", as diff matches them) unless addresses are asked for.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/htab.h"
#include "view/view_locks.h"

#define METRICS_RANK_PERIOD_NS	(60ULL * 1000000000ULL)
#define METRICS_RANK_HYSTERESIS	2
/* Histogram buckets: le = 2^k ns for k in [first, last], then +Inf. */
#define METRICS_LE_FIRST	7	/* 128 ns */
#define METRICS_LE_LAST		34	/* 17.2 s */

struct metrics_opts {
	size_t max_series;	/* locks with series of their own */
	size_t max_tracked;	/* locks ranked per period; beyond, straight to "other" */
	bool addresses;		/* keep unnamed locks' addresses in their names */
};

struct series_val {
	uint64_t contended;
	uint64_t wait_ns;
	uint64_t hist[LS_HIST_SLOTS];
	bool has_hold;
	uint64_t acquired;
	uint64_t hold_ns;
};

struct lock_series {
	char *name;		/* the label values */
	char *type;
	bool member;		/* has a series of its own */
	uint64_t period_wait_ns;	/* waited in this ranking period */
	uint64_t last_period_wait_ns;	/* and in the one before */
	struct series_val v;	/* counted since it became a member */
};

struct metrics {
	struct metrics_opts o;
	struct lock_series *locks;
	size_t n, cap;
	size_t nmembers;
	struct htab index;	/* hash of name and type -> index + 1 */
	struct series_val other;
	uint64_t untracked;	/* waits of locks beyond max_tracked, in "other" */
	uint64_t period_start_ns;
	uint64_t period_total_ns;	/* every lock's waits in this period, "other"'s too */
	uint64_t samples;	/* CPU samples */
	uint64_t buckets;
};

int metrics__init(struct metrics *m, const struct metrics_opts *o);
void metrics__free(struct metrics *m);
/* One bucket: the locks view of what was drained in it. now: CLOCK_MONOTONIC. 0 or -ENOMEM. */
int metrics__add_bucket(struct metrics *m, const struct lock_view *v, uint64_t now_ns);
void metrics__add_samples(struct metrics *m, uint64_t samples);

/* What the exposition adds besides the locks: lockstat's own figures. */
struct metric_family_cost {
	const char *family;
	uint64_t runs;
	uint64_t run_ns;
};

struct metric_lost {
	const char *family;
	const char *reason;
	uint64_t value;
};

struct metrics_self {
	const struct metric_family_cost *costs;	/* counted while kernel.bpf_stats was on */
	size_t ncosts;
	uint64_t costs_measured_ns;	/* how long it was on */
	const struct metric_lost *lost;
	size_t nlost;
	double cpu_seconds;
	/* The cost ledger's (format/cost.h): not shown where ledger is false. */
	bool ledger;
	double startup_cpu_seconds;	/* own CPU up to the probes' start */
	bool workload_known;
	double workload_cpu_seconds;	/* the targets' since then */
	const char *workload_source;	/* pid, cgroup, system */
	uint64_t rss_bytes;
	uint64_t vm_bytes;
	uint64_t open_fds;
	double start_time;	/* seconds since the epoch */
	uint64_t segments;
	uint64_t segment_bytes;
	uint64_t segments_written;	/* segments begun since the start */
	uint64_t write_errors;
	bool writing;
	uint64_t http_requests;
	uint64_t http_rejected;
	const char *version;
	const char *kernel;
};

/* The whole exposition; 0 or -errno (-EIO: f failed). */
int metrics__write(const struct metrics *m, const struct metrics_self *self, FILE *f);
/* A label value as the text format wants it: \ " and newline escaped. */
void metrics_escape(FILE *f, const char *s);

#endif
