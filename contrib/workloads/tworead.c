// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tworead: read two files at once, to watch the page cache replace pages.
 *
 * Worker i reads file i % 2 (so -t 1 reads only the first) in 64 KiB
 * pread()s over its range, in order or at random offsets.  While both
 * files' ranges fit in memory this is a page cache hit loop (xarray
 * walks under RCU, no locks to speak of).  Once they do not (large -s,
 * or a memory cgroup limit on the run), every read that misses adds
 * folios to the LRU and reclaim evicts others: lru_lock, the mapping's
 * i_pages lock and the zone lock are where the two streams meet.  -i
 * prints reads per interval, so the moment the working set stops
 * fitting shows as a drop.
 *
 * The program writes the files itself (real data, not holes: a hole is
 * read as the shared zero page and adds nothing to the page cache), and
 * fsync()s them so that --cold can drop their pages with
 * posix_fadvise(DONTNEED), which leaves dirty pages where they are.
 * Each worker opens its own fd: a shared one would make the struct file
 * refcount, taken by every pread() of a multithreaded process, a shared
 * cache line that has nothing to do with the page cache.
 *
 * Output is a contract (tests and benchmarks parse it): with -i, lines
 *   tworead: t=1.0 reads=12345
 * for each whole interval, then one line on stdout,
 *   tworead: files=2 mb=64 workers=2 ops=123456 secs=3.001 ops/s=41152
 * or with -q the ops/s integer alone.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG		"tworead"
#define OPT_RANDOM	256	/* long-only: no char value a short option has */
#define OPT_COLD	257

#include "workload.h"

#define BLOCK		(64 * 1024)		/* bytes per op */
#define MIB		(1024 * 1024)
#define BLOCKS_PER_MB	(MIB / BLOCK)
#define MAX_MB		(1024 * 1024)		/* 1 TiB per file */
#define FILL_CHUNK	MIB			/* bytes per write() when creating */

struct file {
	const char *given;	/* -a/-b path, or NULL: make one in opt.dir */
	char *path;
	bool created;		/* ours: unlink at exit unless -k */
	bool complete;		/* all written: -k may keep it */
	uint64_t first, nblocks;	/* the range, in blocks */
	unsigned int nreaders;	/* workers reading this file */
	unsigned long long lo, hi;	/* -r range in MB; hi 0: whole file */
};

static struct {
	const char *dir;
	unsigned long long mb;
	bool random;
	bool cold;
	bool keep;
	double interval;	/* -i, 0: none */
	struct file f[2];
} opt = {
	.dir = ".",
	.mb = 64,
};

/* Reads so far, per worker, for -i; each on its own cache line. */
static struct live {
	uint64_t reads;
} __attribute__((aligned(CACHELINE))) *live;

static unsigned int nfinished;		/* workers out of their loop */
static int run_over;			/* main is past wl_run() */
static bool reporting;			/* -i lines wanted: a reporter runs */
static sem_t started;			/* worker 0 is past the gate */
static struct {
	unsigned long k;	/* the tick the reporter stopped at */
	uint64_t prev;		/* reads up to the tick before it */
} rep;

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-t N] [-d SECS] [-n OPS] [-D DIR] [-a FILE] [-b FILE] [-s MB]\n"
	      "               [-r A0:A1,B0:B1] [--random] [--cold] [-i SECS] [-k] [-q] [-h]\n"
	      "Read two files in 64 KiB pread()s from many threads, to load the page\n"
	      "cache and, once the files outgrow memory, page reclaim.\n"
	      "  -t N      worker threads (default 2); worker i reads file i % 2\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS reads in total, split evenly across\n"
	      "            threads; wins over -d\n"
	      "  -D DIR    where to create the files (default .)\n"
	      "  -a FILE   first file: used as it is if it exists (at least -s MB),\n"
	      "            else created there; default a new file in DIR\n"
	      "  -b FILE   second file, the same way\n"
	      "  -s MB     size of each file, and what is read of an existing one\n"
	      "            (default 64)\n"
	      "  -r A0:A1,B0:B1\n"
	      "            read only MB A0 up to A1 of the first file and B0 up to\n"
	      "            B1 of the second (default whole files); one A0:A1 is\n"
	      "            both ranges\n"
	      "  --random  random block offsets within the range; default is in\n"
	      "            order, the readers of one file spread over its range\n"
	      "  --cold    drop the files from the page cache before the run, so\n"
	      "            that reads add pages; default is whatever is cached\n"
	      "            (all of a file just created)\n"
	      "  -i SECS   also print reads per interval of SECS, fractions allowed\n"
	      "  -k        keep the files it created; default is to delete them\n"
	      WL_USAGE_QUIET_HELP
	      "Prints with -i a line for each whole interval, then one line on stdout:\n"
	      "  " PROG ": t=S.S reads=N\n"
	      "  " PROG ": files=2 mb=N workers=N ops=N secs=S.SSS ops/s=N\n"
	      "One op is one 64 KiB pread(); mb is the -s size.  -q prints only the\n"
	      "ops/s integer, no interval lines.\n"
	      WL_USAGE_EXIT,
	      f);
}

