// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * seekstorm: hammer one kernel mutex, a shared file's f_pos_lock, from
 * many threads at once.
 *
 * Threads of one process share one fd table, so an fd they all use refers
 * to one struct file, and every read() or lseek() on it takes that file's
 * position lock (fdget_pos()), a kernel mutex: an op reads -s KiB from
 * the page cache, holding it for the copy, and seeks back. Contended,
 * a waiter first spins on the owner (contention_begin with MUTEX|SPIN),
 * gives up when the owner sleeps or its CPU is wanted (and may then be
 * scheduled away in the middle of the spin), sleeps (MUTEX), and, woken
 * first in line, spins again (MUTEX|SPIN): with more threads than CPUs
 * every path of the mutex slow path is taken, all the time. That is what
 * the tests of lockstat's mutex wait accounting need.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   seekstorm: workers=4 ops=1234567 secs=3.001 ops/s=411234
 * or with -q the ops/s integer alone.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PROG		"seekstorm"

#include "workload.h"

#define MAX_KIB		1024

static int shared_fd = -1;
static size_t read_len = 16 * 1024;

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [-s KIB] [-q] [-h]\n"
	      "Contend on a kernel mutex, one open file's f_pos_lock, with threads\n"
	      "that read() and lseek() the same fd.\n"
	      "  -t N      worker threads (default 2; more than the CPUs to make\n"
	      "            waiters sleep, and spin again once woken)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS read+lseek pairs in total, split evenly\n"
	      "            across threads; wins over -d\n"
	      "  -s KIB    KiB read by each op, the lock held meanwhile (default 16;\n"
	      "            0: lseek() alone)\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": workers=N ops=N secs=S.SSS ops/s=N\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	unsigned long long kib;

	if (c != 's')
		return false;
	if (parse_count(optarg, MAX_KIB, &kib))
		bad_usage("-s wants KiB from 0 to %d, got '%s'", MAX_KIB, optarg);
	read_len = kib * 1024;
	return true;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;
	char *buf = malloc(read_len ? read_len : 1);

	if (!buf)
		fail(s, "malloc");
	wait_for_go();
	/* Count locally: a shared counter would add its own contention. */
	while (buf && ops < quota && !ctl->stop) {
		if (read_len && read(shared_fd, buf, read_len) < 0) {
			fail(s, "read");
			break;
		}
		if (lseek(shared_fd, 0, SEEK_SET) < 0) {
			fail(s, "lseek");
			break;
		}
		ops++;
	}
	record(s, ops);
	free(buf);
}

/*
 * An unnamed regular file of read_len bytes, in the page cache: read()
 * and lseek() on it take f_pos_lock (FMODE_ATOMIC_POS).
 */
static int open_shared_file(void)
{
	char path[] = "/tmp/seekstorm.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, read_len)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double t0;

	wl_parse_args(argc, argv, WL_SHORTOPTS "s:", longopts, own_opt);
	if (wl.fork)
		bad_usage("workers must be threads: processes do not share the file's position");
	shared_fd = open_shared_file();
	if (shared_fd < 0)
		die("cannot create a file in /tmp: %s", strerror(errno));
	t0 = wl_run(run_worker, false);
	wl_report(t0, "");
	return 0;
}
