// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fdstorm: hammer the fd allocate/close path from many tasks at once.
 *
 * Threads of one process share one files_struct (pthread_create() passes
 * CLONE_FILES), so every alloc_fd() and file_close_fd() they do takes the
 * same files->file_lock spinlock.  With --fork each worker is a process
 * with its own fd table: the same loop, next to no contention on that
 * lock.  The pair gives lockstat a known before/after.
 *
 * One op is dup(own fd) + close().  dup() rather than open("/dev/null"):
 * open walks the path (RCU walk, plus a lockref on the one /dev/null
 * dentry every worker shares) and allocates a struct file, so most of its
 * time is spent away from file_lock; dup()+close() is alloc_fd(),
 * fd_install() and file_close_fd() and little else.  Each worker dups its
 * own private open file, so the struct file refcount is not a second
 * shared cache line.  Measured on 2 cores, 2 workers: dup+close ~5.6M
 * ops/s as threads against ~6.5M as processes; open+close ~1.0M either
 * way, the file_lock cost lost in the rest.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   fdstorm: mode=threads workers=2 ops=1234567 secs=3.001 ops/s=411234
 * or with -q the ops/s integer alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
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

#define PROG		"fdstorm"
#define CACHELINE	64
#define MAX_WORKERS	4096
#define MAX_SECS	(365.0 * 24 * 3600)
#define POLL_SECS	0.01	/* how late main may notice a stop */
#define OPT_FORK	256	/* long-only: no char value a short option has */

/* Written once by its worker when the loop ends; one cache line each. */
struct slot {
	uint64_t ops;
	double end;		/* CLOCK_MONOTONIC seconds at loop exit */
	const char *what;	/* failing call; a literal, valid after fork */
	int err;		/* its errno, 0 if none */
} __attribute__((aligned(CACHELINE)));

/* MAP_SHARED so --fork children report through it too. */
struct ctl {
	volatile sig_atomic_t stop __attribute__((aligned(CACHELINE)));
	struct slot slot[];
};

static struct {
	unsigned int workers;
	double secs;
	uint64_t total_ops;	/* 0: run for secs instead */
	bool fork;
	bool quiet;
} opt = {
	.workers = 2,
	.secs = 3,
};

static struct ctl *ctl;
static int ready_pipe[2];	/* each worker writes one byte when set up */
static int go_pipe[2];		/* main closes the write end to start all */
static pthread_t *tids;
static pid_t *pids;

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [--fork] [-q] [-h]\n"
	      "Contend on the kernel's files_struct.file_lock with dup()+close() loops.\n"
	      "  -t N      workers (default 2)\n"
	      "  -d SECS   run for SECS seconds, fractions allowed (default 3)\n"
	      "  -n OPS    run until OPS dup+close pairs in total, split evenly\n"
	      "            across workers; wins over -d\n"
	      "  --fork    workers are processes, each with its own fd table\n"
	      "            (the contrast case); default is threads sharing one\n"
	      "  -q        print only the ops/s integer\n"
	      "  -h        show this help\n"
	      "Prints one line on stdout:\n"
	      "  " PROG ": mode=threads|processes workers=N ops=N secs=S.SSS ops/s=N\n"
	      "SIGINT or SIGTERM ends the run early; the line is still printed and\n"
	      "the exit status is 0.  Exit status 1: runtime error; 2: bad usage.\n",
	      f);
}

