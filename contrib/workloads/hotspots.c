// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hotspots: a CPU-bound loop split between two functions at a known
 * ratio, so that a sampling profiler can be checked against it.
 *
 * Each op calls hot_three() three times and hot_one() once; both do the
 * same work per call and are kept out of line, so their self time is in
 * a 3:1 ratio. --unlink deletes the program's own binary once it runs,
 * to show that its symbols are still resolved afterwards.
 */
#define _GNU_SOURCE
#define PROG "hotspots"
#include "workload.h"

#define SPIN	20000

static struct {
	bool unlink_self;
	char self[4096];
} hs;

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [--unlink] [-q] [-h]\n"
	      "Burn CPU in hot_three() and hot_one() at a 3:1 ratio of calls.\n"
	      "  -t N      workers (default 2)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS ops in total, split evenly; wins over -d\n"
	      "  --unlink  delete this program's binary once it has started\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": workers=N ops=N secs=S.SSS ops/s=N\n"
	      WL_USAGE_EXIT,
	      f);
}

enum { OPT_UNLINK = 1000 };

static bool own_opt(int c)
{
	if (c != OPT_UNLINK)
		return false;
	hs.unlink_self = true;
	return true;
}

/*
 * The same work per call; noipa keeps each one out of line and keeps GCC's
 * identical-code folding (-fipa-icf, on at -O2) from making them one.
 */
__attribute__((noipa)) uint64_t hot_three(uint64_t x)
{
	int i;

	for (i = 0; i < SPIN; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

__attribute__((noipa)) uint64_t hot_one(uint64_t x)
{
	int i;

	for (i = 0; i < SPIN; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0, x = id;

	wait_for_go();
	while (ops < quota && !ctl->stop) {
		x = hot_three(hot_three(hot_three(x)));
		x = hot_one(x);
		ops++;
	}
	/* Use x, or the compiler may drop the work. */
	if (x == 42)
		fputc(' ', stderr);
	record(s, ops);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "unlink", no_argument, NULL, OPT_UNLINK },
		{ NULL, 0, NULL, 0 },
	};
	double t0;
	ssize_t n;

	wl_parse_args(argc, argv, WL_SHORTOPTS, longopts, own_opt);
	if (hs.unlink_self) {
		n = readlink("/proc/self/exe", hs.self, sizeof(hs.self) - 1);
		if (n < 0 || (hs.self[n] = '\0', unlink(hs.self)))
			die("cannot delete my own binary: %s", strerror(errno));
	}
	t0 = wl_run(run_worker, false);
	wl_report(t0, "");
	return 0;
}
