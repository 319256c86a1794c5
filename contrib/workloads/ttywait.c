// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttywait: kernel mutex waits of a known number, length and outcome.
 *
 * A write(2) to a tty holds the tty's write mutex (atomic_write_lock) for
 * as long as it lasts, and a write to a pty whose output is stopped
 * (tcflow(TCOOFF)) lasts until the output restarts. So one writer holds
 * the mutex for -d seconds, and each of -t more writer threads sleeps in
 * mutex_lock_interruptible() on it: -t waits, each as long as the hold.
 * With -i each waiter is then sent a signal instead (its handler does
 * nothing, without SA_RESTART), which ends its wait without the mutex:
 * contention_end with -EINTR, and write(2) fails with EINTR. -s delays
 * it all, for a recording (record -p) to attach before the waits begin.
 *
 * Output is a contract (tests parse it): one line on stdout,
 *   ttywait: interrupted=K workers=N ops=N secs=S.SSS ops/s=N
 * where ops are the waits that ended (interrupted or not), or with -q
 * the number of interrupted waits alone.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#define PROG		"ttywait"

#include "workload.h"

static struct {
	bool interrupt;
	double delay;
	int master, slave;
	pid_t *tid;		/* of each waiter; [0] is the holder */
	volatile int started;
	volatile int interrupted;
	volatile int done;
} tw = { .master = -1, .slave = -1 };

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-i] [-s SECS] [-q] [-h]\n"
	      "Kernel mutex waits on a tty's write mutex: one thread holds it (a\n"
	      "write to a pty whose output is stopped), N more wait for it.\n"
	      "  -t N      waiting threads (default 2)\n"
	      "  -d SECS   how long the mutex is held, fractions allowed (default 3)\n"
	      "  -i        end each wait with a signal once all wait: EINTR\n"
	      "  -s SECS   sleep this long first (default 0)\n"
	      "  -q        print only the number of interrupted waits\n"
	      "  -h        show this help\n"
	      "Prints one line on stdout:\n"
	      "  " PROG ": interrupted=K workers=N ops=N secs=S.SSS ops/s=N\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	if (c == 'i')
		tw.interrupt = true;
	else if (c == 's' && parse_secs(optarg, &tw.delay))
		bad_usage("-s wants seconds > 0, not '%s'", optarg);
	return c == 'i' || c == 's';
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void *writer(void *arg)
{
	static const char line[] = "ttywait\n";

	tw.tid[(long)arg] = syscall(SYS_gettid);
	__atomic_add_fetch(&tw.started, 1, __ATOMIC_SEQ_CST);
	if (write(tw.slave, line, sizeof(line) - 1) < 0) {
		if (errno != EINTR)
			die("write to the pty: %s", strerror(errno));
		__atomic_add_fetch(&tw.interrupted, 1, __ATOMIC_SEQ_CST);
	}
	__atomic_add_fetch(&tw.done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Whatever the writers put through, read away so that none blocks on a full pty. */
static void *drain(void *arg)
{
	char buf[4096];

	(void)arg;
	while (read(tw.master, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

/* Thread tid sleeps inside write(2): state S, syscall write. */
static bool asleep_in_write(pid_t tid)
{
	char path[64], buf[512], *p;
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || p[1] != ' ' || p[2] != 'S')
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_write;
}

/* Start threads [from, to) and wait until each sleeps in write(2). */
static void start_writers(pthread_t *th, int from, int to)
{
	int i, asleep;

	for (i = from; i < to; i++) {
		errno = pthread_create(&th[i], NULL, writer, (void *)(long)i);
		if (errno)
			die("pthread_create: %s", strerror(errno));
	}
	do {
		usleep(10000);
		asleep = 0;
		if (__atomic_load_n(&tw.started, __ATOMIC_SEQ_CST) == to)
			for (i = from; i < to; i++)
				asleep += asleep_in_write(tw.tid[i]);
	} while (asleep < to - from);
}

static void open_pty(void)
{
	pthread_t t;

	tw.master = posix_openpt(O_RDWR | O_NOCTTY);
	if (tw.master < 0 || grantpt(tw.master) || unlockpt(tw.master))
		die("posix_openpt: %s", strerror(errno));
	tw.slave = open(ptsname(tw.master), O_RDWR | O_NOCTTY);
	if (tw.slave < 0)
		die("open the pty's slave: %s", strerror(errno));
	errno = pthread_create(&t, NULL, drain, NULL);
	if (errno)
		die("pthread_create: %s", strerror(errno));
	if (tcflow(tw.slave, TCOOFF))
		die("tcflow TCOOFF: %s", strerror(errno));
}

static void signal_waiters(pthread_t *th, int n)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	int i;

	if (sigaction(SIGUSR1, &sa, NULL))
		die("sigaction: %s", strerror(errno));
	for (i = 1; i <= n; i++)
		pthread_kill(th[i], SIGUSR1);
	while (__atomic_load_n(&tw.done, __ATOMIC_SEQ_CST) < n)
		usleep(1000);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int n, i;
	pthread_t *th;
	double t0, secs;

	wl_catch_early_stop();
	wl_parse_args(argc, argv, WL_SHORTOPTS "is:", longopts, own_opt);
	if (wl.total_ops || wl.fork)
		bad_usage("-n and --fork do not apply: each waiter waits once, as a thread");
	n = wl.workers;
	th = calloc(n + 1, sizeof(*th));
	tw.tid = calloc(n + 1, sizeof(*tw.tid));
	if (!th || !tw.tid)
		die("out of memory");
	open_pty();
	t0 = now();
	while (!wl_early_stop && now() - t0 < tw.delay)
		usleep(10000);
	t0 = now();
	start_writers(th, 0, 1);	/* the holder */
	start_writers(th, 1, n + 1);
	if (tw.interrupt)
		signal_waiters(th, n);
	while (!wl_early_stop && now() - t0 < wl.secs)
		usleep(10000);
	if (tcflow(tw.slave, TCOON))
		die("tcflow TCOON: %s", strerror(errno));
	for (i = 0; i <= n; i++)
		pthread_join(th[i], NULL);
	secs = now() - t0;
	if (wl.quiet)
		printf("%d\n", tw.interrupted);
	else
		printf(PROG ": interrupted=%d workers=%d ops=%d secs=%.3f ops/s=%.0f\n", tw.interrupted, n, n,
		       secs, n / secs);
	return 0;
}
