/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * workload.h: what every contrib/workloads program shares.
 *
 * A workload starts N workers that each hammer one kernel path, so that
 * lockstat has a known contention to find.  Each one promises (tests and
 * benchmarks rely on it):
 *  - one final line on stdout with its figure of merit,
 *      PROG: [own fields ][overlap=P.P% ]workers=N ops=N secs=S.SSS ops/s=N
 *    or with -q the ops/s integer alone; overlap= comes from workers
 *    that call wl_beat() (see there), with 2 workers or more;
 *  - -t N workers, -d SECS to run (default 3), -n OPS in total (wins over
 *    -d), -q, -h and --help, parsed here; anything else is its own;
 *  - SIGINT or SIGTERM stops the run early, and the line is still printed
 *    with exit status 0;
 *  - exit status 1 on a runtime error, 2 on bad usage, each with a
 *    "PROG: ..." line on stderr.
 *
 * Header only, for a program of one .c file.  Define _GNU_SOURCE before
 * every #include and PROG before this one, then define usage() and a
 * worker.  A worker counts in a local and writes its count, once, to its
 * own cache-line slot:
 *
 *	static void run_worker(unsigned int id)
 *	{
 *		struct slot *s = &ctl->slot[id];
 *		uint64_t quota = quota_of(id), ops = 0;
 *
 *		(set up; on an error fail(s, "call") and go on to the gate)
 *		wait_for_go();
 *		while (ops < quota && !ctl->stop) {
 *			(one op; on an error fail(s, "call") and break)
 *			ops++;
 *		}
 *		record(s, ops);
 *	}
 *
 * and main() is wl_parse_args(), wl_run(), wl_report().  The functions a
 * program may leave unused are marked so, to keep -Werror quiet.
 */
#ifndef __LOCKSTAT_WORKLOAD_H
#define __LOCKSTAT_WORKLOAD_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any #include"
#endif
#ifndef PROG
#error "define PROG, the program's name, before including workload.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CACHELINE	64
#define MAX_WORKERS	4096
#define MAX_SECS	(365.0 * 24 * 3600)
#define POLL_SECS	0.01	/* how late main may notice a stop */

/* The options wl_parse_args() handles; a workload appends its own. */
#define WL_SHORTOPTS	":t:d:n:qh"

/* Lines of usage() text every workload words the same. */
#define WL_USAGE_SECS							\
	"  -d SECS   run for SECS seconds, fractions allowed (default 3)\n"
#define WL_USAGE_QUIET_HELP						\
	"  -q        print only the ops/s integer\n"			\
	"  -h        show this help\n"
#define WL_USAGE_EXIT							\
	"SIGINT or SIGTERM ends the run early; the line is still printed and\n" \
	"the exit status is 0.  Exit status 1: runtime error; 2: bad usage.\n"

/*
 * Written once by its worker when the loop ends, but for the heartbeat
 * (wl_beat()); one cache line each.
 */
struct slot {
	uint64_t ops;
	double end;		/* CLOCK_MONOTONIC seconds at loop exit */
	const char *what;	/* failing call; a literal, valid after fork */
	int err;		/* its errno, 0 if none */
	volatile uint64_t beat;	/* batches done, read by the previous worker */
	uint64_t seen;		/* the next worker's beat at our last batch */
	uint64_t batches;	/* batches after the first */
	uint64_t shared;	/* of those, the ones the next worker also advanced in */
} __attribute__((aligned(CACHELINE)));

/* MAP_SHARED where workers may be processes, so they report through it. */
struct ctl {
	volatile sig_atomic_t stop __attribute__((aligned(CACHELINE)));
	struct slot slot[];
};

/* The options every workload has; its own live in its own struct. */
static struct {
	unsigned int workers;
	double secs;
	uint64_t total_ops;	/* 0: run for secs instead */
	bool fork;		/* workers are processes, not threads */
	bool quiet;
} wl = {
	.workers = 2,
	.secs = 3,
};

