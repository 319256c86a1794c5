// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * chat: rooms of threads passing messages round a ring of sockets.
 *
 * Every thread of a room reads a message from the one before it in the
 * ring and write()s it on to the one after, each link an AF_UNIX
 * SOCK_STREAM socketpair; every thread starts by sending one, so a room
 * of N threads always has N messages in flight (the hackbench pattern,
 * with every thread both sender and receiver).  All the threads share
 * one fd table (CLONE_FILES), so every read() and write() looks its fd
 * up in that shared table, and with more than one task on the table
 * fdget() takes a reference on the struct file rather than borrowing
 * it.  Each socket end belongs to one thread, so those refcounts are not
 * shared; what the threads do share is the peer's receive queue lock,
 * the wait queues and the run queues their wakeups go through.
 *
 * A thread blocks in read() or write() for at most POLL_SECS
 * (SO_RCVTIMEO, SO_SNDTIMEO), then looks at ctl->stop, so no stop can
 * leave one waiting on a peer that has gone.  For the same reason a
 * thread that has its share of -n goes on passing messages on, uncounted,
 * until the whole room has: the ring stops only as a whole.
 *
 * Output is a contract (tests and benchmarks parse it): one line on
 * stdout,
 *   chat: rooms=2 workers=8 ops=123456 secs=3.001 ops/s=41152
 * or with -q the ops/s integer alone.  ops/s is messages per second.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PROG		"chat"
#define MAX_ROOMS	MAX_WORKERS
#define MAX_MSG		(64 * 1024)	/* several must fit in a socket buffer */

#include "workload.h"

static struct {
	unsigned int rooms;
	unsigned int per_room;	/* threads in each room, -t */
	size_t msg;		/* bytes per message */
	int (*link)[2];		/* link[i]: worker i writes [0], i + 1 reads [1] */
	unsigned int *done;	/* per room: threads that have their quota */
} opt = {
	.rooms = 2,
	.msg = 100,
};

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-r ROOMS] [-t N] [-d SECS] [-n OPS] [-m BYTES] [-q] [-h]\n"
	      "Pass messages round rings of threads over AF_UNIX stream sockets,\n"
	      "every thread of the process sharing one fd table.\n"
	      "  -r ROOMS  rooms, each a ring of its own (default 2)\n"
	      "  -t N      threads in each room (default 4); workers= in the line\n"
	      "            is all of them, ROOMS * N\n"
	      WL_USAGE_SECS
	      "  -n OPS    run until OPS messages in total, split evenly across\n"
	      "            threads; wins over -d\n"
	      "  -m BYTES  message size, 1..65536 (default 100)\n"
	      WL_USAGE_QUIET_HELP
	      "Prints one line on stdout:\n"
	      "  " PROG ": rooms=N workers=N ops=N secs=S.SSS ops/s=N\n"
	      "One op is one message written by a thread and read by the next.\n"
	      WL_USAGE_EXIT,
	      f);
}

static bool own_opt(int c)
{
	unsigned long long v;

	switch (c) {
	case 'r':
		if (parse_count(optarg, MAX_ROOMS, &v))
			bad_usage("-r wants 1..%d, not '%s'", MAX_ROOMS, optarg);
		opt.rooms = v;
		return true;
	case 'm':
		if (parse_count(optarg, MAX_MSG, &v))
			bad_usage("-m wants 1..%d bytes, not '%s'", MAX_MSG, optarg);
		opt.msg = v;
		return true;
	}
	return false;
}

/* Room sizes come from -t, which wl_parse_args() put in wl.workers. */
static void size_rooms(void)
{
	opt.per_room = wl.workers;
	if ((unsigned long long)opt.rooms * opt.per_room > MAX_WORKERS)
		bad_usage("-r %u times -t %u is over %d threads", opt.rooms,
			  opt.per_room, MAX_WORKERS);
	wl.workers = opt.rooms * opt.per_room;
}

