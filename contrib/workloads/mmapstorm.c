// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mmapstorm: hammer one mm's mmap_lock from many threads at once.
 *
 * Threads of one process share one mm_struct.  Each op maps a private
 * anonymous region, writes one byte per page and unmaps it.  mmap() and
 * munmap() take mmap_lock for write.  Page faults take it for read on
 * kernels without per-VMA locks.  With per-VMA locks they still do it
 * often here: the threads' mappings sit side by side and merge into
 * shared VMAs, so a neighbour's mmap()/munmap() keeps the faulting VMA
 * write-locked and the fault retries under mmap_lock (on 6.18, 2 threads:
 * ~17k read waits/s in lock_mm_and_find_vma against ~3k write waits/s in
 * vm_mmap_pgoff and __vm_munmap).  That already gives both read and write
 * waits, so no thread does mprotect() or madvise(MADV_DONTNEED) as well:
 * tried, they lowered ops/s without adding much mmap_lock contention.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   mmapstorm: overlap=95.0% workers=2 ops=123456 secs=3.001 ops/s=41152
 * or with -q the ops/s integer alone; overlap= (2 workers or more) as in
 * fdstorm.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define PROG		"mmapstorm"
#define MAX_KIB		(1024 * 1024)
/* An op takes 10-20 us: look after each one, far shorter than a time slice. */
#define WL_BEAT_OPS	1

#include "workload.h"

static struct {
	size_t len;		/* bytes per mapping, whole pages */
	size_t page;
} opt = {
	.len = 64 * 1024,
};

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [-s KIB] [-q] [-h]\n"
	      "Contend on the kernel's mm_struct.mmap_lock with threads that mmap,\n"
	      "touch and munmap anonymous memory.\n"
	      "  -t N      worker threads (default 2)\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS map+touch+unmap rounds in total, split\n"
	      "            evenly across threads; wins over -d\n"
	      "  -s KIB    size of each mapping in KiB, rounded up to whole pages\n"
	      "            (default 64)\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": [overlap=P.P%] workers=N ops=N secs=S.SSS ops/s=N\n"
	      "overlap: the share of the run the workers ran at once (2 workers or more)\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	unsigned long long v;

	if (c != 's')
		return false;
	if (parse_count(optarg, MAX_KIB, &v))
		bad_usage("-s wants 1..%d KiB, not '%s'", MAX_KIB, optarg);
	opt.len = v * 1024;
	return true;
}

/* One op: map (write lock), fault every page in, unmap (write lock). */
static int map_touch_unmap(struct slot *s)
{
	volatile char *p;
	size_t off;

	p = mmap(NULL, opt.len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail(s, "mmap");
		return -1;
	}
	/* A write, not a read: a read would just map the shared zero page. */
	for (off = 0; off < opt.len; off += opt.page)
		p[off] = 1;
	if (munmap((void *)p, opt.len)) {
		fail(s, "munmap");
		return -1;
	}
	return 0;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;

	wait_for_go();
	/* Count locally: a shared counter would add its own contention. */
	while (ops < quota && !ctl->stop) {
		wl_beat(id, ops);
		if (map_touch_unmap(s))
			break;
		ops++;
	}
	record(s, ops);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double t0;

	wl_parse_args(argc, argv, WL_SHORTOPTS "s:", longopts, own_opt);
	opt.page = sysconf(_SC_PAGESIZE);
	opt.len = (opt.len + opt.page - 1) / opt.page * opt.page;
	/* Threads only: a private control block, like the maps it makes. */
	t0 = wl_run(run_worker, false);
	wl_report(t0, "");
	return 0;
}
