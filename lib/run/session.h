/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SESSION_H
#define __LOCKSTAT_SESSION_H

/*
 * A recording session, shared by record, top and serve: the workload
 * held until the probes are attached, -p PID or -a, the signals (through
 * a signalfd), the collector, the profile writer and the loop that
 * drains the kernel's aggregates into it once per bucket. record writes
 * the profile to a file; top and serve write it to a file or a memfd
 * and read it back after every bucket: one data path for recording and
 * watching.
 */
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "base/clock.h"
#include "record/cgroup.h"
#include "record/collector.h"
#include "record/kfeatures.h"
#include "run/metric.h"
#include "base/outfile.h"
#include "sym/ksyms.h"
#include "record/procmaps.h"
#include "format/profile.h"
#include "record/uresolve.h"
#include "record/steal_read.h"
#include "run/opts.h"
#include "run/workload.h"

#define MAX_LOST	32	/* loss counters of the LOST chunk, of every family */
#define MAX_TABLE_LOST	32	/* columns of the families' NAME.lost tables */

/* What a command adds to the loop (top: keys, redraws); every member optional. */
struct session_hooks {
	int input_fd;				/* polled too; -1: none */
	void (*on_input)(void *ctx);		/* input_fd is readable */
	void (*on_bucket)(void *ctx);		/* a bucket was just written */
	void (*on_signal)(void *ctx, int signo);	/* opts.extra_signal arrived */
	void *ctx;
};

/* lockstat's own costs (user + sys CPU time), from session__start() on. */
struct session_self {
	uint64_t wall_start;	/* CLOCK_MONOTONIC at session__start() */
	struct rusage ru_start;
	uint64_t drain_ns;	/* how long the last bucket took to drain and write */
	uint64_t drain_cpu_ns;	/* in the buckets' drains and writes */
	uint64_t nbuckets;
	uint64_t finish_cpu_ns;	/* in session__finish(): last drain, user symbols */
	uint64_t finish_ns;	/* session__finish()'s wall time: CPU-starved, it is long */
};

/*
 * The cost ledger's readings (format/cost.h), written near the end of a
 * record's or top's profile; serve's segments are not given one.
 */
struct session_ledger {
	bool off;		/* not written: serve, or a profile begun after the start */
	bool started;		/* session__start() went through: the readings below hold */
	uint64_t startup_ns;	/* own CPU when the workload was released */
	uint64_t stop_cpu_ns;	/* own CPU at the recording's end */
	bool wl_ok;		/* the workload's first reading succeeded */
	bool wl_gone;		/* -p: the process was gone at a later reading */
	uint64_t wl_first;	/* -p, --cgroup, -a: the CPU time read at the start */
	uint64_t wl_last;	/* the last reading */
};

/* What the drains counted, for record's summary. */
struct session_counts {
	uint64_t contended;	/* kernel locks' contended acquisitions */
	uint64_t ucontended;	/* user locks' (futex waits on a lock, not on an event) */
	uint64_t samples;
};

struct session_steal {
	struct steal_tracker tracker;	/* read at t0, every drain and the end */
	bool on;		/* steal is read; false: not recorded (err says why) */
	int err;
};

/* The losses of the profile being written (serve begins a new one per segment). */
struct session_losses {
	uint64_t base[MAX_LOST];	/* the loss counters when this profile began */
	/* The families' own loss tables (NAME.lost), each column summed over this profile. */
	struct table_lost {
		const struct tschema *schema;
		uint32_t col;
		uint64_t value;
	} tables[MAX_TABLE_LOST];
	size_t ntables;
};

struct session {
	struct session_opts o;
	const char *name;	/* the output, for messages */
	const struct session_hooks *hooks;
	struct features feat;
	struct ksyms ks;
	bool have_ksyms;
	char static_names[400];	/* where static locks' names come from (kmap_load_running) */
	struct collector *col;
	struct cgroup_target cgroup;	/* o.cgroup's directory, open while recording */
	struct pwriter *w;
	struct maps_cache maps;
	struct syms *syms;
	struct uresolver ures;
	struct outfile out;	/* o.output's file */
	int fd;			/* out's, or top's memfd */
	off_t good_len;		/* the file's length after its last whole chunk */
	struct workload wl;
	struct metric metric;
	bool has_metric;
	bool wl_ended;		/* the workload ended by itself, before finish */
	int sigfd;
	int pidfd;
	sigset_t orig_mask;
	uint64_t t0;
	uint64_t last_t;
	uint64_t next_t;	/* when the next bucket is drained */
	uint64_t stats_turn;	/* when kernel.bpf_stats is turned on or off next; 0: never */
	struct session_self self;
	struct session_ledger ledger;
	struct session_counts counts;
	struct session_steal steal;
	int signals;		/* SIGINT/SIGTERM/SIGHUP received */
	uint64_t kill_deadline;	/* when a signalled workload gets SIGKILL */
	bool stop;
	int write_err;
	struct session_losses lost;
};

/* record's defaults: 1 s buckets, locks and samples, 99 Hz. */
void session__init(struct session *s);
/*
 * Attach, start the workload and publish the output. Returns 0, or the
 * exit code after saying why (the workload's exec failure, EXIT_FAIL).
 */
int session__start(struct session *s);
/* Drain every bucket until the workload ends, -d, a signal or session__stop(). */
void session__run(struct session *s);
void session__stop(struct session *s);
/* Drain every s seconds from the next bucket on. */
void session__set_bucket(struct session *s, double secs);
/* Symbolize the user PCs seen since the last call (top: before reading back). */
void session__write_usyms(struct session *s);
/* Stop the workload and the probes, write the last bucket and the END chunk. */
void session__finish(struct session *s);
/*
 * serve: end the profile at the last bucket (user symbols, END), then
 * begin a new one on the same descriptor, standing alone: header, META,
 * and every string, stack, symbol and mapping again. 0 or -errno.
 */
int session__end_profile(struct session *s);
int session__begin_profile(struct session *s);
/*
 * The cost ledger's figures so far (serve's /metrics): lockstat's own
 * start-up CPU, and the targets' CPU since the start with its source
 * (pid, cgroup, system). 0, or -ENODATA where the targets' CPU cannot
 * be read (a command's is known once it ends).
 */
int session__ledger_now(const struct session *s, uint64_t *startup_ns, uint64_t *workload_ns,
			const char **source);
/* The steal of every CPU from the start to the last drain: 0, or -ENODATA when not read. */
int session__steal_ns(struct session *s, uint64_t *ns);
void session__free(struct session *s);

#endif
