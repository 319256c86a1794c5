// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top --replay FILE: a recorded profile played through the same model,
 * snapshots and view as a live session, at its recorded pace, faster, or
 * as fast as possible; no BPF, so no root. This is how the view is tested
 * under the sanitizers.
 *
 * The chunks that name things (strings, symbols, stacks, mappings, user
 * symbols) are read first: a recording symbolizes user PCs only at its
 * end, and the functions should have their names from the first interval
 * on. The chunks that count (LOCKSTAT, SAMPLES, TABLE, LOST, END) are then
 * fed interval by interval, by the start time of their bucket.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/exitcode.h"
#include "base/log.h"
#include "run/session.h"
#include "top.h"

struct replay {
	struct top *t;
	struct store_file f;
	struct store_chunk *timed;	/* the counting chunks, in file order */
	size_t ntimed;
	size_t next;
	uint64_t vt;		/* virtual time: fed up to here */
	uint64_t bucket_ns;
	uint64_t next_wall;	/* when the next interval is shown */
	int sigfd;
	bool stop;
};

static bool is_timed(uint32_t type)
{
	return type == CHUNK_LOCKSTAT || type == CHUNK_SAMPLES || type == CHUNK_TABLE ||
	       type == CHUNK_LOST || type == CHUNK_END;
}

static int keep_timed(struct replay *r, const struct store_chunk *ch)
{
	struct store_chunk *grown = realloc(r->timed, (r->ntimed + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	r->timed = grown;
	r->timed[r->ntimed++] = *ch;
	return 0;
}

static void say_partial(const struct replay *r, enum walk_status st, uint64_t pos)
{
	if (st == WALK_TRUNCATED || st == WALK_BAD_CRC)
		pr_warn("%s: %s at byte %" PRIu64 ", replaying what came before\n", r->t->o.replay,
			st == WALK_TRUNCATED ? "truncated" : "damaged chunk", pos);
}

/* The naming chunks into the model now, the counting ones set aside. */
static int load(struct replay *r)
{
	struct store_chunk ch;
	enum walk_status st;
	uint64_t pos;
	const char *why = NULL;
	int err;

	err = store_open(r->t->o.replay, &r->f, &why);
	if (err) {
		pr_err("%s: %s\n", r->t->o.replay, why ? why : strerror(-err));
		return err;
	}
	err = top_model__set_header(&r->t->model, &r->f.hdr);
	pos = r->f.hdr.header_len;
	while (!err && (st = store_next_chunk(&r->f, &pos, &ch)) == WALK_CHUNK)
		err = is_timed(ch.type) ? keep_timed(r, &ch) : top_model__feed(&r->t->model, &ch);
	if (err) {
		pr_err("%s: %s\n", r->t->o.replay, r->t->model.err[0] ? r->t->model.err : strerror(-err));
		return err;
	}
	say_partial(r, st, pos);
	return 0;
}

static uint64_t step_ns(const struct replay *r)
{
	uint64_t step = r->t->o.interval * NSEC_PER_SEC;

	/* Shorter than a recorded bucket, most intervals would be empty. */
	return step < r->bucket_ns ? r->bucket_ns : step;
}

/*
 * A stretch of the recording without buckets (a recorder that stopped,
 * a file written by hand) is skipped, not shown as empty intervals one
 * by one, or for ever before a bucket at 10^18 ns: virtual time jumps,
 * on the same grid, to the interval that holds the next bucket.
 */
static void skip_gap(struct replay *r, uint64_t step)
{
	uint64_t t0, t1;

	if (!step || r->next >= r->ntimed || !chunk_span(&r->timed[r->next], &t0, &t1) ||
	    t0 < r->vt || t0 - r->vt < step)
		return;
	r->vt += (t0 - r->vt) / step * step;
}

/* One interval of virtual time: the buckets that start in it, and what follows them. */
static int advance(struct replay *r)
{
	struct top_model *m = &r->t->model;
	uint64_t t0, t1, step = step_ns(r);
	int err;

	top_model__next_interval(m);
	skip_gap(r, step);
	r->vt = r->vt > UINT64_MAX - step ? UINT64_MAX : r->vt + step;
	while (r->next < r->ntimed) {
		const struct store_chunk *ch = &r->timed[r->next];

		if (chunk_span(ch, &t0, &t1) && t0 >= r->vt && r->vt != UINT64_MAX)
			break;
		err = top_model__feed(m, ch);
		if (err) {
			pr_err("%s: %s\n", r->t->o.replay, m->err);
			return err;
		}
		r->next++;
	}
	r->t->final = r->next == r->ntimed;
	top__interval(r->t, -1, NAN);
	return 0;
}

static void set_interval(void *ctx, double secs)
{
	struct replay *r = ctx;

	(void)secs;
	if (r->t->o.interval * NSEC_PER_SEC < r->bucket_ns)
		r->t->o.interval = r->bucket_ns / 1e9;
}

static int timeout_ms(const struct replay *r)
{
	uint64_t now = now_ns();

	if (r->t->ui.paused || r->t->replay_done)
		return -1;
	return r->next_wall <= now ? 0 : (int)((r->next_wall - now + 999999) / 1000000);
}

/* Keys and signals until the next interval is due. */
static void wait_next(struct replay *r)
{
	struct pollfd pfd[2] = { { r->sigfd, POLLIN, 0 },
				 { r->t->o.out == TOP_CURSES ? STDIN_FILENO : -1, POLLIN, 0 } };

	if (poll(pfd, 2, timeout_ms(r)) <= 0)
		return;
	if (pfd[0].revents & POLLIN)
		r->stop |= term__signals(r->t, r->sigfd);
	if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
		top_ui__keys(r->t);
		top__apply(r->t, set_interval, r);
		r->stop |= r->t->ui.quit;
	}
}

static bool due(const struct replay *r)
{
	return !r->t->ui.paused && !r->t->replay_done && now_ns() >= r->next_wall;
}

static int play(struct replay *r)
{
	struct top *t = r->t;
	int err;

	r->next_wall = now_ns();
	while (!r->stop) {
		if (due(r)) {
			err = advance(r);
			if (err)
				return err;
			t->replay_done = t->final;
			r->next_wall = t->o.speed > 0 ? r->next_wall + step_ns(r) / t->o.speed : now_ns();
		}
		if (t->o.out != TOP_CURSES && (t->replay_done || top__enough(t)))
			break;
		if (t->o.out == TOP_CURSES && top__enough(t))
			break;
		wait_next(r);
	}
	return 0;
}

int top_replay(struct top *t)
{
	struct replay r = { .t = t, .sigfd = -1 };
	const char *bucket;
	int err;

	err = load(&r);
	if (!err && (err = term__signalfd(t, &r.sigfd)))
		pr_err("cannot set up the signals: %s\n", strerror(-err));
	if (!err) {
		bucket = profile__meta(t->model.cum, "bucket_ns");
		r.bucket_ns = bucket ? strtoull(bucket, NULL, 10) : 0;
		set_interval(&r, t->o.interval);
		if (t->o.out == TOP_CURSES && term__start())
			err = -ENOTTY;
	}
	if (!err) {
		top_ui__draw(t);
		top__mark(t);
		err = play(&r);
	}
	term__end();
	if (r.sigfd >= 0)
		close(r.sigfd);
	free(r.timed);
	store_close(&r.f);
	return err ? EXIT_FAIL : EXIT_OK;
}
