// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucases: the user-side corner cases a profiler must get right, one mode
 * a run, each with a known answer the host tests check.
 *
 *   --nested     outer_lock is held while its holder waits -H ms for
 *                inner_lock: outer_lock's hold includes that wait.
 *   --timed      pthread_mutex_timedlock() on timed_lock, held -H ms at a
 *                time by another thread: contended acquisitions of a
 *                mutex, though the wait is a FUTEX_WAIT_BITSET.
 *   --cond       the holder of held_lock waits -H ms on a condition with
 *                cond_lock: held_lock stays held through the wait,
 *                cond_lock is let go for it.
 *   --churn N    a thread waits on churn_lock while N short threads each
 *                make one futex call and exit: its wait still counts.
 *   --dlopen     spins in libz's crc32() for -d seconds, unloads it, then
 *                in liblzma's lzma_crc64() as long: two libraries mapped
 *                after the first sample, maybe at the same address, both
 *                gone before the process exits.
 *   --libc       spins in the C library for -d seconds: qsort(), memset()
 *                and strlen() on buffers of its own.
 *
 * Every lock and spin is in a function of its own, never inlined, so
 * that a profile shows them as the callers. Prints one line on stdout:
 *   ucases: mode=nested rounds=N secs=S.SSS
 * Exit status 1: runtime error; 2: bad usage.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG	"ucases"

/* Not static: their symbols stay in .symtab for the profile to name them. */
pthread_mutex_t outer_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t inner_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t timed_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t churn_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;

enum mode { NONE, NESTED, TIMED, CHURN, DLOPEN, LIBC, COND };

static struct {
	enum mode mode;
	unsigned long rounds;	/* -n, or --churn's threads */
	unsigned long hold_ms;	/* -H */
	double secs;		/* -d */
} uc = { .rounds = 5, .hold_ms = 50, .secs = 1 };

static sem_t go;
static volatile unsigned int futex_word;

static void usage(FILE *f)
{
	fputs("usage: " PROG " --nested|--timed|--cond|--churn N|--dlopen|--libc [-n ROUNDS] [-H MS] [-d SECS]\n"
	      "The user-side cases of a lock profiler, one a run (see the source's head).\n"
	      "  -n ROUNDS  --nested and --timed: rounds (default 5)\n"
	      "  -H MS      --nested and --timed: how long a lock is held (default 50)\n"
	      "  -d SECS    --dlopen: seconds per library; --libc: seconds (default 1)\n",
	      f);
}

static void __attribute__((noreturn)) die(const char *what, int err)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(err));
	exit(1);
}

static void __attribute__((noreturn)) bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, fn, arg);

	if (err)
		die("pthread_create", err);
	return t;
}

/* Hold the lock -H ms a round, letting the other thread go at it each time. */
static void *hold_rounds(void *lock)
{
	unsigned long i;

	for (i = 0; i < uc.rounds; i++) {
		pthread_mutex_lock(lock);
		sem_post(&go);
		sleep_ms(uc.hold_ms);
		pthread_mutex_unlock(lock);
		sleep_ms(5);	/* the other thread takes it now */
	}
	return NULL;
}

/* --- nested: the hold of an outer lock includes the waits for inner ones --- */

static __attribute__((noinline)) void nested_round(void)
{
	pthread_mutex_lock(&outer_lock);
	pthread_mutex_lock(&inner_lock);	/* waits about -H ms */
	pthread_mutex_unlock(&inner_lock);
	pthread_mutex_unlock(&outer_lock);
}

static void run_nested(void)
{
	pthread_t t = start(hold_rounds, &inner_lock);
	unsigned long i;

	for (i = 0; i < uc.rounds; i++) {
		while (sem_wait(&go) && errno == EINTR)
			;
		nested_round();
	}
	pthread_join(t, NULL);
}

/* --- timed: a mutex taken with a timeout is still a mutex --- */

static __attribute__((noinline)) int timed_round(void)
{
	struct timespec until;
	int err;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	err = pthread_mutex_timedlock(&timed_lock, &until);
	if (!err)
		pthread_mutex_unlock(&timed_lock);
	return err;
}

static void run_timed(void)
{
	pthread_t t = start(hold_rounds, &timed_lock);
	unsigned long i;
	int err;

	for (i = 0; i < uc.rounds; i++) {
		while (sem_wait(&go) && errno == EINTR)
			;
		err = timed_round();
		if (err)
			die("pthread_mutex_timedlock", err);
	}
	pthread_join(t, NULL);
}

/* --- cond: a condition wait lets its own mutex go, not the others held --- */

static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool signalled;

/* -H ms after each round's wait begins, end it. */
static void *signal_rounds(void *arg)
{
	unsigned long i;

	(void)arg;
	for (i = 0; i < uc.rounds; i++) {
		while (sem_wait(&go) && errno == EINTR)
			;
		sleep_ms(uc.hold_ms);
		pthread_mutex_lock(&cond_lock);
		signalled = true;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&cond_lock);
	}
	return NULL;
}

static __attribute__((noinline)) void cond_round(void)
{
	pthread_mutex_lock(&held_lock);
	pthread_mutex_lock(&cond_lock);
	signalled = false;
	sem_post(&go);
	while (!signalled)
		pthread_cond_wait(&cond, &cond_lock);
	pthread_mutex_unlock(&cond_lock);
	pthread_mutex_unlock(&held_lock);
}

