// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat top: the lock waits and CPU hot spots of a running workload,
 * refreshed every interval, as top and lockmeter's locktop did: its
 * options, and the driver it runs (top-live.c, or top-replay.c for
 * --replay). See tool/top.h for the parts.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "run/session.h"
#include "top.h"

enum { OPT_REPLAY = SESSION_OPT__END, OPT_SPEED, OPT_LOCK, OPT_CALLER, OPT_COMM, OPT_FUNC, OPT_FOLLOW };

static const struct run_opt own_opts[] = {
	{ "interval", 'i', "SECS", "refresh every SECS (default 1; 0.1 to 3600); + and - change it" },
	{ "iterations", 'n', "N", "stop after N refreshes" },
	{ "batch", 'b', NULL, "print text snapshots instead of the full-screen view" },
	{ "format", 'f', "FMT", "text (default) or json: one JSON object per refresh\n(JSON Lines; implies --batch)" },
	{ "replay", OPT_REPLAY, "FILE", "play a recorded profile through the same view (no root; - stdin)" },
	{ "speed", OPT_SPEED, "X", "replay at X times the recorded pace (default 1; 0: at once)" },
	{ "follow", OPT_FOLLOW, "DIR", "watch a running lockstat serve through its segment\n"
	  "directory, read-only (no root)" },
	{ "sort", 'k', "KEY", "locks: wait (default), contended, avg, max, total_wait,\n"
	  "total_contended, total_avg, total_max, name;\nfunctions: hits (default), total_hits, function" },
	{ "rows", 'r', "N", "--batch: rows per section (default 20 as text, all in JSON)" },
	{ "lock", OPT_LOCK, "GLOB", "only locks whose name matches (a word without * matches inside)" },
	{ "caller", OPT_CALLER, "GLOB", "only waits from matching callers" },
	{ "comm", OPT_COMM, "GLOB", "only tasks whose command matches" },
	{ "func", OPT_FUNC, "GLOB", "only functions whose name matches" },
	{ NULL, 0, NULL, NULL },
};

/* top watches: its default target, and -o a copy of what it shows. */
static const struct run_text top_texts[] = {
	{ "all-cpus", "watch the whole system (the default without -p or a COMMAND)" },
	{ "output", "also save the session as a profile that report reads (as\n"
	  "record -o: the one it replaces is kept as FILE.old)" },
	{ NULL, NULL },
};

static const struct run_cmd top_cmd = {
	.synopsis = "usage: lockstat top [OPTIONS] [-a | -p PID | [--] COMMAND [ARGS...]]\n"
		    "       lockstat top --replay FILE | --follow DIR [OPTIONS]\n",
	.rows = "all-cpus pid cgroup duration interval iterations batch format output replay speed "
		"follow sort rows lock caller comm func events freq user-stack user-stack-size hold attach stack-rate stack-thin "
		"map-entries verbose quiet help",
	.own = own_opts,
	.texts = top_texts,
	.verb = "watch",
	.brief = true,
	.footer = "Keys: 1 2 3 views, < > sort, / filter, Enter callers and stacks, space pause,\n"
		  "r reset, + - interval, h help, q quit.\n",
};

static void usage(FILE *f)
{
	print_run_usage(f, "top", &top_cmd);
}

struct top_args {
	bool rows_set;
	bool batch;
	bool speed_set;
	bool recording_opt;	/* one that chooses what to record (not for --replay) */
};

static int parse_filter(char *dst, size_t len, const char *opt, const char *arg)
{
	if (strlen(arg) >= len) {
		pr_err("%s: pattern too long\n", opt);
		return -EINVAL;
	}
	snprintf(dst, len, "%s", arg);
	return 0;
}

static int parse_top_opt(struct top *t, struct top_args *a, int opt, const char *arg)
{
	switch (opt) {
	case 'i':
		return parse_seconds("--interval", arg, TOP_INTERVAL_MIN_S, TOP_INTERVAL_MAX_S, &t->o.interval);
	case 'n':
		return parse_ulong("--iterations", arg, 1, 1UL << 31, &t->o.iterations);
	case 'b':
		a->batch = true;
		return 0;
	case 'f':
		if (!strcmp(arg, "json") || !strcmp(arg, "text")) {
			t->o.out = !strcmp(arg, "json") ? TOP_JSON : TOP_TEXT;
			return 0;
		}
		pr_err("--format: '%s' is not text or json\n", arg);
		return -EINVAL;
	case OPT_REPLAY: return parse_path("--replay", arg, &t->o.replay);
	case OPT_FOLLOW: return parse_path("--follow", arg, &t->o.follow);
	case OPT_SPEED: a->speed_set = true; return parse_double("--speed", arg, 0, 1e6, &t->o.speed);
	case 'k':
		if (!top_sort_parse(arg, &t->o.lock_key, &t->o.func_key))
			return 0;
		pr_err("--sort: unknown key '%s' (see --help)\n", arg);
		return -EINVAL;
	case 'r':
		a->rows_set = true;
		return parse_ulong("--rows", arg, 0, 1UL << 31, &t->o.rows);
	case OPT_LOCK: return parse_filter(t->q.lock, sizeof(t->q.lock), "--lock", arg);
	case OPT_CALLER: return parse_filter(t->q.caller, sizeof(t->q.caller), "--caller", arg);
	case OPT_COMM: return parse_filter(t->q.comm, sizeof(t->q.comm), "--comm", arg);
	case OPT_FUNC: return parse_filter(t->q.func, sizeof(t->q.func), "--func", arg);
	default: return -ENOENT;
	}
}

