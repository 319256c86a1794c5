/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_STEAL_H
#define __LOCKSTAT_STEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"

/*
 * Steal time: what the host took from this machine's virtual CPUs while
 * they had work (/proc/stat's 8th cpu field), over a recording. The
 * recorder (lib/record/steal_read.h) measures it, the profile's META
 * keeps it under steal.* (man/lockstat-data.5), the views read it back
 * to tell a long spinning wait that steal can explain from one that
 * only an accounting error can: a spinning waiter keeps its CPU, so
 * from the guest's clock its wait can only outlast any spin the kernel
 * allows when the host takes the CPU away (its own or the holder's).
 */
struct steal_summary {
	bool recorded;		/* false: a profile from before steal was recorded */
	uint64_t tick_ns;	/* the counter's unit: 1 / USER_HZ */
	uint64_t total_ns;	/* over the recording, every CPU */
	uint64_t cpu_time_ns;	/* the CPU time it is a share of: wall x CPUs */
	uint64_t max_iv_ns;	/* the most one CPU lost in one interval */
	int max_iv_cpu;		/* and which; -1: none */
	uint64_t interval_ns;	/* the intervals' nominal length (the drains') */
	uint64_t ncpus;		/* CPUs measured */
	uint64_t boot_ns;	/* since boot, every CPU, at the end: 0 may mean no report */
	/* Each CPU's "CPU:TOTAL_NS:MAX_INTERVAL_NS", space-separated; not owned. */
	const char *per_cpu;
};

/*
 * A spinning wait longer than this needs its CPU, or its holder's, to
 * have been taken away. A spinning waiter and its holder both run with
 * preemption off (rq.__lock with interrupts off too); the kernel's
 * longest legitimate spinlock holds (a zone lock freeing a batch of
 * pages, the LRU lock over a batch of folios) last microseconds up to
 * about a millisecond, and qspinlock hands the lock on in FIFO order,
 * so a waiter behind a few CPUs waits a few holds. 10 ms is ten such
 * holds, a whole tick at HZ=100 with the CPU not scheduling: the
 * kernel's own bound on this, the soft and hard lockup detectors
 * (watchdog_thresh, 10 s), is only a last resort against a CPU stuck
 * for good. What else takes a CPU away unseen by the guest's steal (an
 * SMI, a storm of NMIs) is rare enough to name only in the man page.
 * rqspinlock (BPF's, 6.15+) gives up after 250 ms and reports
 * -ETIMEDOUT through contention_end: a failure, where the end's result
 * is read, not a long wait.
 */
#define STEAL_SPIN_LIMIT_NS	(10 * 1000 * 1000ULL)

enum steal_verdict {
	STEAL_NOT_APPLICABLE,	/* not a spinning lock, or a max within the limit */
	STEAL_NOT_RECORDED,	/* the profile has no steal: cannot tell */
	STEAL_COULD_EXPLAIN,	/* the recording's steal covers the excess */
	STEAL_TOO_LITTLE,	/* it does not: an accounting error */
};

/* The META keys of a summary: their count, at most STEAL_META_KEYS; vals holds the strings. */
#define STEAL_META_KEYS		9
struct steal_meta {
	char vals[STEAL_META_KEYS][24];
	struct kv kv[STEAL_META_KEYS];
};
size_t steal_meta_keys(const struct steal_summary *s, struct steal_meta *out);
/* From a profile; recorded false where it has no steal.* keys or they do not parse. */
void steal_meta_read(const struct profile *p, struct steal_summary *s);

/*
 * Whether a wait of max_ns on a lock of these contention_begin flags
 * needs explaining (a spinlock or rwlock's spin over the limit), and
 * what the recording's steal says of it.
 */
enum steal_verdict steal_verdict_of(const struct steal_summary *s, uint32_t flags, uint64_t max_ns);
/* The most steal the recording may hide: what was counted, plus each CPU's reading error. */
uint64_t steal_bound_ns(const struct steal_summary *s);
/* "steal_could_explain", "accounting_error", "steal_not_recorded", or NULL: JSON's and CSV's word for a verdict. */
const char *steal_verdict_key(enum steal_verdict v);

#endif
