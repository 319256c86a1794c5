// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * forkreuse: forked children (no exec) that burn CPU briefly and exit,
 * then more children under the PIDs of the first ones.
 *
 * First N children each spin MS milliseconds in first_burn(); after a
 * pause of PAUSE_MS, one child per PID of the first M spins 2 * MS in
 * second_burn(), each forked right after /proc/sys/kernel/ns_last_pid is
 * set to that PID less one, so that it gets the PID again (unless
 * another process forks in between). A child that does not exec has no
 * mapping of its own for a profiler to be told of: its mappings can only
 * be read from /proc while it lives. Prints "reused R of M" on stderr.
 * Usage: forkreuse N M MS PAUSE_MS (needs root for ns_last_pid)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void __attribute__((noinline)) spin_until(uint64_t end)
{
	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

static void __attribute__((noinline)) first_burn(long ms)
{
	spin_until(now_ns() + ms * 1000000ULL);
}

static void __attribute__((noinline)) second_burn(long ms)
{
	spin_until(now_ns() + ms * 1000000ULL);
}

/* A child running fn(ms); its PID, or -1. */
static pid_t child(void (*fn)(long), long ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(ms);
		_exit(0);
	}
	return pid;
}

static int set_last_pid(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%d", (int)pid) > 0;
	return fclose(f) || !ok ? -1 : 0;
}

int main(int argc, char **argv)
{
	long n, m, ms, pause_ms, i, reused = 0;
	pid_t *pids, p;

	if (argc != 5 || (n = atol(argv[1])) < 1 || (m = atol(argv[2])) < 0 || m > n ||
	    (ms = atol(argv[3])) < 1 || (pause_ms = atol(argv[4])) < 0) {
		fprintf(stderr, "usage: forkreuse N M MS PAUSE_MS (M <= N)\n");
		return 2;
	}
	pids = calloc(n, sizeof(*pids));
	if (!pids)
		return 1;
	for (i = 0; i < n; i++) {
		pids[i] = child(first_burn, ms);
		if (pids[i] < 0 || waitpid(pids[i], NULL, 0) != pids[i]) {
			perror("forkreuse: fork");
			return 1;
		}
	}
	usleep(pause_ms * 1000);
	for (i = 0; i < m; i++) {
		if (set_last_pid(pids[i] - 1)) {
			perror("forkreuse: /proc/sys/kernel/ns_last_pid");
			return 1;
		}
		p = child(second_burn, 2 * ms);
		if (p < 0 || waitpid(p, NULL, 0) != p) {
			perror("forkreuse: fork");
			return 1;
		}
		reused += p == pids[i];
	}
	fprintf(stderr, "reused %ld of %ld\n", reused, m);
	free(pids);
	return 0;
}
