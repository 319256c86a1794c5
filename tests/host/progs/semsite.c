// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * semsite: per-thread semaphores waited on from one wait site, and one
 * semaphore shared by several threads.
 *
 * N worker threads each wait R times on their own sem_t, through
 * await_turn (the wait site) and semaphore_wait (a wrapper of sem_wait,
 * as PostgreSQL's PGSemaphoreLock wraps its backends' semaphores); S
 * shared threads wait R times on one sem_t from shared_wait. The main
 * thread posts them all once a round, a millisecond after the round
 * began, so that every wait sleeps in the kernel on its futex word.
 * Usage: semsite [N [S [R]]] (prints "waits=N" when done)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS	32

static sem_t own_sem[MAX_THREADS];
static sem_t shared_sem;
static int rounds = 20;

static void __attribute__((noinline)) semaphore_wait(sem_t *s)
{
	while (sem_wait(s))
		;
	__asm__ volatile("" ::: "memory");	/* no tail call: the frame stays */
}

static void __attribute__((noinline)) await_turn(sem_t *s)
{
	semaphore_wait(s);
	__asm__ volatile("" ::: "memory");
}

static void *worker_main(void *arg)
{
	sem_t *s = arg;
	int i;

	for (i = 0; i < rounds; i++)
		await_turn(s);
	return NULL;
}

static void __attribute__((noinline)) shared_wait(void)
{
	while (sem_wait(&shared_sem))
		;
	__asm__ volatile("" ::: "memory");
}

static void *shared_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < rounds; i++)
		shared_wait();
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, s = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t th[2 * MAX_THREADS];
	int i, r;

	if (argc > 3)
		rounds = atoi(argv[3]);
	if (n < 1 || n > MAX_THREADS || s < 2 || s > MAX_THREADS || rounds < 1) {
		fprintf(stderr, "usage: semsite [N 1-%d [S 2-%d [R]]]\n", MAX_THREADS, MAX_THREADS);
		return 2;
	}
	sem_init(&shared_sem, 0, 0);
	for (i = 0; i < n; i++) {
		sem_init(&own_sem[i], 0, 0);
		pthread_create(&th[i], NULL, worker_main, &own_sem[i]);
	}
	for (i = 0; i < s; i++)
		pthread_create(&th[n + i], NULL, shared_main, NULL);
	for (r = 0; r < rounds; r++) {
		sleep_ms(2);	/* every waiter asleep on its futex */
		for (i = 0; i < n; i++)
			sem_post(&own_sem[i]);
		for (i = 0; i < s; i++)
			sem_post(&shared_sem);
	}
	for (i = 0; i < n + s; i++)
		pthread_join(th[i], NULL);
	printf("waits=%d\n", (n + s) * rounds);
	return 0;
}
