/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_COLLECTOR_H
#define __LOCKSTAT_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "format/families.h"
#include "format/family_meta.h"
#include "record/kfeatures.h"
#include "format/profile.h"
#include "sample.h"

/*
 * The collector loads and attaches the probe families and drains their
 * maps into rows. Nothing else in lockstat touches a BPF map. The
 * families, their names, flags and tables: lib/format/families.h; each is
 * a struct family_ops, name_family, in lib/record/collect_*.c.
 */

/*
 * The mode family f would attach with on this kernel under --attach want,
 * decided from the features alone as record decides it (nothing is
 * loaded): 0 and the mode in st, or -errno and why not.
 */
int family_choose_mode(enum family f, const struct features *feat, enum attach_mode want,
		       struct family_status *st);

struct collector_opts {
	unsigned int families;	/* enum family bits wanted */
	bool per_task;		/* -t (locks) */
	bool filter_targets;	/* only the workload's processes, or cgroup_fd's tasks */
	int cgroup_fd;		/* --cgroup: a cgroup v2 directory, open; -1: none */
	enum attach_mode mode;
	uint32_t stats_entries;	/* 0: default */
	uint32_t stack_rate;	/* kernel stacks per second per CPU; 0: one per wait */
	uint64_t stack_thin;	/* --stack-thin: ns (see stack_thin_ns()) */
	uint32_t sample_freq;	/* samples per second per CPU */
	uint32_t user_stack_size;	/* --user-stack dwarf: user stack bytes a sample; 0: frame pointers */
	bool probe_stats;	/* measure each program's cost (kernel.bpf_stats) */
	pid_t target_pid;	/* the workload or -p PID, 0 when none: where uprobes go */
	uint32_t event_budget;	/* uprobe hits per second before they are detached; 0: default */
	bool force;		/* keep uprobes over the budget, or system-wide */
	/*
	 * Where every executable mapping made while recording goes (the
	 * mapping tracker, lib/record/maptrack.h), and where the ulocks
	 * family finds the files that name static locks; NULL: neither.
	 */
	struct maps_cache *maps;
};

/* One drain's worth of rows, valid until the next drain. */
struct snapshot {
	struct cont_row *cont;	/* each with what the recording found at its lock (found) */
	size_t ncont;
	struct sample_row *samples;
	size_t nsamples;
	struct trows *tables;	/* counter tables of the other families */
	size_t ntables;
	uint64_t ucontended;	/* user locks' contended acquisitions, waits for an event left out */
};

/* What one family's programs cost so far (kernel.bpf_stats). */
struct probe_cost {
	enum family family;	/* 0: the target filter's fork follower */
	const char *name;	/* the family's, or "targets" */
	uint64_t events;	/* counted while the stats were on */
	uint64_t run_ns;
};

/* Entries collector__costs() may write: every family and the fork follower. */
#define PROBE_COSTS_MAX	(FAMILY_COUNT + 1)

struct collector;

/* Fails (-errno, reason in why) only when no wanted family attached. */
int collector__open(struct collector **c, const struct collector_opts *opts,
		    const struct features *f, char *why, size_t len);
void collector__free(struct collector *c);
const struct family_status *collector__status(const struct collector *c, enum family f);
int collector__add_target(struct collector *c, pid_t tgid);
/* Rows whose counts changed since the last drain, as deltas. */
int collector__drain(struct collector *c, struct snapshot *s);
/*
 * Stop the probes and drain for the last time, closing the lock waits
 * still in progress at the moment of stopping (count 1, wait up to it).
 */
int collector__stop(struct collector *c, struct snapshot *s);
/* stack_fetch_fn callbacks, one per stack map. */
int collector__fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max);
int collector__fetch_sample_kstack(void *ctx, int32_t id, uint64_t *frames, int max);
/*
 * tgid's process is gone and forgotten (its PCs symbolized): a new
 * process under that PID is announced at its first sample, as the first
 * was, and named by its own main thread. Without this, the sampler's set
 * of announced processes keeps the PID (and, once full, every PID): a
 * forked child that exits before the next drain never has its mappings
 * read, and its samples have none.
 */
void collector__forget_process(struct collector *c, uint32_t tgid);
int collector__fetch_sample_ustack(void *ctx, int32_t id, uint64_t *frames, int max);
/*
 * Whether the sampler still has the kernel (user) stack of that id: one
 * it forgot (trim) is never used again, and the writer may forget it too.
 */
bool collector__sample_stack_known(const struct collector *c, bool user, int32_t id);

