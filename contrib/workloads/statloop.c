// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * statloop: time stat(2) of one path from many threads, the path walk.
 *
 * Each op is a stat() of the same path, so each one walks the same
 * dentries.  The walk starts in RCU mode and takes no lock while nothing
 * changes; it falls back to ref-walk (a lockref, d_lock, on each dentry
 * it passes) when a sequence count moves or a dentry is not cached.
 * With no -p the program makes a chain of -l directories in a temp dir,
 * so the number of components a walk crosses is known and the same on
 * every machine, and removes it at exit.  ns/op per worker against -l
 * and -t is the figure: flat while the walks share nothing but reads.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   statloop: ns/op=250 workers=2 ops=123456 secs=3.001 ops/s=41152
 * or with -q the ops/s integer alone.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG		"statloop"
#define MAX_DEPTH	256
#define LEAF		"leaf"

#include "workload.h"

static struct {
	const char *path;	/* -p, or the leaf of our chain */
	unsigned int depth;
	bool depth_set;
	char *top;		/* our temp dir, NULL if -p */
	unsigned int made;	/* directories of the chain made so far */
	bool leaf_made;
} opt = {
	.depth = 8,
};


static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [-p PATH | -l N] [-q] [-h]\n"
	      "Time stat() of one path from many threads: the kernel's path walk.\n"
	      "  -t N      worker threads (default 2)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS stat() calls in total, split evenly across\n"
	      "            threads; wins over -d\n"
	      "  -p PATH   stat PATH; default is a file at the end of a chain of\n"
	      "            directories made in $TMPDIR (or /tmp) and removed at exit\n"
	      "  -l N      directories in that chain, 1..256 (default 8)\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": ns/op=N workers=N ops=N secs=S.SSS ops/s=N\n"
	      "ns/op: wall time per stat() in each worker, secs * workers / ops.\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	unsigned long long v;

	switch (c) {
	case 'p':
		opt.path = optarg;
		return true;
	case 'l':
		if (parse_count(optarg, MAX_DEPTH, &v))
			bad_usage("-l wants 1..%d, not '%s'", MAX_DEPTH, optarg);
		opt.depth = v;
		opt.depth_set = true;
		return true;
	}
	return false;
}

/*
 * The path of chain directory n (0: the temp dir itself), or of leaf in
 * it, into buf.  make_chain() tries the longest first, so that this
 * never dies in remove_chain(), where exit() must not be called.
 */
static void chain_path(char *buf, unsigned int n, const char *leaf)
{
	size_t len;
	unsigned int i;

	len = snprintf(buf, PATH_MAX, "%s", opt.top);
	for (i = 1; i <= n && len < PATH_MAX; i++)
		len += snprintf(buf + len, PATH_MAX - len, "/d%u", i);
	if (leaf && len < PATH_MAX)
		len += snprintf(buf + len, PATH_MAX - len, "/%s", leaf);
	if (len >= PATH_MAX)
		die("path under %s too long for -l %u", opt.top, opt.depth);
}

/* atexit(): the chain goes on every exit, die() after mkdtemp() too. */
static void remove_chain(void)
{
	char path[PATH_MAX];

	if (!opt.top)
		return;
	if (opt.leaf_made) {
		chain_path(path, opt.made, LEAF);
		unlink(path);
	}
	for (; opt.made > 0; opt.made--) {
		chain_path(path, opt.made, NULL);
		rmdir(path);
	}
	rmdir(opt.top);
}

static void make_chain(void)
{
	static char leaf[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	int fd;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&opt.top, "%s/" PROG ".XXXXXX", tmp) < 0)
		die("out of memory");
	if (!mkdtemp(opt.top)) {
		free(opt.top);
		opt.top = NULL;
		die("mkdtemp in %s: %s", tmp, strerror(errno));
	}
	if (atexit(remove_chain))
		die("atexit failed");
	/* The longest path first: see chain_path(). */
	chain_path(leaf, opt.depth, LEAF);
	while (opt.made < opt.depth && !wl_early_stop) {
		chain_path(leaf, opt.made + 1, NULL);
		if (mkdir(leaf, 0755))
			die("mkdir %s: %s", leaf, strerror(errno));
		opt.made++;
	}
	if (wl_early_stop)
		return;
	chain_path(leaf, opt.depth, LEAF);
	fd = open(leaf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create %s: %s", leaf, strerror(errno));
	opt.leaf_made = true;
	close(fd);
	opt.path = leaf;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;
	struct stat st;

	if (wl_early_stop)
		ctl->stop = 1;
	wait_for_go();
	/* Count locally: a shared counter would add its own contention. */
	while (ops < quota && !ctl->stop) {
		if (stat(opt.path, &st)) {
			fail(s, "stat");
			break;
		}
		ops++;
	}
	record(s, ops);
}

/* Wall ns per stat() per worker, over the same span as wl_report(). */
static uint64_t ns_per_op(double t0)
{
	uint64_t ops = 0;
	double end = t0;
	unsigned int i;

	for (i = 0; i < wl.workers; i++) {
		ops += ctl->slot[i].ops;
		if (ctl->slot[i].end > end)
			end = ctl->slot[i].end;
	}
	if (!ops)
		return 0;
	return (end - t0) * 1e9 * wl.workers / ops + 0.5;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat st;
	char fields[64];
	double t0;

	wl_catch_early_stop();
	wl_parse_args(argc, argv, WL_SHORTOPTS "p:l:", longopts, own_opt);
	if (opt.path && opt.depth_set)
		bad_usage("-p and -l exclude each other");
	if (!opt.path)
		make_chain();
	else if (stat(opt.path, &st))
		die("stat %s: %s", opt.path, strerror(errno));
	t0 = wl_run(run_worker, false);
	snprintf(fields, sizeof(fields), "ns/op=%" PRIu64 " ", ns_per_op(t0));
	wl_report(t0, fields);
	return 0;
}