/* Two fds per thread; the soft limit may be lower than that needs. */
static void raise_fd_limit(void)
{
	rlim_t want = 2 * (rlim_t)wl.workers + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void set_timeout(int fd, int opt_name)
{
	struct timeval tv = { .tv_usec = POLL_SECS * 1e6 };

	if (setsockopt(fd, SOL_SOCKET, opt_name, &tv, sizeof(tv)))
		die("setsockopt: %s", strerror(errno));
}

/* One socketpair per worker: the link to the next thread of its room. */
static void make_rings(void)
{
	unsigned int i;

	raise_fd_limit();
	opt.link = calloc(wl.workers, sizeof(*opt.link));
	opt.done = calloc(opt.rooms, sizeof(*opt.done));
	if (!opt.link || !opt.done)
		die("out of memory");
	for (i = 0; i < wl.workers; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, opt.link[i]))
			die("socketpair: %s%s", strerror(errno),
			    errno == EMFILE ? " (too many threads for the fd limit)" : "");
		set_timeout(opt.link[i][0], SO_SNDTIMEO);
		set_timeout(opt.link[i][1], SO_RCVTIMEO);
	}
}

static void close_rings(void)
{
	unsigned int i;

	for (i = 0; i < wl.workers; i++) {
		close(opt.link[i][0]);
		close(opt.link[i][1]);
	}
	free(opt.link);
	free(opt.done);
}

/* The worker before id in its room's ring: the one whose link id reads. */
static unsigned int prev_in_room(unsigned int id)
{
	unsigned int first = id / opt.per_room * opt.per_room;

	return first + (id - first + opt.per_room - 1) % opt.per_room;
}

/*
 * Move len bytes with read() or write(), across short transfers and
 * timeouts.  Returns 0, or -1 on an error (errno set) or once stop is
 * set, so a thread never waits on a peer that has left.
 */
static int transfer(int fd, char *buf, size_t len, bool out, const unsigned int *room_done)
{
	size_t off = 0;
	ssize_t r;

	while (off < len) {
		if (ctl->stop || __atomic_load_n(room_done, __ATOMIC_RELAXED) == opt.per_room) {
			errno = 0;
			return -1;
		}
		r = out ? write(fd, buf + off, len - off) : read(fd, buf + off, len - off);
		if (r > 0) {
			off += r;
		} else if (r == 0) {
			errno = EPIPE;	/* the peer closed: not expected */
			return -1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* This thread has its share of -n; the room stops when all have. */
static bool quota_met(struct slot *s, uint64_t ops, unsigned int *room_done)
{
	record(s, ops);
	return __atomic_add_fetch(room_done, 1, __ATOMIC_RELAXED) == opt.per_room;
}

static void run_worker(unsigned int id)
{
	struct slot *s = &ctl->slot[id];
	uint64_t quota = quota_of(id), ops = 0;
	unsigned int *room_done = &opt.done[id / opt.per_room];
	int out = opt.link[id][0], in = opt.link[prev_in_room(id)][1];
	bool counting = true, ok;
	char *buf;

	buf = malloc(opt.msg);
	if (!buf)
		fail(s, "malloc");
	else
		memset(buf, 'a' + id % 26, opt.msg);
	ok = buf != NULL;
	/* -n below the thread count leaves some with nothing to count. */
	if (ok && !quota) {
		counting = false;
		ok = !quota_met(s, ops, room_done);
	}
	wait_for_go();
	if (ok && transfer(out, buf, opt.msg, true, room_done)) {
		if (errno)
			fail(s, "write");
		ok = false;
	}
	/* Count locally: a shared counter would add its own contention. */
	while (ok && !ctl->stop) {
		if (transfer(in, buf, opt.msg, false, room_done)) {
			if (errno)
				fail(s, "read");
			break;
		}
		/* Past its quota a thread passes messages on uncounted. */
		if (counting && ++ops == quota) {
			counting = false;
			if (quota_met(s, ops, room_done))
				break;
		}
		if (transfer(out, buf, opt.msg, true, room_done)) {
			if (errno)
				fail(s, "write");
			break;
		}
	}
	if (counting)
		record(s, ops);
	free(buf);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char fields[32];
	double t0;

	wl.workers = 4;		/* -t is per room here, and 4 by default */
	wl_parse_args(argc, argv, WL_SHORTOPTS "r:m:", longopts, own_opt);
	size_rooms();
	make_rings();
	t0 = wl_run(run_worker, false);
	close_rings();
	snprintf(fields, sizeof(fields), "rooms=%u ", opt.rooms);
	wl_report(t0, fields);
	return 0;
}
