// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mmapstorm: hammer one mm's mmap_lock from many threads at once.
 *
 * Threads of one process share one mm_struct.  Each op maps a private
 * anonymous region, writes one byte per page and unmaps it.  mmap() and
 * munmap() take mmap_lock for write.  Page faults take it for read on
 * kernels without per-VMA locks.  With per-VMA locks they still do it
 * often here: the threads' mappings sit side by side and merge into
 * shared VMAs, so a neighbour's mmap()/munmap() keeps the faulting VMA
 * write-locked and the fault retries under mmap_lock (on 6.18, 2 threads:
 * ~17k read waits/s in lock_mm_and_find_vma against ~3k write waits/s in
 * vm_mmap_pgoff and __vm_munmap).  That already gives both read and write
 * waits, so no thread does mprotect() or madvise(MADV_DONTNEED) as well:
 * tried, they lowered ops/s without adding much mmap_lock contention.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   mmapstorm: workers=2 ops=123456 secs=3.001 ops/s=41152
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
#include <time.h>
#include <unistd.h>

#define PROG		"mmapstorm"
#define CACHELINE	64
#define MAX_WORKERS	4096
#define MAX_SECS	(365.0 * 24 * 3600)
#define MAX_KIB		(1024 * 1024)
#define POLL_SECS	0.01	/* how late main may notice a stop */

/* Written once by its worker when the loop ends; one cache line each. */
struct slot {
	uint64_t ops;
	double end;		/* CLOCK_MONOTONIC seconds at loop exit */
	const char *what;	/* failing call */
	int err;		/* its errno, 0 if none */
} __attribute__((aligned(CACHELINE)));

struct ctl {
	volatile sig_atomic_t stop __attribute__((aligned(CACHELINE)));
	struct slot slot[];
};

static struct {
	unsigned int workers;
	double secs;
	uint64_t total_ops;	/* 0: run for secs instead */
	size_t len;		/* bytes per mapping, whole pages */
	size_t page;
	bool quiet;
} opt = {
	.workers = 2,
	.secs = 3,
	.len = 64 * 1024,
};

static struct ctl *ctl;
static int ready_pipe[2];	/* each worker writes one byte when set up */
static int go_pipe[2];		/* main closes the write end to start all */
static pthread_t *tids;

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [-s KIB] [-q] [-h]\n"
	      "Contend on the kernel's mm_struct.mmap_lock with threads that mmap,\n"
	      "touch and munmap anonymous memory.\n"
	      "  -t N      worker threads (default 2)\n"
	      "  -d SECS   run for SECS seconds, fractions allowed (default 3)\n"
	      "  -n OPS    run until OPS map+touch+unmap rounds in total, split\n"
	      "            evenly across threads; wins over -d\n"
	      "  -s KIB    size of each mapping in KiB, rounded up to whole pages\n"
	      "            (default 64)\n"
	      "  -q        print only the ops/s integer\n"
	      "  -h        show this help\n"
	      "Prints one line on stdout:\n"
	      "  " PROG ": workers=N ops=N secs=S.SSS ops/s=N\n"
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c;

	/* Quiet getopt: its messages carry argv[0], ours say PROG. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:d:n:s:qh", longopts, NULL)) != -1) {
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
		case 's':
			if (parse_count(optarg, MAX_KIB, &v))
				bad_usage("-s wants 1..%d KiB, not '%s'", MAX_KIB, optarg);
			opt.len = v * 1024;
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

/* One op: map (write lock), fault every page in, unmap (write lock). */
static int map_touch_unmap(struct slot *s)
{
	volatile char *p;
	size_t off;

	p = mmap(NULL, opt.len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail(s, "mmap");
		return -1;
	}
	/* A write, not a read: a read would just map the shared zero page. */
	for (off = 0; off < opt.len; off += opt.page)
		p[off] = 1;
	if (munmap((void *)p, opt.len)) {
		fail(s, "munmap");
		return -1;
	}
	return 0;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;

	wait_for_go();
	/* Count locally: a shared counter would add its own contention. */
	while (ops < quota && !ctl->stop) {
		if (map_touch_unmap(s))
			break;
		ops++;
	}
	s->end = now();
	s->ops = ops;
}

static void *thread_main(void *arg)
{
	run_worker((unsigned int)(uintptr_t)arg);
	return NULL;
}

/* Returns how many started; on a shortfall *err says why. */
static unsigned int spawn_all(int *err)
{
	unsigned int i;

	for (i = 0; i < opt.workers; i++) {
		*err = pthread_create(&tids[i], NULL, thread_main,
				      (void *)(uintptr_t)i);
		if (*err)
			break;
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

/* Sleep in short slices so a signal caught by any thread ends the wait. */
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
		printf(PROG ": workers=%u ops=%" PRIu64 " secs=%.3f ops/s=%" PRIu64 "\n",
		       opt.workers, ops, secs, rate);
	if (fflush(stdout) == EOF)
		die("stdout: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	unsigned int started, i;
	int err = 0;
	double t0;

	parse_args(argc, argv);
	opt.page = sysconf(_SC_PAGESIZE);
	opt.len = (opt.len + opt.page - 1) / opt.page * opt.page;
	/* mmap() is page aligned, so the slots get their cache lines. */
	ctl = mmap(NULL, sizeof(*ctl) + opt.workers * sizeof(struct slot),
		   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	tids = calloc(opt.workers, sizeof(*tids));
	if (!tids)
		die("out of memory");
	if (pipe2(ready_pipe, O_CLOEXEC) || pipe2(go_pipe, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	install_signals();

	started = spawn_all(&err);
	/* Threads cannot die alone, so all that started will report. */
	wait_ready(started);
	if (started < opt.workers)
		ctl->stop = 1;
	t0 = now();
	close(go_pipe[1]);
	if (!opt.total_ops)
		wait_deadline(t0);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);

	if (started < opt.workers)
		die("pthread_create: %s", strerror(err));
	for (i = 0; i < opt.workers; i++)
		if (ctl->slot[i].err)
			die("%s: %s", ctl->slot[i].what, strerror(ctl->slot[i].err));
	report(t0);
	return 0;
}