/* One loss counter of a family, for the LOST chunk. */
struct lost_counter {
	const char *name;
	uint64_t value;
	enum family family;
};

/*
 * Every family's loss counters, wanted or not, in family order: the
 * number written (at most max).
 */
size_t collector__lost(const struct collector *c, struct lost_counter *out, size_t max);
/*
 * New processes seen by the sampler, announced as they appear: fn is
 * called from collector__consume() for each. event_fd is the descriptor
 * to poll for them and for the mapping tracker's records (-1 when there
 * is neither); consume hands the records to opts.maps first.
 */
typedef void (*new_process_fn)(void *ctx, uint32_t tgid);
int collector__watch_processes(struct collector *c, new_process_fn fn, void *ctx);
int collector__event_fd(const struct collector *c);
int collector__consume(struct collector *c);
/*
 * Why the mapping tracker is not running ("" when it is): user PCs of
 * processes that map libraries after their first sample, or exit before
 * a drain, may then stay unresolved.
 */
const char *collector__maptrack_why(const struct collector *c);
/*
 * The cost of every attached family's programs, one entry per family,
 * then the fork follower's when a target filter is loaded: the number
 * written, or -errno when the kernel does not measure it.
 */
int collector__costs(const struct collector *c, struct probe_cost *out, size_t max);

/*
 * kernel.bpf_stats times every run of every BPF program on the machine:
 * two clock reads a run, which cost a lock storm a fifth of its
 * throughput (doc/benchmarks.md, Method).
 * record, top and serve measure their costs STATS_ON_MS of every
 * STATS_PERIOD_MS only, from now on: collector__costs() then sums the
 * runs of those windows only, to be divided by their time. Where the
 * sysctl holds the stats on, they stay on for the whole session.
 *
 * The first window opens at a random time within the first period, so
 * that every moment of the session is measured with the same chance: a
 * window that opened with the session always caught the workload's
 * start (hackbench's 160 forks, which counted mmap_lock's events 4 times
 * over). Windows of 10 ms were too short: under load lockstat wakes
 * late to close one, and they were on 18 % of the time.
 */
#define STATS_ON_MS	25
#define STATS_PERIOD_MS	250
/* At the session's start: the stats on a tenth of the time from now, unless the sysctl holds them on. */
void collector__cycle_stats(struct collector *c, uint64_t now);
/* Turn the stats on or off when due (call it when that time comes); the time of the next turn, 0: none. */
uint64_t collector__stats_tick(struct collector *c, uint64_t now);
/*
 * How long since the session's start the stats were on, the time
 * collector__costs() counts over: a tenth of it, or all of it where the
 * sysctl holds them on; 0 when they are not measured.
 */
uint64_t collector__stats_ns(const struct collector *c, uint64_t now);
/* Whether the stats are on a tenth of the time (else throughout, or never). */
bool collector__stats_cycled(const struct collector *c);
/*
 * The length under which a sampled kernel lock wait keeps its stack only
 * in proportion to its length (bpf/contention.bpf.c, stack_at_end()):
 * --stack-thin's power of two at or below it; 0, none: --stack-thin 0, or
 * --stack-rate 0 (a stack for every wait). META stack_thin_ns.
 */
uint64_t stack_thin_ns(uint32_t stack_rate, uint64_t thin);
/* What the recording can name and what not, in one line (META lock_names). */
const char *collector__lock_names(const struct collector *c);
/*
 * serve, between segments: what the kernel's maps hold of rows that did
 * not change since the last trim, and of stacks no row refers to, is
 * removed (and forgotten here), so that the maps never fill up with the
 * locks and threads of the past: the rows removed, or -errno. A wait
 * counted on such a row in the microseconds of its removal is lost, and
 * a sleeping wait in progress across a trim (its stack is in task
 * storage, which cannot be walked) may end with its stack removed: its
 * lock counts it, under "[stack lost]".
 */
int collector__trim(struct collector *c);
/*
 * Any profile, after a drain: the same for each family whose maps are
 * half full. A long recording of many short processes (-a under a fork
 * loop) otherwise fills them with rows and stacks of processes gone, and
 * loses most samples of the rest. The sampler's stacks are kept
 * under the hash of their frames, so a stack removed and seen again is
 * fetched again under a new id, never taken for another. The rows
 * removed, or -errno.
 */
int collector__trim_full(struct collector *c);
/* The trims made, of either kind. */
uint64_t collector__trims(const struct collector *c);
/* Map entries the drains have read so far, every family's. */
uint64_t collector__entries_read(const struct collector *c);

#endif