static struct ctl *ctl;
static int ready_pipe[2];	/* each worker writes one byte when set up */
static int go_pipe[2];		/* main closes the write end to start all */
static pthread_t *tids;
static pid_t *pids;
static void (*worker_fn)(unsigned int id);

/* Each workload's own: what it does and which options it takes. */
static void usage(FILE *f);

/* One "PROG: ..." line on stderr. */
static void __attribute__((format(printf, 1, 0))) vcomplain(const char *fmt, va_list ap)
{
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Exit status 2, after the usage text. */
static void __attribute__((noreturn, format(printf, 1, 2))) bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcomplain(fmt, ap);
	va_end(ap);
	usage(stderr);
	exit(2);
}

/* Exit status 1: a runtime error. */
static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcomplain(fmt, ap);
	va_end(ap);
	exit(1);
}

/* A stop signal came, maybe before wl_run() (see wl_catch_early_stop()). */
static volatile sig_atomic_t wl_early_stop;

static void wl_on_early_stop(int sig)
{
	(void)sig;
	wl_early_stop = 1;
	if (ctl)
		ctl->stop = 1;
}

/*
 * For a workload that builds files or directories before wl_run(): until
 * wl_run() installs its handlers for SIGINT and SIGTERM these only set
 * wl_early_stop, since a program killed outright would leave them
 * behind. For the same reason SIGHUP (a closed terminal) stops the run,
 * and SIGPIPE is ignored, so that a closed stdout ends in die(), exit
 * status 1 and the atexit() clean-up.
 */
static void __attribute__((unused)) wl_catch_early_stop(void)
{
	struct sigaction sa = { .sa_handler = wl_on_early_stop };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL) || signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die("sigaction: %s", strerror(errno));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() quietly accepts "-1" and leading blanks. */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* The negated test also turns away NaN. */
	if (errno || end == s || *end || !(v > 0 && v <= MAX_SECS))
		return -1;
	*out = v;
	return 0;
}

/* The name of the long-only option (no char as its val) val, or NULL. */
static const char *long_only_name(const struct option *longopts, int val)
{
	const struct option *o;

	if (val <= UCHAR_MAX)
		return NULL;
	for (o = longopts; o->name; o++)
		if (o->val == val)
			return o->name;
	return NULL;
}

/*
 * Parse the command line into wl and, through own(), the workload's own
 * options.  own() sees each option first and returns true for one it
 * took; it may be NULL.  shortopts is WL_SHORTOPTS with the workload's
 * own appended; longopts includes { "help", no_argument, NULL, 'h' }.
 */
