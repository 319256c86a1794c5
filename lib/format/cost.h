/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_COST_H
#define __LOCKSTAT_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"

/*
 * The cost ledger of a recording, kept under the META keys cost.*
 * (man/lockstat-data.5): what the probes cost (the kernel's own
 * kernel.bpf_stats, measured over sampled windows), lockstat's own CPU
 * time split into start-up, steady state and finish, and the CPU time
 * of the workload it recorded, from the source that fits the target.
 * report --cost prints it, and the one figure derived from it:
 *
 *   overhead = (probes' BPF time + own steady CPU) / workload CPU
 *
 * Start-up and finish are kept apart: they are paid once, whatever
 * the recording's length.
 */

#define COST_PROBES_MAX	16	/* program sets: every family and the fork follower */

struct cost_probe {
	char name[16];
	uint64_t events;	/* runs counted in the measured windows */
	uint64_t run_ns;	/* their run time */
};

struct cost_ledger {
	bool recorded;		/* false: a profile from before the ledger */
	uint64_t recording_ns;	/* from the probes' start to the recording's end */
	uint64_t startup_ns;	/* own CPU from exec to the workload released */
	uint64_t steady_ns;	/* own CPU while recording */
	uint64_t finish_ns;	/* own CPU after the stop, up to the ledger's writing */
	const char *source;	/* where the workload's CPU came from: command, pid, cgroup, system */
	bool workload_known;	/* false: its CPU could not be measured (note says why) */
	uint64_t workload_ns;
	const char *note;	/* what the workload's figure leaves out; "" none */
	bool probes_known;	/* false: kernel.bpf_stats could not be turned on */
	uint64_t measured_ns;	/* how long the stats were on, of recording_ns */
	size_t nprobes;
	struct cost_probe probes[COST_PROBES_MAX];
};

/* The META keys of a ledger: their count, at most COST_META_KEYS; the strings live in out. */
#define COST_META_KEYS	10
struct cost_meta {
	char vals[COST_META_KEYS][24];
	char probes[COST_PROBES_MAX * 64];
	struct kv kv[COST_META_KEYS];
};
size_t cost_meta_keys(const struct cost_ledger *l, struct cost_meta *out);
/* From a profile; recorded false where it has no ledger or its keys do not parse. */
void cost_meta_read(const struct profile *p, struct cost_ledger *l);

/* A probe set's run time scaled from the measured windows to the whole recording. */
double cost_probe_ns(const struct cost_ledger *l, const struct cost_probe *pc);
/* Every probe set's, so scaled; NaN where the probes were not measured. */
double cost_probes_ns(const struct cost_ledger *l);
/* The overhead in percent of the workload's CPU; NaN where a term is not known or it used none. */
double cost_overhead_pct(const struct cost_ledger *l);

#endif
