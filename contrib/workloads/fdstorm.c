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
 *   fdstorm: mode=threads overlap=97.0% workers=2 ops=1234567 secs=3.001 ops/s=411234
 * or with -q the ops/s integer alone.  overlap= (2 workers or more) is how
 * much of the run the workers ran at once (workload.h, wl_beat()): with
 * threads, file_lock contention needs it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define PROG		"fdstorm"
#define OPT_FORK	256	/* long-only: no char value a short option has */
/* 16 ops, a few microseconds: a time slice rarely falls inside a batch. */
#define WL_BEAT_OPS	16

#include "workload.h"

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [--fork] [-q] [-h]\n"
	      "Contend on the kernel's files_struct.file_lock with dup()+close() loops.\n"
	      "  -t N      workers (default 2)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS dup+close pairs in total, split evenly\n"
	      "            across workers; wins over -d\n"
	      "  --fork    workers are processes, each with its own fd table\n"
	      "            (the contrast case); default is threads sharing one\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": mode=threads|processes [overlap=P.P%] workers=N ops=N secs=S.SSS ops/s=N\n"
	      "overlap: the share of the run the workers ran at once (2 workers or more)\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	if (c != OPT_FORK)
		return false;
	wl.fork = true;
	return true;
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
		wl_beat(id, ops);
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
	record(s, ops);
	if (src >= 0)
		close(src);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fork", no_argument, NULL, OPT_FORK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double t0;

	wl_parse_args(argc, argv, WL_SHORTOPTS, longopts, own_opt);
	/* MAP_SHARED control block: --fork children report through it. */
	t0 = wl_run(run_worker, true);
	wl_report(t0, wl.fork ? "mode=processes " : "mode=threads ");
	return 0;
}