static void __attribute__((unused))
wl_parse_args(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, bool (*own)(int c))
{
	unsigned long long v;
	const char *name;
	int c;

	/* Quiet getopt: its messages carry argv[0], ours say PROG. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (own && own(c))
			continue;
		switch (c) {
		case 't':
			if (parse_count(optarg, MAX_WORKERS, &v))
				bad_usage("-t wants 1..%d, not '%s'", MAX_WORKERS, optarg);
			wl.workers = v;
			break;
		case 'd':
			if (parse_secs(optarg, &wl.secs))
				bad_usage("-d wants seconds > 0, not '%s'", optarg);
			break;
		case 'n':
			if (parse_count(optarg, UINT64_MAX, &v))
				bad_usage("-n wants a count > 0, not '%s'", optarg);
			wl.total_ops = v;
			break;
		case 'q':
			wl.quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			name = long_only_name(longopts, optopt);
			if (name)
				bad_usage("--%s needs an argument", name);
			bad_usage("-%c needs an argument", optopt);
		default:
			name = long_only_name(longopts, optopt);
			if (name)
				bad_usage("--%s takes no argument", name);
			if (optopt)
				bad_usage("unknown option -%c", optopt);
			/* A bad long option always advances optind. */
			bad_usage("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
}

static void on_signal(int sig)
{
	(void)sig;
	ctl->stop = 1;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		die("sigaction: %s", strerror(errno));
}

/* Even split of -n; the first total % workers get one op more. */
static uint64_t __attribute__((unused)) quota_of(unsigned int id)
{
	if (!wl.total_ops)
		return UINT64_MAX;
	return wl.total_ops / wl.workers + (id < wl.total_ops % wl.workers);
}

/* The start gate: report ready, then block until main closes the go pipe. */
static void __attribute__((unused)) wait_for_go(void)
{
	char c = 0;
	ssize_t r;

	do
		r = write(ready_pipe[1], &c, 1);
	while (r < 0 && errno == EINTR);
	/* A process must drop its copy, or main never sees EOF if a sibling dies. */
	if (wl.fork)
		close(ready_pipe[1]);
	do
		r = read(go_pipe[0], &c, 1);
	while (r < 0 && errno == EINTR);
}

/* Record a failed call (errno still set) and stop every worker. */
static void __attribute__((unused)) fail(struct slot *s, const char *what)
{
	s->what = what;
	s->err = errno;
	ctl->stop = 1;
}

/* The one write to a worker's slot, when its loop ends. */
static void __attribute__((unused)) record(struct slot *s, uint64_t ops)
{
	s->end = now();
	s->ops = ops;
}

/*
 * Two workers contend only while they run at once, and on a busy machine
 * with few CPUs they may take turns instead: then a test that finds no
 * contention must know why. A worker that calls wl_beat(id, ops) once
 * per op (ops: its count so far) looks, every WL_BEAT_OPS ops, whether
 * the next worker finished a batch since its own last look. Taking turns
 * on one CPU, it did only where we were preempted inside a batch (a
 * batch is far shorter than a time slice); running at once, nearly
 * always. wl_report() prints the share of batches where it did as
 * overlap=P.P%. Only one cache line per worker is read, every WL_BEAT_OPS
 * ops, so the probe adds next to nothing to what it measures.
 */
#ifndef WL_BEAT_OPS
#define WL_BEAT_OPS	64
#endif

static void __attribute__((unused)) wl_beat(unsigned int id, uint64_t ops)
{
	struct slot *s = &ctl->slot[id];
	uint64_t next;

	if (ops % WL_BEAT_OPS || wl.workers < 2)
		return;
	next = ctl->slot[(id + 1) % wl.workers].beat;
	if (ops) {
		s->batches++;
		s->shared += next != s->seen;
	}
	s->seen = next;
	s->beat++;
}

/* "overlap=P% " for wl_report(), or "" where no worker beat. */
static const char *overlap_field(char *buf, size_t len)
{
	uint64_t batches = 0, shared = 0, beats = 0;
	unsigned int i;

	for (i = 0; i < wl.workers; i++) {
		beats += ctl->slot[i].beat;
		batches += ctl->slot[i].batches;
		shared += ctl->slot[i].shared;
	}
	if (!beats)
		return "";
	snprintf(buf, len, "overlap=%.1f%% ", batches ? 100.0 * shared / batches : 0.0);
	return buf;
}

static void *thread_main(void *arg)
{
	worker_fn((unsigned int)(uintptr_t)arg);
	return NULL;
}

static pid_t spawn_process(unsigned int id)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* A parent killed outright must not leave us looping forever. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	close(ready_pipe[0]);
	close(go_pipe[1]);
	worker_fn(id);
	_exit(ctl->slot[id].err ? 1 : 0);
}

/* Returns how many started; on a shortfall *what and *err say why. */
static unsigned int spawn_all(const char **what, int *err)
{
	unsigned int i;

	for (i = 0; i < wl.workers; i++) {
		if (wl.fork) {
			pids[i] = spawn_process(i);
			if (pids[i] < 0) {
				*what = "fork";
				*err = errno;
				break;
			}
		} else {
			*err = pthread_create(&tids[i], NULL, thread_main,
					      (void *)(uintptr_t)i);
			if (*err) {
				*what = "pthread_create";
				break;
			}
		}
	}
	return i;
}