/* --replay plays a file, --follow reads serve's: the options that choose what to record do not apply. */
static int check_replay(const struct top *t, const struct session_opts *so, const struct top_args *a)
{
	const char *opt = t->o.follow ? "--follow" : "--replay";

	if (t->o.follow && t->o.replay) {
		pr_err("--follow and --replay exclude each other\n");
		return -EINVAL;
	}
	if (a->recording_opt || so->argv) {
		pr_err("%s reads recorded profiles: -a, -p, -d, -o, -e, -F, --hold, --attach, --stack-rate, --stack-thin, -M and a COMMAND do not apply\n",
		       opt);
		return -EINVAL;
	}
	return 0;
}

static int check_args(struct top *t, struct session_opts *so, const struct top_args *a)
{
	if (a->speed_set && !t->o.replay) {
		pr_err("--speed needs --replay\n");
		return -EINVAL;
	}
	if (t->o.out == TOP_CURSES && a->batch)
		t->o.out = TOP_TEXT;
	if (t->o.out == TOP_CURSES && a->rows_set) {
		pr_err("--rows applies to --batch and -f json (the full-screen view fits the screen)\n");
		return -EINVAL;
	}
	if (!a->rows_set)
		t->o.rows = t->o.out == TOP_JSON ? 0 : 20;
	if (t->o.replay || t->o.follow)
		return check_replay(t, so, a);
	if (!so->pid && !so->argv && !so->cgroup)
		so->system_wide = true;	/* as top: the whole system by default */
	return session__check_target(so);
}

/* Returns 0, 1 for --help, or -EINVAL after saying what is wrong. */
static int parse_args(struct top *t, struct session_opts *so, int argc, char **argv)
{
	struct top_args a = { 0 };
	struct run_getopt g;
	int opt, err;

	if (run_cmd__getopt(&top_cmd, &g))
		return -EINVAL;
	optind = 1;
	while ((opt = opt_next(argc, argv, g.shortopts, g.longopts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?')
			return -EINVAL;
		err = parse_top_opt(t, &a, opt, optarg);
		if (err == -ENOENT) {
			err = session__parse_opt(so, opt, optarg);
			a.recording_opt |= opt != 'v' && opt != 'q';
		}
		t->o.events_given |= opt == 'e';
		if (err)
			return -EINVAL;
	}
	if (optind < argc)
		so->argv = &argv[optind];
	return check_args(t, so, &a);
}

/* --- the command ---------------------------------------------------------- */

static void top_init(struct top *t, struct session *s)
{
	memset(t, 0, sizeof(*t));
	t->o.interval = 1.0;
	t->o.speed = 1.0;
	t->o.lock_key = TK_WAIT_RATE;
	t->o.func_key = TF_RATE;
	top_model__init(&t->model);
	session__init(s);
	s->o.output = NULL;	/* a memfd, unless -o */
	s->o.per_task = true;	/* for the comm filter */
	s->o.probe_stats = true;	/* the header shows what the probes cost */
}

/* Set once the options are known. */
static void top_session_opts(const struct top *t, struct session *s)
{
	s->o.bucket = t->o.interval;
	/* The view names functions only; a saved profile keeps lines and inlines. */
	s->o.brief_usyms = !s->o.output;
	/* New processes mean new files to read: 1 % of the interval, the rest later. */
	s->o.usyms_budget_ns = t->o.interval * NSEC_PER_SEC / 100;
	s->o.wl_output = t->o.out == TOP_CURSES ? WL_OUT_NULL : WL_OUT_STDERR;
	s->o.extra_signal = t->o.out == TOP_CURSES ? SIGWINCH : 0;
	/*
	 * Unlike record, locks does not bring the mmap_lock family along: its
	 * hold times have no column here, and system-wide its table fills up
	 * within seconds and doubles the cost of every drain. Its waits are
	 * lock waits like any other; -e ...,mmap_lock adds its table.
	 */
	if (!t->o.events_given)
		s->o.families &= ~FAMILY_MMAP_LOCK;
}

int cmd_top(int argc, char **argv)
{
	struct session s;
	struct top t;
	int err, code;

	top_init(&t, &s);
	err = parse_args(&t, &s.o, argc, argv);
	if (err) {
		session__free(&s);
		usage(err > 0 ? stdout : stderr);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	log_set_json_errors(t.o.out == TOP_JSON);
	if (t.o.out == TOP_CURSES && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		pr_err("top needs a terminal: use --batch (or --format json) for a pipe or a file\n");
		session__free(&s);
		return EXIT_USAGE;
	}
	top_session_opts(&t, &s);
	if (t.o.replay)
		code = top_replay(&t);
	else if (t.o.follow)
		code = top_follow(&t);
	else
		code = top_live(&t, &s);
	top_snap__free(t.snap);
	top_model__free(&t.model);
	session__free(&s);
	return code;
}
