// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat record: attach the probes, run the workload, and drain the
 * kernel's aggregates into a profile file once per bucket. The machinery
 * is lib/run/, shared with top and serve; this file is the command's
 * options and what it says at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "say.h"

enum { OPT_METRIC = SESSION_OPT__END, OPT_REPEAT };

static const struct run_opt own_opts[] = {
	{ "metric", OPT_METRIC, "REGEX", "the workload's own figure: the last stdout line matching\n"
	  "REGEX, its first group (or first number); NAME=REGEX\nnames it (e.g. --metric 'ops/s=([0-9]+)')" },
	{ "repeat", OPT_REPEAT, "N", "run the workload N times, one profile per run: FILE's\n"
	  "name gets .1 ... .N before its .data suffix; a run\n"
	  "lockstat cannot record, or a signal, ends the series" },
	{ NULL, 0, NULL, NULL },
};

static const struct run_cmd record_cmd = {
	.synopsis = "usage: lockstat record [OPTIONS] [-a | -p PID | [--] COMMAND [ARGS...]]\n",
	.rows = "output all-cpus pid cgroup duration events hold uprobes event-budget force freq user-stack user-stack-size "
		"per-thread attach bucket stack-rate stack-thin map-entries metric repeat verbose quiet help",
	.own = own_opts,
	.verb = "record",
	.footer = "The workload's exit status becomes lockstat's (128+N when killed by signal N).\n",
};

/* -e's lines come from the family table (lib/format/families.h). */
static void usage(FILE *f)
{
	print_run_usage(f, "record", &record_cmd);
}

static unsigned long repeat = 1;

static int parse_metric(struct session_opts *o, const char *arg)
{
	struct metric m;
	char why[160];

	if (metric__init(&m, arg, why, sizeof(why))) {
		pr_err("--metric %s\n", why);
		return -EINVAL;
	}
	metric__free(&m);
	o->metric = arg;
	return 0;
}

static int parse_own(struct session_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case OPT_METRIC:
		return parse_metric(o, arg);
	case OPT_REPEAT:
		return parse_ulong("--repeat", arg, 1, 10000, &repeat);
	default:
		return session__parse_opt(o, opt, arg);
	}
}

/* Returns 0, 1 for --help, or -EINVAL after saying what is wrong. */
static int parse_args(struct session_opts *o, int argc, char **argv)
{
	struct run_getopt g;
	int opt;

	if (run_cmd__getopt(&record_cmd, &g))
		return -EINVAL;
	optind = 1;
	while ((opt = opt_next(argc, argv, g.shortopts, g.longopts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || parse_own(o, opt, optarg))
			return -EINVAL;
	}
	if (optind < argc)
		o->argv = &argv[optind];
	if ((o->metric || repeat > 1) && !o->argv) {
		pr_err("--metric and --repeat need a COMMAND to run\n");
		return -EINVAL;
	}
	return session__check_target(o);
}

static void say_summary(const struct session *s)
{
	struct stat st;
	char split[64] = "";

	if (fstat(s->fd, &st))
		st.st_size = 0;
	if (s->counts.ucontended)
		snprintf(split, sizeof(split), " (%" PRIu64 " kernel, %" PRIu64 " user)", s->counts.contended,
			 s->counts.ucontended);
	pr_notice("recorded %.2f s, %" PRIu64 " contended acquisitions%s, %" PRIu64 " samples, wrote %s (%.1f KiB)\n",
		  (s->last_t - s->t0) / 1e9, s->counts.contended + s->counts.ucontended, split, s->counts.samples, s->o.output,
		  st.st_size / 1024.0);
}

/*
 * One recording: the workload's exit status, or lockstat's own exit code
 * with *failed set when lockstat could not record it.
 */
static int record(struct session *s, bool *failed)
{
	int code = session__start(s);

	*failed = code != 0;
	if (code)
		return code;
	session__run(s);
	session__finish(s);
	if (s->write_err) {	/* said, with what the file holds now */
		*failed = true;
		return EXIT_FAIL;
	}
	say_summary(s);
	session__say_lost(s);
	session__say_steal(s);
	session__say_costs(s);
	return s->wl.pid ? workload__exit_code(&s->wl) : EXIT_OK;
}

/* "base.data" -> "base.3.data"; "base" -> "base.3". */
static void run_name(const char *output, unsigned long run, char *out, size_t len)
{
	size_t n = strlen(output);

	if (n > 5 && !strcmp(output + n - 5, ".data"))
		snprintf(out, len, "%.*s.%lu.data", (int)(n - 5), output, run);
	else
		snprintf(out, len, "%s.%lu", output, run);
}

/*
 * --repeat: the same options, one session and one profile per run. A run
 * that lockstat could not record, or a signal, ends the series, and says
 * so; the workload's own failures do not. The status is that of the last
 * run that failed (lockstat's or the workload's), 0 when none did.
 */
static int record_runs(const struct session_opts *opts)
{
	char name[PATH_MAX];
	unsigned long i;
	int code, status = EXIT_OK, signals;
	bool failed;

	for (i = 1; i <= repeat; i++) {
		struct session s;

		session__init(&s);
		s.o = *opts;
		if (repeat > 1) {
			run_name(opts->output, i, name, sizeof(name));
			s.o.output = name;
			pr_notice("run %lu of %lu: %s\n", i, repeat, name);
		}
		code = record(&s, &failed);
		signals = s.signals;
		session__free(&s);
		status = code ? code : status;
		if (repeat > 1 && code && !failed)
			pr_warn("run %lu of %lu: the workload exited with status %d\n", i, repeat, code);
		if (i < repeat && (failed || signals)) {
			pr_err("run %lu of %lu %s: the series stops, runs %lu to %lu are not recorded\n",
			       i, repeat, failed ? "failed" : "was interrupted", i + 1, repeat);
			break;
		}
	}
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct session s;
	int err;

	session__init(&s);
	repeat = 1;
	err = parse_args(&s.o, argc, argv);
	if (err) {
		session__free(&s);
		if (err > 0) {
			usage(stdout);
			return EXIT_OK;
		}
		usage(stderr);
		return EXIT_USAGE;
	}
	/* Its hold times come with the lock waits, unless -e -mmap_lock. */
	if ((s.o.families & FAMILY_LOCKS) && !(s.o.families_off & FAMILY_MMAP_LOCK))
		s.o.families |= FAMILY_MMAP_LOCK;
	/* Every profile's cost ledger has what each probe cost, -q or not. */
	s.o.probe_stats = true;
	session__free(&s);
	return record_runs(&s.o);
}