static void run_cond(void)
{
	pthread_t t = start(signal_rounds, NULL);
	unsigned long i;

	for (i = 0; i < uc.rounds; i++)
		cond_round();
	pthread_join(t, NULL);
}

/* --- churn: many threads come and go while one waits --- */

static __attribute__((noinline)) void *wait_churn(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&churn_lock);
	pthread_mutex_unlock(&churn_lock);
	return NULL;
}

/* One futex call (a wake nobody waits for), as any thread that locks anything makes. */
static void *one_futex_call(void *arg)
{
	(void)arg;
	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

static void run_churn(void)
{
	pthread_t waiter;
	unsigned long i;

	pthread_mutex_lock(&churn_lock);
	waiter = start(wait_churn, NULL);
	sleep_ms(100);	/* it waits in the kernel by now */
	for (i = 0; i < uc.rounds; i++)
		pthread_join(start(one_futex_call, NULL), NULL);
	pthread_mutex_unlock(&churn_lock);
	pthread_join(waiter, NULL);
}

/* --- dlopen: libraries mapped late and unmapped early --- */

typedef unsigned long (*crc_fn)(unsigned long, const unsigned char *, unsigned int);
typedef uint64_t (*crc64_fn)(const uint8_t *, size_t, uint64_t);

static unsigned char buf[1 << 16];

static void *open_lib(const char *soname, const char *sym, void **fn)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, PROG ": dlopen %s: %s\n", soname, dlerror());
		exit(1);
	}
	*fn = dlsym(h, sym);
	if (!*fn) {
		fprintf(stderr, PROG ": %s: no %s\n", soname, sym);
		exit(1);
	}
	return h;
}

static __attribute__((noinline)) unsigned long spin_zlib(double secs)
{
	void *fn, *h = open_lib("libz.so.1", "crc32", &fn);
	double until = now() + secs;
	unsigned long crc = 0;

	while (now() < until)
		crc = ((crc_fn)fn)(crc, buf, sizeof(buf));
	dlclose(h);
	return crc;
}

static __attribute__((noinline)) uint64_t spin_lzma(double secs)
{
	void *fn, *h = open_lib("liblzma.so.5", "lzma_crc64", &fn);
	double until = now() + secs;
	uint64_t crc = 0;

	while (now() < until)
		crc = ((crc64_fn)fn)(buf, sizeof(buf), crc);
	dlclose(h);
	return crc;
}

static void run_dlopen(void)
{
	unsigned long a = spin_zlib(uc.secs);
	uint64_t b = spin_lzma(uc.secs);

	futex_word = (unsigned int)(a ^ b);	/* keep the results */
}

/* --- libc: a program whose time goes into the C library --- */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static __attribute__((noinline)) size_t libc_round(int *v, size_t n)
{
	size_t i, len;

	for (i = 0; i < n; i++)
		v[i] = (int)((i * 2654435761u) % 100000);
	qsort(v, n, sizeof(*v), cmp_int);
	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	len = strlen((char *)buf);
	return len + (size_t)v[n / 2];
}

static void run_libc(void)
{
	static int v[4096];
	double until = now() + uc.secs;
	size_t sum = 0;

	while (now() < until)
		sum += libc_round(v, sizeof(v) / sizeof(v[0]));
	futex_word = (unsigned int)sum;
}

/* --- main --- */

static unsigned long parse_ulong(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end || !v || v > 1000000)
		bad_usage(what, s);
	return v;
}

static void set_mode(enum mode m)
{
	if (uc.mode != NONE)
		bad_usage("%s", "give one mode");
	uc.mode = m;
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "nested", no_argument, NULL, 'N' }, { "timed", no_argument, NULL, 'T' },
		{ "churn", required_argument, NULL, 'C' }, { "dlopen", no_argument, NULL, 'D' },
		{ "libc", no_argument, NULL, 'L' }, { "cond", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:H:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'N': set_mode(NESTED); break;
		case 'T': set_mode(TIMED); break;
		case 'C': set_mode(CHURN); uc.rounds = parse_ulong(optarg, "--churn wants 1..1000000, not '%s'"); break;
		case 'D': set_mode(DLOPEN); break;
		case 'L': set_mode(LIBC); break;
		case 'V': set_mode(COND); break;
		case 'n': uc.rounds = parse_ulong(optarg, "-n wants 1..1000000, not '%s'"); break;
		case 'H': uc.hold_ms = parse_ulong(optarg, "-H wants 1..1000000 ms, not '%s'"); break;
		case 'd':
			uc.secs = strtod(optarg, &end);
			if (*end || !(uc.secs > 0 && uc.secs < 3600))
				bad_usage("-d wants seconds, not '%s'", optarg);
			break;
		case 'h': usage(stdout); exit(0);
		default: bad_usage("unknown option or missing argument: %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (uc.mode == NONE)
		bad_usage("%s", "give a mode");
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "", "nested", "timed", "churn", "dlopen", "libc", "cond" };
	static void (*const run[])(void) = { NULL, run_nested, run_timed, run_churn, run_dlopen, run_libc,
					     run_cond };
	double t0;

	parse_args(argc, argv);
	if (sem_init(&go, 0, 0))
		die("sem_init", errno);
	t0 = now();
	run[uc.mode]();
	printf(PROG ": mode=%s rounds=%lu secs=%.3f\n", names[uc.mode], uc.rounds, now() - t0);
	return 0;
}
