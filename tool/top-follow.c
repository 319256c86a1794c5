// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top --follow DIR: the view of a running lockstat serve, from its
 * segment directory, read-only and without root. Every interval the
 * newest segment is read from where the last read stopped (a chunk that
 * serve is still writing waits for the next interval); when a newer
 * segment appears, the rest of the current one is read and the view
 * moves on to the new one, whose totals start from zero (a segment
 * stands alone: its names and stacks are its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/exitcode.h"
#include "base/log.h"
#include "serve/segdir.h"
#include "run/session.h"
#include "top.h"

struct follow {
	struct top *t;
	const char *dir;
	char name[SEGDIR_NAME_MAX];
	int fd;
	int sigfd;
	uint64_t next_wall;
	bool stop;
};

/* The newest segment of the directory, in name; -ENOENT when there is none. */
static int newest(const char *dir, char *name, size_t len)
{
	struct segment *segs;
	size_t n;
	int err = segdir_list(dir, &segs, &n);

	if (err)
		return err;
	if (n)
		snprintf(name, len, "%s", segs[n - 1].name);
	free(segs);
	return n ? 0 : -ENOENT;
}

static int open_segment(struct follow *f, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_err("%s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (f->fd >= 0)
		close(f->fd);
	f->fd = fd;
	snprintf(f->name, sizeof(f->name), "%s", name);
	top_model__free(&f->t->model);
	top_model__init(&f->t->model);
	snprintf(f->t->ui.message, sizeof(f->t->ui.message), "segment %s", name);
	return 0;
}

static int read_more(struct follow *f)
{
	int err = top_model__read_fd(&f->t->model, f->fd, false);

	if (err)
		pr_err("%s/%s: %s\n", f->dir, f->name, f->t->model.err);
	return err;
}

/* One interval: what the segment grew by, and the next segment once there is one. */
static int step(struct follow *f)
{
	char name[SEGDIR_NAME_MAX];
	int err;

	top_model__next_interval(&f->t->model);
	err = read_more(f);
	if (!err && !newest(f->dir, name, sizeof(name)) && segdir_cmp(name, f->name) > 0) {
		err = open_segment(f, name);
		if (!err)
			err = read_more(f);
	}
	if (!err)
		top__interval(f->t, -1, NAN);
	return err;
}

static void set_interval(void *ctx, double secs)
{
	(void)ctx;
	(void)secs;	/* t->o.interval is the next wait */
}

static void wait_next(struct follow *f)
{
	struct pollfd pfd[2] = { { f->sigfd, POLLIN, 0 },
				 { f->t->o.out == TOP_CURSES ? STDIN_FILENO : -1, POLLIN, 0 } };
	uint64_t now = now_ns();
	int ms = f->t->ui.paused ? -1 : f->next_wall <= now ? 0 : (int)((f->next_wall - now + 999999) / 1000000);

	if (poll(pfd, 2, ms) <= 0)
		return;
	if (pfd[0].revents & POLLIN)
		f->stop |= term__signals(f->t, f->sigfd);
	if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
		top_ui__keys(f->t);
		top__apply(f->t, set_interval, f);
		f->stop |= f->t->ui.quit;
	}
}

static int play(struct follow *f)
{
	int err;

	f->next_wall = now_ns();
	while (!f->stop && !top__enough(f->t)) {
		if (now_ns() >= f->next_wall && !f->t->ui.paused) {
			err = step(f);
			if (err)
				return err;
			f->next_wall = now_ns() + (uint64_t)(f->t->o.interval * NSEC_PER_SEC);
		}
		wait_next(f);
	}
	return 0;
}

int top_follow(struct top *t)
{
	struct follow f = { .t = t, .dir = t->o.follow, .fd = -1, .sigfd = -1 };
	char name[SEGDIR_NAME_MAX];
	int err = newest(f.dir, name, sizeof(name));

	if (err)
		pr_err("%s: %s\n", f.dir, err == -ENOENT ? "no segment of lockstat serve here" : strerror(-err));
	if (!err)
		err = open_segment(&f, name);
	if (!err && (err = term__signalfd(t, &f.sigfd)))
		pr_err("cannot set up the signals: %s\n", strerror(-err));
	if (!err && t->o.out == TOP_CURSES && term__start())
		err = -ENOTTY;
	if (!err) {
		top_ui__draw(t);
		top__mark(t);
		err = play(&f);
	}
	term__end();
	if (f.sigfd >= 0)
		close(f.sigfd);
	if (f.fd >= 0)
		close(f.fd);
	return err ? EXIT_FAIL : EXIT_OK;
}
