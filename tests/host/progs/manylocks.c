// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * manylocks: one contended wait on each of N pthread mutexes, one after
 * the other.
 *
 * The main thread locks mutex i, lets the other thread go, and holds the
 * mutex until that thread is asleep in the kernel on it (its state in
 * /proc), then unlocks: every mutex is waited on once, through a futex,
 * by the same thread, from the same stack. A user-lock table keyed by
 * lock word and process so gets N rows from one process: the host tests
 * run it a few times to fill the ulocks family's tables, to check that
 * they are trimmed as they fill.
 * Usage: manylocks N (prints "waits=N" when done)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static pthread_mutex_t *locks;
static atomic_int turn = -1;		/* the mutex the waiter is to take next */
static atomic_int done = -1;		/* the last one it took */
static atomic_int waiter_tid;

/* Is thread tid asleep ('S' in /proc/self/task/TID/stat)? */
static int asleep(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int sleeping = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		sleeping = p && p[1] == ' ' && p[2] == 'S';
	}
	fclose(f);
	return sleeping;
}

static void *waiter(void *arg)
{
	int n = *(int *)arg, i;

	atomic_store(&waiter_tid, (int)syscall(SYS_gettid));
	for (i = 0; i < n; i++) {
		while (atomic_load(&turn) != i)
			;
		pthread_mutex_lock(&locks[i]);
		pthread_mutex_unlock(&locks[i]);
		atomic_store(&done, i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, i;
	pthread_t t;

	if (n < 1) {
		fprintf(stderr, "usage: manylocks N (N >= 1)\n");
		return 2;
	}
	locks = calloc(n, sizeof(*locks));
	if (!locks)
		return 1;
	for (i = 0; i < n; i++)
		pthread_mutex_init(&locks[i], NULL);
	if (pthread_create(&t, NULL, waiter, &n))
		return 1;
	while (!atomic_load(&waiter_tid))
		;
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&locks[i]);
		atomic_store(&turn, i);
		/* It spins to the lock, then sleeps on the futex. */
		while (!asleep(atomic_load(&waiter_tid)))
			usleep(20);
		pthread_mutex_unlock(&locks[i]);
		while (atomic_load(&done) != i)
			;
	}
	pthread_join(t, NULL);
	printf("waits=%d\n", n);
	return 0;
}
