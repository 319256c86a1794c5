// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mutexstorm: threads contending on pthread mutexes, the user-space
 * counterpart of fdstorm.
 *
 * One op is lock, a critical section of -H nanoseconds (a busy wait on
 * the clock, or one increment with -H 0), unlock. The first mutex is the
 * global storm_lock, so a profile can name it by its symbol; with -m N
 * the other N-1 live on the heap, each on its own cache line, and are
 * named by address and caller. Worker i takes mutex (i + op) % N.
 *
 * --cond passes a token around the workers under storm_lock: each waits
 * on the condition variable storm_cond for its turn, does the op and
 * wakes the others. Nearly all the waiting is then on the condition
 * variable, which a lock profiler must not count as mutex contention.
 *
 * Every call to the locking functions is in storm_op() or storm_turn(),
 * never inlined, so the profile shows them as the callers.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   mutexstorm: mode=mutex mutexes=1 hold_ns=0 workers=2 ops=1234567 secs=3.001 ops/s=411234
 * or with -q the ops/s integer alone.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROG		"mutexstorm"
#define OPT_COND	256	/* long-only: no char value a short option has */
#define MAX_MUTEXES	4096
#define MAX_HOLD_NS	1000000000ULL

#include "workload.h"

/* Not static: their symbols stay in .symtab for the profile to name them. */
pthread_mutex_t storm_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t storm_cond = PTHREAD_COND_INITIALIZER;

struct padded_mutex {
	pthread_mutex_t m;
} __attribute__((aligned(CACHELINE)));

static struct {
	unsigned int mutexes;
	uint64_t hold_ns;
	bool cond;
} ms = {
	.mutexes = 1,
};

static pthread_mutex_t **locks;		/* [0] is storm_lock */
static volatile uint64_t guarded;	/* what the locks protect */
/* --cond: whose turn it is, and turns taken, both under storm_lock. */
static unsigned int turn;
static uint64_t turns;

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [-m N] [-H NS] [--cond] [-q] [-h]\n"
	      "Contend on pthread mutexes: lock, hold, unlock, in a loop.\n"
	      "  -t N      workers (default 2)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS lock/unlock pairs in total; wins over -d\n"
	      "  -m N      mutexes (default 1): the global storm_lock, then N-1 on\n"
	      "            the heap; worker i takes mutex (i + op) % N\n"
	      "  -H NS     hold each lock NS nanoseconds, busy (default 0: one\n"
	      "            increment)\n"
	      "  --cond    pass a turn around the workers with the condition\n"
	      "            variable storm_cond under storm_lock (-m is ignored)\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": mode=mutex|cond mutexes=N hold_ns=NS workers=N ops=N secs=S.SSS ops/s=N\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	unsigned long long v;

	switch (c) {
	case 'm':
		if (parse_count(optarg, MAX_MUTEXES, &v))
			bad_usage("-m wants 1..%d, not '%s'", MAX_MUTEXES, optarg);
		ms.mutexes = v;
		return true;
	case 'H':
		/* 0 is a valid hold; parse_count() refuses it. */
		if (!strcmp(optarg, "0"))
			v = 0;
		else if (parse_count(optarg, MAX_HOLD_NS, &v))
			bad_usage("-H wants 0..%llu nanoseconds, not '%s'", MAX_HOLD_NS, optarg);
		ms.hold_ns = v;
		return true;
	case OPT_COND:
		ms.cond = true;
		return true;
	default:
		return false;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The critical section: the guarded counter, then the hold. */
static void hold(void)
{
	uint64_t until;

	guarded++;
	if (!ms.hold_ns)
		return;
	until = now_ns() + ms.hold_ns;
	while (now_ns() < until)
		;
}

static __attribute__((noinline)) int storm_op(pthread_mutex_t *m)
{
	int err = pthread_mutex_lock(m);

	if (err)
		return err;
	hold();
	return pthread_mutex_unlock(m);
}

/*
 * Wait for our turn, take it, pass it on; false once the run is over.
 * Whoever holds the turn when the run stops wakes everyone, so no worker
 * is left waiting.
 */
static __attribute__((noinline)) bool storm_turn(unsigned int id)
{
	bool go;

	pthread_mutex_lock(&storm_lock);
	while (turn != id && !ctl->stop)
		pthread_cond_wait(&storm_cond, &storm_lock);
	go = !ctl->stop;
	if (go) {
		hold();
		turn = (turn + 1) % wl.workers;
		if (wl.total_ops && ++turns >= wl.total_ops)
			ctl->stop = 1;
	}
	pthread_cond_broadcast(&storm_cond);
	pthread_mutex_unlock(&storm_lock);
	return go;
}

static void run_cond_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t ops = 0;

	wait_for_go();
	while (storm_turn(id))
		ops++;
	record(s, ops);
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;
	int err;

	wait_for_go();
	while (ops < quota && !ctl->stop) {
		err = storm_op(locks[(id + ops) % ms.mutexes]);
		if (err) {
			errno = err;
			fail(s, "pthread_mutex_lock");
			break;
		}
		ops++;
	}
	record(s, ops);
}

static void make_locks(void)
{
	struct padded_mutex *heap = NULL;
	unsigned int i;

	locks = calloc(ms.mutexes, sizeof(*locks));
	if (ms.mutexes > 1)
		heap = aligned_alloc(CACHELINE, (ms.mutexes - 1) * sizeof(*heap));
	if (!locks || (ms.mutexes > 1 && !heap))
		die("out of memory");
	locks[0] = &storm_lock;
	for (i = 1; i < ms.mutexes; i++) {
		pthread_mutex_init(&heap[i - 1].m, NULL);
		locks[i] = &heap[i - 1].m;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cond", no_argument, NULL, OPT_COND },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char fields[96];
	double t0;

	wl_parse_args(argc, argv, WL_SHORTOPTS "m:H:", longopts, own_opt);
	if (ms.cond)
		ms.mutexes = 1;
	make_locks();
	t0 = wl_run(ms.cond ? run_cond_worker : run_worker, false);
	snprintf(fields, sizeof(fields), "mode=%s mutexes=%u hold_ns=%llu ", ms.cond ? "cond" : "mutex",
		 ms.mutexes, (unsigned long long)ms.hold_ns);
	wl_report(t0, fields);
	return 0;
}
