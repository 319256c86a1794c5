/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SESSION_H
#define __LOCKSTAT_SESSION_H

/*
 * A recording session, shared by record and top: the workload held until
 * the probes are attached, -p PID or -a, the signals (through a
 * signalfd), the collector, the profile writer and the loop that drains
 * the kernel's aggregates into it once per bucket. record writes the
 * profile to a file; top writes it to a file or a memfd and reads it back
 * after every bucket: one data path for recording and watching.
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
#include "metric.h"
#include "base/outfile.h"
#include "sym/ksyms.h"
#include "record/procmaps.h"
#include "format/profile.h"
#include "record/uresolve.h"
#include "record/steal_read.h"

#define NSEC_PER_SEC	1000000000ULL
#define MAX_LOST	32	/* loss counters of the LOST chunk, of every family */
#define MAX_TABLE_LOST	32	/* columns of the families' NAME.lost tables */

/*
 * Below 10 ms a bucket costs more than it shows (a drain walks the whole
 * map); above an hour a killed recording loses too much. -d has the
 * same floor.
 */
#define BUCKET_MIN_S	0.01
#define BUCKET_MAX_S	3600.0
#define DURATION_MIN_S	0.01
#define DURATION_MAX_S	1e7

/* Where the workload's standard streams go. */
enum wl_output {
	WL_OUT_INHERIT,		/* ours (record) */
	WL_OUT_STDERR,		/* stdout to our stderr: our stdout carries data */
	WL_OUT_NULL,		/* all three to /dev/null: a full-screen UI owns the terminal */
};

struct session_opts {
	const char *output;	/* NULL: an anonymous memfd (top without -o) */
	bool system_wide;
	pid_t pid;
	const char *cgroup;	/* --cgroup: the tasks of this cgroup v2 subtree, or NULL */
	double duration;	/* 0: until the workload ends or a signal */
	double bucket;
	bool per_task;
	enum attach_mode mode;
	unsigned long map_entries;
	unsigned long stack_rate;
	unsigned long stack_thin;	/* --stack-thin: ns, 0: none */
	unsigned int families;
	unsigned int families_off;	/* taken out with -e -NAME: never added back */
	unsigned long sample_freq;
	bool user_stack_dwarf;	/* --user-stack dwarf: user stacks unwound from a copy */
	bool user_stack_set;	/* --user-stack or --user-stack-size given: they need the sample family */
	unsigned long user_stack_size;	/* --user-stack-size: bytes copied a sample (dwarf) */
	bool user_stack_size_set;
	bool probe_stats;	/* measure every family's cost, not only the opt-in ones */
	bool brief_usyms;	/* sampled user functions only, no DWARF lines nor inlines (top) */
	bool usyms_no_lines;	/* every user frame's function, no DWARF lines nor inlines (serve) */
	uint64_t usyms_budget_ns;	/* time for session__write_usyms(), 0: no limit */
	unsigned long event_budget;	/* uprobe hits per second, 0: the default */
	bool force;		/* uprobes over the budget, or system-wide */
	bool freq_set;		/* -F given: it needs the sample family */
	bool budget_set;	/* --event-budget given: it needs --uprobes */
	enum wl_output wl_output;
	int extra_signal;	/* one more signal for the hooks (SIGWINCH), 0: none */
	char **argv;		/* the workload, or NULL */
	const char *metric;	/* --metric: read the workload's figure from its stdout */
};

/* The long options every recording command shares (session__parse_opt). */
enum {
	SESSION_OPT_ATTACH = 1000,
	SESSION_OPT_BUCKET,
	SESSION_OPT_STACK_RATE,
	SESSION_OPT_STACK_THIN,
	SESSION_OPT_HOLD,
	SESSION_OPT_UPROBES,
	SESSION_OPT_FORCE,
	SESSION_OPT_EVENT_BUDGET,
	SESSION_OPT_CGROUP,
	SESSION_OPT_USER_STACK,
	SESSION_OPT_USER_STACK_SIZE,
	SESSION_OPT__END,	/* a command's own long options start here */
};

struct workload {
	pid_t pid;		/* 0: none */
	int go_fd;		/* write a byte to let it exec */
	int err_fd;		/* errno of a failed exec, EOF on success */
	bool exited;
	int status;		/* from waitpid */
};

/* What a command adds to the loop (top: keys, redraws); every member optional. */
struct session_hooks {
	int input_fd;				/* polled too; -1: none */
	void (*on_input)(void *ctx);		/* input_fd is readable */
	void (*on_bucket)(void *ctx);		/* a bucket was just written */
	void (*on_signal)(void *ctx, int signo);	/* opts.extra_signal arrived */
	void *ctx;
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
	int wl_out_fd;		/* the workload's stdout, read for --metric; -1 */
	bool stdout_failed;	/* passing it on to ours failed */
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
	uint64_t drain_ns;	/* how long the last bucket took to drain and write */
	/* lockstat's own CPU time (user + sys), from session__start() on */
	uint64_t wall_start;	/* CLOCK_MONOTONIC at session__start() */
	struct rusage ru_start;
	uint64_t drain_cpu_ns;	/* in the buckets' drains and writes */
	uint64_t nbuckets;
	uint64_t finish_cpu_ns;	/* in session__finish(): last drain, user symbols */
	uint64_t finish_ns;	/* session__finish()'s wall time: CPU-starved, it is long */
	uint64_t contended;	/* kernel locks' contended acquisitions */
	uint64_t ucontended;	/* user locks' (futex waits on a lock, not on an event) */
	uint64_t samples;
	struct steal_tracker steal;	/* read at t0, every drain and the end */
	bool steal_on;		/* steal is read; false: not recorded (steal_err says why) */
	int steal_err;
	int signals;		/* SIGINT/SIGTERM/SIGHUP received */
	uint64_t kill_deadline;	/* when a signalled workload gets SIGKILL */
	bool stop;
	int write_err;
	uint64_t lost_base[MAX_LOST];	/* the loss counters when this profile began */
	/* The families' own loss tables (NAME.lost), each column summed over this profile. */
	struct table_lost {
		const struct tschema *schema;
		uint32_t col;
		uint64_t value;
	} table_lost[MAX_TABLE_LOST];
	size_t ntable_lost;
};

/* record's defaults: 1 s buckets, locks and samples, 99 Hz. */
void session__init(struct session *s);
/* One shared option: 0, -EINVAL after saying what is wrong, -ENOENT when not one of them. */
int session__parse_opt(struct session_opts *o, int opt, const char *arg);
/* -a, -p PID or a COMMAND, consistent; 0 or -EINVAL after saying why. */
int session__check_target(struct session_opts *o);
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
/* The workload's exit status as lockstat's (128+N when killed by signal N). */
int session__exit_code(const struct session *s);
/*
 * What the recording cost: one line per family and the fork follower
 * (kernel.bpf_stats, when measured), and lockstat's own CPU time.
 */
void session__say_costs(const struct session *s);
/* A line with every loss counter that is not zero, when one is. */
void session__say_lost(const struct session *s);
/* A line with the recording's steal time, as the report's header says it. */
void session__say_steal(struct session *s);
/* The steal of every CPU from the start to the last drain: 0, or -ENODATA when not read. */
int session__steal_ns(struct session *s, uint64_t *ns);
void session__free(struct session *s);

#endif