static unsigned int wait_ready(unsigned int n)
{
	unsigned int got = 0;
	char buf[256];
	size_t want;
	ssize_t r;

	while (got < n) {
		want = n - got < sizeof(buf) ? n - got : sizeof(buf);
		r = read(ready_pipe[0], buf, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

/* Sleep in short slices so a signal caught by any task ends the wait. */
static void wait_deadline(double t0)
{
	struct timespec ts = { 0 };
	double left;

	while (!ctl->stop && (left = t0 + wl.secs - now()) > 0) {
		if (left > POLL_SECS)
			left = POLL_SECS;
		ts.tv_nsec = left * 1e9;
		nanosleep(&ts, NULL);
	}
	ctl->stop = 1;
}

/* Wait for every started worker; returns false if a process died badly. */
static bool reap_all(unsigned int n)
{
	bool ok = true;
	unsigned int i;
	int status;

	for (i = 0; i < n; i++) {
		if (!wl.fork) {
			pthread_join(tids[i], NULL);
			continue;
		}
		while (waitpid(pids[i], &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
		/* Exit 1 is a recorded failure, reported from its slot. */
		if (!WIFEXITED(status) || (WEXITSTATUS(status) && !ctl->slot[i].err))
			ok = false;
	}
	return ok;
}

/*
 * Run wl.workers copies of worker (threads, or processes if wl.fork),
 * start them together and stop them at the deadline, at -n or on a
 * signal.  Dies on any failure; returns the start time for wl_report().
 * may_fork: the workload offers --fork, so the control block is
 * MAP_SHARED in either mode; otherwise it is a private mapping.
 */
static double __attribute__((unused))
wl_run(void (*worker)(unsigned int id), bool may_fork)
{
	const char *what = NULL;
	unsigned int started, ready, i;
	bool reaped;
	int err = 0;
	double t0;

	/* mmap() is page aligned, so the slots get their cache lines. */
	ctl = mmap(NULL, sizeof(*ctl) + wl.workers * sizeof(struct slot),
		   PROT_READ | PROT_WRITE,
		   (may_fork ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	tids = calloc(wl.workers, sizeof(*tids));
	pids = calloc(wl.workers, sizeof(*pids));
	if (!tids || !pids)
		die("out of memory");
	if (pipe2(ready_pipe, O_CLOEXEC) || pipe2(go_pipe, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	install_signals();
	worker_fn = worker;

	started = spawn_all(&what, &err);
	if (wl.fork)
		close(ready_pipe[1]);
	/* Threads cannot die alone, so with them all that started report. */
	ready = wait_ready(started);
	if (started < wl.workers || ready < started)
		ctl->stop = 1;
	t0 = now();
	close(go_pipe[1]);
	if (!wl.total_ops)
		wait_deadline(t0);
	reaped = reap_all(started);

	if (started < wl.workers)
		die("%s: %s", what, strerror(err));
	if (!reaped || ready < started)
		die("a worker process died");
	for (i = 0; i < wl.workers; i++)
		if (ctl->slot[i].err)
			die("%s: %s", ctl->slot[i].what, strerror(ctl->slot[i].err));
	return t0;
}

/*
 * Print the one line: PROG, then fields (the workload's own "key=value "
 * pairs, each with its trailing blank, or ""), then the common ones.
 */
static void __attribute__((unused)) wl_report(double t0, const char *fields)
{
	uint64_t ops = 0, rate = 0;
	double end = t0, secs;
	char overlap[32];
	unsigned int i;

	for (i = 0; i < wl.workers; i++) {
		ops += ctl->slot[i].ops;
		if (ctl->slot[i].end > end)
			end = ctl->slot[i].end;
	}
	secs = end - t0;
	if (secs > 0)
		rate = ops / secs + 0.5;
	if (wl.quiet)
		printf("%" PRIu64 "\n", rate);
	else
		printf(PROG ": %s%sworkers=%u ops=%" PRIu64 " secs=%.3f ops/s=%" PRIu64 "\n",
		       fields, overlap_field(overlap, sizeof(overlap)), wl.workers, ops, secs, rate);
	if (fflush(stdout) == EOF)
		die("stdout: %s", strerror(errno));
}

#endif /* __LOCKSTAT_WORKLOAD_H */