static void __attribute__((noreturn, format(printf, 1, 2))) bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
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

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fork", no_argument, NULL, OPT_FORK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c;

	/* Quiet getopt: its messages carry argv[0], ours say PROG. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:d:n:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_count(optarg, MAX_WORKERS, &v))
				bad_usage("-t wants 1..%d, not '%s'", MAX_WORKERS, optarg);
			opt.workers = v;
			break;
		case 'd':
			if (parse_secs(optarg, &opt.secs))
				bad_usage("-d wants seconds > 0, not '%s'", optarg);
			break;
		case 'n':
			if (parse_count(optarg, UINT64_MAX, &v))
				bad_usage("-n wants a count > 0, not '%s'", optarg);
			opt.total_ops = v;
			break;
		case OPT_FORK:
			opt.fork = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			bad_usage("-%c needs an argument", optopt);
		default:
			if (optopt == OPT_FORK)
				bad_usage("--fork takes no argument");
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
static uint64_t quota_of(unsigned int id)
{
	if (!opt.total_ops)
		return UINT64_MAX;
	return opt.total_ops / opt.workers + (id < opt.total_ops % opt.workers);
}

/* Report ready, then block until main closes the go pipe. */
static void wait_for_go(void)
{
	char c = 0;
	ssize_t r;

	do
		r = write(ready_pipe[1], &c, 1);
	while (r < 0 && errno == EINTR);
	/* A process must drop its copy, or main never sees EOF if a sibling dies. */
	if (opt.fork)
		close(ready_pipe[1]);
	do
		r = read(go_pipe[0], &c, 1);
	while (r < 0 && errno == EINTR);
}

static void fail(struct slot *s, const char *what)
{
	s->what = what;
	s->err = errno;
	ctl->stop = 1;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;
	int src, fd;

	src = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (src < 0)
		fail(s, "open /dev/null");
	wait_for_go();
	/* Count locally: a shared counter would add its own contention. */
	while (src >= 0 && ops < quota && !ctl->stop) {
		fd = dup(src);
		if (fd < 0) {
			fail(s, "dup");
			break;
		}
		if (close(fd)) {
			fail(s, "close");
			break;
		}
		ops++;
	}
	s->end = now();
	s->ops = ops;
	if (src >= 0)
		close(src);
}

static void *thread_main(void *arg)
{
	run_worker((unsigned int)(uintptr_t)arg);
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
	run_worker(id);
	_exit(ctl->slot[id].err ? 1 : 0);
}

/* Returns how many started; on a shortfall *err says why. */
static unsigned int spawn_all(const char **what, int *err)
{
	unsigned int i;

	for (i = 0; i < opt.workers; i++) {
		if (opt.fork) {
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

	while (!ctl->stop && (left = t0 + opt.secs - now()) > 0) {
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
		if (!opt.fork) {
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

static void report(double t0)
{
	uint64_t ops = 0, rate = 0;
	double end = t0, secs;
	unsigned int i;

	for (i = 0; i < opt.workers; i++) {
		ops += ctl->slot[i].ops;
		if (ctl->slot[i].end > end)
			end = ctl->slot[i].end;
	}
	secs = end - t0;
	if (secs > 0)
		rate = ops / secs + 0.5;
	if (opt.quiet)
		printf("%" PRIu64 "\n", rate);
	else
		printf(PROG ": mode=%s workers=%u ops=%" PRIu64 " secs=%.3f ops/s=%" PRIu64 "\n",
		       opt.fork ? "processes" : "threads", opt.workers, ops, secs, rate);
	if (fflush(stdout) == EOF)
		die("stdout: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	const char *what = NULL;
	unsigned int started, ready, i;
	bool reaped;
	int err = 0;
	double t0;

	parse_args(argc, argv);
	ctl = mmap(NULL, sizeof(*ctl) + opt.workers * sizeof(struct slot),
		   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	tids = calloc(opt.workers, sizeof(*tids));
	pids = calloc(opt.workers, sizeof(*pids));
	if (!tids || !pids)
		die("out of memory");
	if (pipe2(ready_pipe, O_CLOEXEC) || pipe2(go_pipe, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	install_signals();

	started = spawn_all(&what, &err);
	if (opt.fork)
		close(ready_pipe[1]);
	ready = wait_ready(started);
	if (started < opt.workers || ready < started)
		ctl->stop = 1;
	t0 = now();
	close(go_pipe[1]);
	if (!opt.total_ops)
		wait_deadline(t0);
	reaped = reap_all(started);

	if (started < opt.workers)
		die("%s: %s", what, strerror(err));
	if (!reaped || ready < started)
		die("a worker process died");
	for (i = 0; i < opt.workers; i++)
		if (ctl->slot[i].err)
			die("%s: %s", ctl->slot[i].what, strerror(ctl->slot[i].err));
	report(t0);
	return 0;
}
