// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * onefile: many threads hammer one file, each op through one lock of it.
 *
 *   --mode pos    read() through one fd all threads share, at the end of
 *                 the file: each read takes the struct file's f_pos_lock
 *                 (fdget_pos(), since the file is shared), a mutex
 *   --mode write  pwrite() of 4 KiB at offset 0, each thread through its
 *                 own fd: each write takes the inode's i_rwsem
 *
 * The file's layout is known, so lockstat's name for the lock can be
 * checked: file.f_pos_lock, and the filesystem's inode struct with its
 * vfs_inode.i_rwsem (ext4_inode_info.vfs_inode.i_rwsem on ext4).
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   onefile: mode=pos overlap=97.0% workers=2 ops=1234567 secs=3.001 ops/s=411234
 * or with -q the ops/s integer alone.  overlap= (2 workers or more) is how
 * much of the run the workers ran at once (workload.h, wl_beat()): the
 * lock is contended only while they do.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG		"onefile"
#define OPT_MODE	256	/* long-only */
/* 16 ops, a few microseconds: a time slice rarely falls inside a batch. */
#define WL_BEAT_OPS	16

#include "workload.h"

static struct {
	bool write;
	const char *path;	/* -p, or our temp file */
	char tmp[PATH_MAX];
	int shared_fd;
} opt = {
	.shared_fd = -1,
};

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [--mode pos|write] [-p PATH] [-q] [-h]\n"
	      "Threads hammer one file through one of its kernel locks.\n"
	      "  -t N      worker threads (default 2)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS calls in total, split evenly across threads;\n"
	      "            wins over -d\n"
	      "  --mode pos    read() at the end of one shared fd: the struct file's\n"
	      "                f_pos_lock (default)\n"
	      "  --mode write  pwrite() 4 KiB at offset 0, one fd per thread: the\n"
	      "                inode's i_rwsem\n"
	      "  -p PATH   the file (created if missing, never removed); default is a\n"
	      "            file made in $TMPDIR (or /tmp) and removed at exit\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": mode=pos|write [overlap=P.P%] workers=N ops=N secs=S.SSS ops/s=N\n"
	      "overlap: the share of the run the workers ran at once (2 workers or more)\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	if (c == 'p') {
		opt.path = optarg;
		return true;
	}
	if (c != OPT_MODE)
		return false;
	if (strcmp(optarg, "pos") && strcmp(optarg, "write"))
		bad_usage("--mode wants pos or write, not '%s'", optarg);
	opt.write = !strcmp(optarg, "write");
	return true;
}

/* atexit(): our temp file goes on every exit, die() included. */
static void remove_file(void)
{
	if (opt.tmp[0])
		unlink(opt.tmp);
}

static void make_file(void)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!opt.path) {
		snprintf(opt.tmp, sizeof(opt.tmp), "%s/" PROG ".XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(opt.tmp);
		if (fd < 0) {
			opt.tmp[0] = '\0';
			die("mkstemp in %s: %s", dir && *dir ? dir : "/tmp", strerror(errno));
		}
		close(fd);
		if (atexit(remove_file))
			die("atexit failed");
		opt.path = opt.tmp;
	}
	opt.shared_fd = open(opt.path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (opt.shared_fd < 0)
		die("open %s: %s", opt.path, strerror(errno));
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;
	static char buf[4096];
	int fd = opt.write ? open(opt.path, O_WRONLY | O_CLOEXEC) : opt.shared_fd;

	if (fd < 0)
		fail(s, "open");
	if (wl_early_stop)
		ctl->stop = 1;
	wait_for_go();
	while (fd >= 0 && ops < quota && !ctl->stop) {
		ssize_t n;

		wl_beat(id, ops);
		n = opt.write ? pwrite(fd, buf, sizeof(buf), 0) : read(fd, buf, 1);

		if (n < 0) {
			fail(s, opt.write ? "pwrite" : "read");
			break;
		}
		ops++;
	}
	record(s, ops);
	if (opt.write && fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double t0;

	wl_catch_early_stop();
	wl_parse_args(argc, argv, WL_SHORTOPTS "p:", longopts, own_opt);
	make_file();
	t0 = wl_run(run_worker, false);
	wl_report(t0, opt.write ? "mode=write " : "mode=pos ");
	return 0;
}