/* A whole number of MB, 0 allowed (parse_count() refuses it). */
static int parse_mb(const char *s, char **end, unsigned long long *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, end, 10);
	if (errno || *out > MAX_MB)
		return -1;
	return 0;
}

/* "LO:HI" into f's range; returns the char after HI, or NULL. */
static const char *parse_range(const char *s, struct file *f)
{
	char *end;

	if (parse_mb(s, &end, &f->lo) || *end != ':')
		return NULL;
	if (parse_mb(end + 1, &end, &f->hi) || f->hi <= f->lo)
		return NULL;
	return end;
}

static void parse_ranges(const char *arg)
{
	const char *p = parse_range(arg, &opt.f[0]);

	if (p && *p == '\0') {
		opt.f[1].lo = opt.f[0].lo;
		opt.f[1].hi = opt.f[0].hi;
		return;
	}
	if (!p || *p != ',' || !(p = parse_range(p + 1, &opt.f[1])) || *p)
		bad_usage("-r wants A0:A1,B0:B1 or A0:A1 in MB, each start below its end, not '%s'",
			  arg);
}

static bool own_opt(int c)
{
	unsigned long long v;

	switch (c) {
	case 'D':
		opt.dir = optarg;
		return true;
	case 'a':
	case 'b':
		opt.f[c - 'a'].given = optarg;
		return true;
	case 's':
		if (parse_count(optarg, MAX_MB, &v))
			bad_usage("-s wants 1..%d MB, not '%s'", MAX_MB, optarg);
		opt.mb = v;
		return true;
	case 'r':
		parse_ranges(optarg);
		return true;
	case 'i':
		if (parse_secs(optarg, &opt.interval))
			bad_usage("-i wants seconds > 0, not '%s'", optarg);
		return true;
	case 'k':
		opt.keep = true;
		return true;
	case OPT_RANDOM:
		opt.random = true;
		return true;
	case OPT_COLD:
		opt.cold = true;
		return true;
	}
	return false;
}

/* Checks that need every option: a range must lie within -s. */
static void check_ranges(void)
{
	struct file *f;
	int i;

	for (i = 0; i < 2; i++) {
		f = &opt.f[i];
		if (!f->hi)
			f->hi = opt.mb;
		if (f->hi > opt.mb)
			bad_usage("-r: range %llu:%llu of file %c ends past -s %llu MB",
				  f->lo, f->hi, 'a' + i, opt.mb);
		f->first = f->lo * BLOCKS_PER_MB;
		f->nblocks = (f->hi - f->lo) * BLOCKS_PER_MB;
	}
}

/*
 * atexit(): die() after the files exist must not leave them either.  A
 * file cut short (by an error or a signal) goes even with -k: a later
 * run with -a/-b would take it as it is.
 */
