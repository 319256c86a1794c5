// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttylock: kernel mutex waits that start and end when a test says so.
 *
 * A write(2) to a tty holds the tty's atomic_write_lock, a kernel mutex,
 * for as long as it lasts, and a write to a pty whose output is stopped
 * (tcflow(TCOOFF)) lasts until the output restarts. So one thread that
 * writes holds the mutex for as long as we like, and each further writer
 * sleeps in mutex_lock on it: waits whose begin and end the test places
 * before, during or after a recording. Commands, one a line on stdin:
 *   hold     stop the output; a thread writes and blocks, holding the mutex
 *   wait N   N more writer threads, each waiting for the mutex
 *   waitv N  the same, through writev(2): waits of another kernel stack
 *   release  restart the output: every write completes, one after another
 *   quit     exit
 * After each command, once every writer is asleep in write(2) (or, after
 * release, done), one line on stdout: "hold", "wait N", "waitv N", "release".
 * Built and run by the host tests (tests/host/t0035-lost.sh, ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#define MAX_WRITERS	256

static int master, slave;
static pthread_t writers[MAX_WRITERS];
static pid_t tids[MAX_WRITERS];
static int by_writev[MAX_WRITERS];
static volatile int nwriters, nstarted, ndone;

static void die(const char *what)
{
	fprintf(stderr, "ttylock: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *writer(void *arg)
{
	static char line[] = "ttylock\n";
	struct iovec iov = { line, sizeof(line) - 1 };
	long i = (long)arg;

	tids[i] = syscall(SYS_gettid);
	__atomic_add_fetch(&nstarted, 1, __ATOMIC_SEQ_CST);
	if ((by_writev[i] ? writev(slave, &iov, 1) : write(slave, line, sizeof(line) - 1)) < 0)
		die("write to the pty");
	__atomic_add_fetch(&ndone, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Whatever the writers put through, read away so that none blocks on a full pty. */
static void *drain(void *arg)
{
	char buf[4096];

	(void)arg;
	while (read(master, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

/* Thread TID sleeps inside write(2) or writev(2): state S in its stat, the call in its syscall. */
static int asleep_in_write(pid_t tid, int vec)
{
	char path[64], buf[512], *p;
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || p[1] != ' ' || p[2] != 'S')
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == (vec ? SYS_writev : SYS_write);
}

/* Start n more writers, then wait until each of them is asleep in write (writev). */
static void start_writers(int n, int vec)
{
	int i, first = nwriters, asleep;

	if (first + n > MAX_WRITERS)
		n = MAX_WRITERS - first;
	for (i = first; i < first + n; i++) {
		by_writev[i] = vec;
		errno = pthread_create(&writers[i], NULL, writer, (void *)(long)i);
		if (errno)
			die("pthread_create");
	}
	nwriters = first + n;
	do {
		usleep(10000);
		asleep = 0;
		if (__atomic_load_n(&nstarted, __ATOMIC_SEQ_CST) == nwriters)
			for (i = first; i < nwriters; i++)
				asleep += asleep_in_write(tids[i], vec);
	} while (asleep < n);
}

static void release(void)
{
	if (tcflow(slave, TCOON))
		die("tcflow TCOON");
	while (__atomic_load_n(&ndone, __ATOMIC_SEQ_CST) < nwriters)
		usleep(10000);
}

int main(void)
{
	char cmd[64];
	pthread_t t;
	int n;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		die("posix_openpt");
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0)
		die("open the pty's slave");
	errno = pthread_create(&t, NULL, drain, NULL);
	if (errno)
		die("pthread_create");
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(cmd, sizeof(cmd), stdin)) {
		if (!strcmp(cmd, "hold\n")) {
			if (tcflow(slave, TCOOFF))
				die("tcflow TCOOFF");
			start_writers(1, 0);
			printf("hold\n");
		} else if (sscanf(cmd, "wait %d", &n) == 1 && n > 0) {
			start_writers(n, 0);
			printf("wait %d\n", n);
		} else if (sscanf(cmd, "waitv %d", &n) == 1 && n > 0) {
			start_writers(n, 1);
			printf("waitv %d\n", n);
		} else if (!strcmp(cmd, "release\n")) {
			release();
			printf("release\n");
		} else if (!strcmp(cmd, "quit\n")) {
			break;
		} else {
			fprintf(stderr, "ttylock: unknown command: %s", cmd);
			return 2;
		}
	}
	return 0;
}
