// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat record: attach the probes, run the workload, and drain the
 * kernel's aggregates into a profile file once per bucket. The machinery
 * is tool/session.c, shared with top; this file is the command's options
 * and what it says at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "session.h"

static void usage(FILE *f)
{
	print_usage(f, "record",
		"usage: lockstat record [OPTIONS] [-a | -p PID | [--] COMMAND [ARGS...]]\n"
		"\n"
		"  -o, --output FILE      profile to write (default lockstat.data); the one it\n"
		"                         replaces is kept as FILE.old\n"
		"  -a, --all-cpus         record the whole system (with a COMMAND: while it runs)\n"
		"  -p, --pid PID          record process PID and the processes it forks\n"
		"      --cgroup PATH      record the tasks of cgroup v2 PATH and its descendants\n"
		"  -d, --duration SECS    stop after SECS seconds (at least 0.01)\n"
		"  -e, --events LIST      probe families: locks, sample, mmap_lock, fd, pagecache,\n"
		"                         hold, ulocks, uprobes (default locks,sample; mmap_lock\n"
		"                         comes with locks); -NAME takes one out (alone: out of\n"
		"                         the default)\n"
		"      --hold             add hold times of kernel mutexes, rwsems and spinlocks\n"
		"                         (fentry only: kprobes there are refused; costly: the\n"
		"                         cost is printed)\n"
		"      --uprobes          user locks with uprobes on glibc's lock functions: every\n"
		"                         acquisition and hold (-e ulocks,uprobes; each call traps:\n"
		"                         the measured cost is printed)\n"
		"      --event-budget N   uprobe hits per second before they are detached (10000)\n"
		"      --force            keep uprobes over the budget, or put them on every process\n"
		"  -F, --freq HZ          samples per second per CPU (default 99)\n"
		"      --user-stack MODE  the sampler's user stacks: fp (frame pointers, the\n"
		"                         default) or dwarf (copied and unwound with the CFI)\n"
		"      --user-stack-size N\n"
		"                         dwarf: bytes of user stack copied a sample (8192)\n"
		"  -t, --per-thread       aggregate lock waits per task too (pid, tid, comm)\n"
		"      --attach MODE      auto, tp, tp_btf, tracepoint, fentry or kprobe (default\n"
		"                         auto); fentry/kprobe choose how fd attaches\n"
		"      --bucket SECS      drain the kernel maps every SECS (default 1; 0.01 to 3600)\n"
		"      --stack-rate N     kernel stacks taken per second per CPU (default 250;\n"
		"                         0: one for every wait); waits are always all counted\n"
		"      --stack-thin NS    a sampled wait shorter than NS keeps its stack in\n"
		"                         proportion to its length (default 65536; 0: always)\n"
		"  -M, --map-entries N    lock rows the kernel holds at once (default 16384;\n"
		"                         the sampler: 2N rows, N stacks of each kind)\n"
		"      --metric REGEX     the workload's own figure: the last stdout line matching\n"
		"                         REGEX, its first group (or first number); NAME=REGEX\n"
		"                         names it (e.g. --metric 'ops/s=([0-9]+)')\n"
		"      --repeat N         run the workload N times, one profile per run: FILE's\n"
		"                         name gets .1 ... .N before its .data suffix; a run\n"
		"                         lockstat cannot record, or a signal, ends the series\n"
		"  -v, --verbose          say more (-vvv: libbpf's own messages)\n"
		"  -q, --quiet            only errors\n"
		"  -h, --help             this help\n"
		"\n"
		"The workload's exit status becomes lockstat's (128+N when killed by signal N).\n");
}

enum { OPT_METRIC = SESSION_OPT__END, OPT_REPEAT };

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

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, SESSION_OPT_CGROUP },
	{ "duration", required_argument, NULL, 'd' },
	{ "per-thread", no_argument, NULL, 't' },
	{ "events", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "attach", required_argument, NULL, SESSION_OPT_ATTACH },
	{ "hold", no_argument, NULL, SESSION_OPT_HOLD },
	{ "uprobes", no_argument, NULL, SESSION_OPT_UPROBES },
	{ "event-budget", required_argument, NULL, SESSION_OPT_EVENT_BUDGET },
	{ "force", no_argument, NULL, SESSION_OPT_FORCE },
	{ "bucket", required_argument, NULL, SESSION_OPT_BUCKET },
	{ "stack-rate", required_argument, NULL, SESSION_OPT_STACK_RATE },
	{ "stack-thin", required_argument, NULL, SESSION_OPT_STACK_THIN },
	{ "user-stack", required_argument, NULL, SESSION_OPT_USER_STACK },
	{ "user-stack-size", required_argument, NULL, SESSION_OPT_USER_STACK_SIZE },
	{ "map-entries", required_argument, NULL, 'M' },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0, 1 for --help, or -EINVAL after saying what is wrong. */
static int parse_args(struct session_opts *o, int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "+o:ap:d:te:F:M:vqh", long_opts)) != -1) {
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
	if (s->ucontended)
		snprintf(split, sizeof(split), " (%" PRIu64 " kernel, %" PRIu64 " user)", s->contended,
			 s->ucontended);
	pr_notice("recorded %.2f s, %" PRIu64 " contended acquisitions%s, %" PRIu64 " samples, wrote %s (%.1f KiB)\n",
		  (s->last_t - s->t0) / 1e9, s->contended + s->ucontended, split, s->samples, s->o.output,
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
	return s->wl.pid ? session__exit_code(s) : EXIT_OK;
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
	/* The summary says what every probe cost; -q says nothing, so measures nothing. */
	s.o.probe_stats = log_verbosity >= 0;
	session__free(&s);
	return record_runs(&s.o);
}