static void remove_files(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (opt.f[i].created && (!opt.keep || !opt.f[i].complete))
			unlink(opt.f[i].path);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Write opt.mb MB of data to fd and make it durable. */
static void fill(int fd, const char *path)
{
	static uint64_t buf[FILL_CHUNK / sizeof(uint64_t)];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned long long done;
	size_t i, off;
	ssize_t r;

	/* Not zeros: some filesystems would store (and read) no data. */
	for (i = 0; i < FILL_CHUNK / sizeof(uint64_t); i++)
		buf[i] = xorshift(&x);
	for (done = 0; done < opt.mb && !wl_early_stop; done++) {
		for (off = 0; off < FILL_CHUNK; off += r) {
			r = write(fd, (char *)buf + off, FILL_CHUNK - off);
			if (r < 0 && errno == EINTR)
				r = 0;
			else if (r <= 0)
				die("write %s: %s", path, r ? strerror(errno) : "wrote nothing");
		}
	}
	if (!wl_early_stop && fsync(fd))
		die("fsync %s: %s", path, strerror(errno));
}

/* Make file i in opt.dir, or at its -a/-b path if that does not exist. */
static void create_file(struct file *f, int i)
{
	int fd;

	if (f->given) {
		f->path = strdup(f->given);
		if (!f->path)
			die("out of memory");
		fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	} else {
		if (asprintf(&f->path, "%s/" PROG "-%c.XXXXXX", opt.dir, 'a' + i) < 0)
			die("out of memory");
		fd = mkostemp(f->path, O_CLOEXEC);
		/* A failed mkostemp() leaves the X's undefined: name the dir. */
		if (fd < 0)
			die("create a file in %s: %s", opt.dir, strerror(errno));
	}
	if (fd < 0)
		die("create %s: %s", f->path, strerror(errno));
	f->created = true;
	fill(fd, f->path);
	if (close(fd))
		die("close %s: %s", f->path, strerror(errno));
	f->complete = !wl_early_stop;
}

/* An existing -a/-b file: check it is big enough.  False if absent. */
static bool use_existing(struct file *f)
{
	struct stat st;

	if (!f->given)
		return false;
	if (stat(f->given, &st)) {
		if (errno == ENOENT)
			return false;
		die("%s: %s", f->given, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		die("%s: not a regular file", f->given);
	if ((unsigned long long)st.st_size < opt.mb * MIB)
		die("%s: %lld bytes, less than -s %llu MB", f->given,
		    (long long)st.st_size, opt.mb);
	f->path = (char *)f->given;
	return true;
}

/* --cold: push the file's pages out of the page cache. */
static void drop_cache(const char *path)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	/* DONTNEED leaves dirty pages alone; an existing file may have some. */
	if (fdatasync(fd))
		die("fdatasync %s: %s", path, strerror(errno));
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err)
		die("posix_fadvise %s: %s", path, strerror(err));
	close(fd);
}

static void set_up_files(void)
{
	struct file *f;
	int i;

	if (atexit(remove_files))
		die("atexit failed");
	for (i = 0; i < 2 && !wl_early_stop; i++) {
		f = &opt.f[i];
		if (!use_existing(f))
			create_file(f, i);
		if (opt.cold && !wl_early_stop)
			drop_cache(f->path);
	}
}

/* The block a worker reads next; *pos is its place in the range. */
static uint64_t next_block(const struct file *f, uint64_t *pos, uint64_t *seed)
{
	if (opt.random)
		return f->first + xorshift(seed) % f->nblocks;
	if (*pos >= f->nblocks)
		*pos = 0;
	return f->first + (*pos)++;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	const struct file *f = &opt.f[id % 2];
	uint64_t quota = quota_of(id), ops = 0, seed, pos;
	void *buf = NULL;
	ssize_t r;
	int fd = -1;

	/* Readers of one file start spread over it, not all on one block. */
	pos = (id / 2) * f->nblocks / f->nreaders;
	seed = 0x2545f4914f6cdd1dULL * (id + 1);
	if (wl_early_stop)
		ctl->stop = 1;
	else if (!(buf = malloc(BLOCK)))
		fail(s, "malloc");
	else if ((fd = open(f->path, O_RDONLY | O_CLOEXEC)) < 0)
		fail(s, "open");
	wait_for_go();
	if (id == 0 && reporting)
		sem_post(&started);
	while (fd >= 0 && ops < quota && !ctl->stop) {
		r = pread(fd, buf, BLOCK, next_block(f, &pos, &seed) * BLOCK);
		if (r != BLOCK) {
			/* The file shrank under us: say so, not "Success". */
			if (r >= 0)
				errno = ENODATA;
			fail(s, "pread");
			break;
		}
		ops++;
		__atomic_store_n(&live[id].reads, ops, __ATOMIC_RELAXED);
	}
	record(s, ops);
	__atomic_add_fetch(&nfinished, 1, __ATOMIC_RELAXED);
	if (fd >= 0)
		close(fd);
	free(buf);
}

static uint64_t reads_so_far(void)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < wl.workers; i++)
		sum += __atomic_load_n(&live[i].reads, __ATOMIC_RELAXED);
	return sum;
}

