/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_RUN_OPTS_H
#define __LOCKSTAT_RUN_OPTS_H

/*
 * The recording options that record, top and serve share, in one table:
 * each option's long name, letter, value, --help text and parser. A
 * command lists the rows of its --help (its own options among the
 * shared ones) and the texts it words differently; its --help, its
 * getopt tables and the parsing of the shared options all come from the
 * table, so that an option is written once.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "record/kfeatures.h"

#define NSEC_PER_SEC	1000000000ULL

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

/* The shared long options without a letter; a command's own start at SESSION_OPT__END. */
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
	SESSION_OPT__END,
};

/* One option, shared or a command's own. */
struct run_opt {
	const char *name;	/* --NAME */
	int id;			/* its letter, or a value above 255 for a long option alone */
	const char *arg;	/* its value's name in --help; NULL: it takes none */
	const char *help;	/* --help's text (a shared one's: record's); '\n' continues it */
	const char *brief;	/* the shorter text of top and serve, which refer to record's; NULL: help */
	bool verb;		/* help goes after the command's verb ("record", "watch") */
	int (*parse)(struct session_opts *o, const char *arg);	/* NULL: the command parses it */
	/* Texts made at run time (-e's, from the family table); NULL: help and brief. */
	const char *(*text)(bool brief);
};

/* A command's own wording of a shared option's help. */
struct run_text {
	const char *name;
	const char *help;
};

/* What a command's --help and getopt tables are made of. */
struct run_cmd {
	const char *synopsis;		/* the usage lines, each ending in '\n' */
	const char *rows;		/* the long names of --help's rows in order, space-separated */
	const struct run_opt *own;	/* the command's own options, up to a NULL name */
	const struct run_text *texts;	/* up to a NULL name; NULL: none */
	const char *verb;		/* how its help says what -p and --cgroup do */
	bool brief;			/* the shorter texts */
	const char *footer;		/* after a blank line, each line ending in '\n' */
};

#define RUN_MAX_OPTS	40

/* getopt_long()'s tables for a command: every option of its rows. */
struct run_getopt {
	struct option longopts[RUN_MAX_OPTS + 1];
	char shortopts[2 * RUN_MAX_OPTS + 2];
};

/* One shared option: 0, -EINVAL after saying what is wrong, -ENOENT when not one of them. */
int session__parse_opt(struct session_opts *o, int opt, const char *arg);
/* -a, -p PID or a COMMAND, consistent; 0 or -EINVAL after saying why. */
int session__check_target(struct session_opts *o);
/* c's whole --help (free() it), or NULL when out of memory or a row is unknown. */
char *run_cmd__help(const struct run_cmd *c);
/* 0, or -EINVAL when a row names no option or there are too many. */
int run_cmd__getopt(const struct run_cmd *c, struct run_getopt *g);

#endif