/* Sleep until t, in short slices so the end of the run is seen soon. */
static bool sleep_until(double t)
{
	struct timespec ts = { 0 };
	double left;

	while (!__atomic_load_n(&run_over, __ATOMIC_RELAXED) && (left = t - now()) > 0) {
		if (left > POLL_SECS)
			left = POLL_SECS;
		ts.tv_nsec = left * 1e9;
		nanosleep(&ts, NULL);
	}
	return !__atomic_load_n(&run_over, __ATOMIC_RELAXED);
}

/* Decimals for t=: one as in t=1.0, or as many as -i has, up to 6. */
static int tick_decimals(void)
{
	double scaled = opt.interval * 10, whole;
	int prec;

	for (prec = 1; prec < 6; prec++, scaled *= 10) {
		whole = (double)(uint64_t)(scaled + 0.5);
		if (scaled - whole < 1e-6 && whole - scaled < 1e-6)
			break;
	}
	return prec;
}

static int print_tick(unsigned long k, uint64_t reads)
{
	static int prec;

	if (!prec)
		prec = tick_decimals();
	printf(PROG ": t=%.*f reads=%" PRIu64 "\n", prec, k * opt.interval, reads);
	return fflush(stdout);
}

/* Whether tick k falls on the -d deadline, where the run stops. */
static bool tick_at_deadline(unsigned long k)
{
	double d = k * opt.interval - wl.secs;

	return !wl.total_ops && d > -1e-9 && d < 1e-9;
}

/*
 * -i: one line per whole interval.  A cut-short last one is not printed.
 * Nor is one ending on the -d deadline: main stops the workers then, and
 * which of the two comes first is luck; main prints that one from the
 * final counts (print_last_tick()).
 */
static void *reporter(void *arg)
{
	uint64_t cur;
	double t0;

	(void)arg;
	while (sem_wait(&started) && errno == EINTR)
		;
	t0 = now();
	for (rep.k = 1; !tick_at_deadline(rep.k); rep.k++) {
		if (!sleep_until(t0 + rep.k * opt.interval))
			break;
		cur = reads_so_far();
		/* Past a stop or a worker's last op the interval is short. */
		if (ctl->stop || __atomic_load_n(&nfinished, __ATOMIC_RELAXED))
			break;
		/* No one reads stdout any more: end the run, die() says why. */
		if (print_tick(rep.k, cur - rep.prev)) {
			ctl->stop = 1;
			break;
		}
		rep.prev = cur;
	}
	return NULL;
}

/* The tick on the deadline, if the run got there and was not cut short. */
static void print_last_tick(double t0)
{
	uint64_t ops = 0;
	double end = t0;
	unsigned int i;

	if (!tick_at_deadline(rep.k))
		return;
	for (i = 0; i < wl.workers; i++) {
		ops += ctl->slot[i].ops;
		if (ctl->slot[i].end > end)
			end = ctl->slot[i].end;
	}
	/* A signal before the deadline cut it short; 1e-6: float rounding. */
	if (end - t0 >= wl.secs - 1e-6)
		print_tick(rep.k, ops - rep.prev);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "random", no_argument, NULL, OPT_RANDOM },
		{ "cold", no_argument, NULL, OPT_COLD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	pthread_t rep_tid;
	char fields[64];
	double t0;
	int err;

	wl_catch_early_stop();
	wl_parse_args(argc, argv, WL_SHORTOPTS "D:a:b:s:r:i:k", longopts, own_opt);
	check_ranges();
	opt.f[0].nreaders = (wl.workers + 1) / 2;
	opt.f[1].nreaders = wl.workers / 2;
	live = aligned_alloc(CACHELINE, wl.workers * sizeof(*live));
	if (!live)
		die("out of memory");
	memset(live, 0, wl.workers * sizeof(*live));
	set_up_files();

	/* -i needs its own thread: main is inside wl_run() for the run. */
	reporting = opt.interval && !wl.quiet;
	if (reporting) {
		if (sem_init(&started, 0, 0))
			die("sem_init: %s", strerror(errno));
		err = pthread_create(&rep_tid, NULL, reporter, NULL);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	t0 = wl_run(run_worker, false);
	if (reporting) {
		__atomic_store_n(&run_over, 1, __ATOMIC_RELAXED);
		pthread_join(rep_tid, NULL);
		print_last_tick(t0);
	}
	snprintf(fields, sizeof(fields), "files=2 mb=%llu ", opt.mb);
	wl_report(t0, fields);
	return 0;
}
