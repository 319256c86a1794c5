// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top live: the session of record (lib/run/session.h) with two hooks. After
 * every bucket, the user PCs seen are symbolized, the chunks the bucket
 * added to the profile are read back into the model, and a snapshot is
 * shown; between buckets, the keys. The bucket is the interval, so each
 * interval is exactly one drain of the kernel's maps.
 *
 * This is the only part of top that sees the collector, and only for the
 * probes' cost shown in the header.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include "base/exitcode.h"
#include "base/log.h"
#include "run/session.h"
#include "top.h"

struct live {
	struct top *t;
	struct session *s;
	uint64_t events;	/* the probes' totals at the last measured interval */
	uint64_t run_ns;
	uint64_t measured;	/* how long kernel.bpf_stats had been on then */
	bool started;
	bool have_costs;	/* a measured interval came */
	double events_per_s;	/* and what it measured */
	double pct;
	uint64_t steal_ns;	/* the recording's steal at the last interval */
	int err;
};

/* The host's steal since the last interval, for the header (lockstat-record(1), Steal time). */
static void steal_since(struct live *l)
{
	uint64_t now;

	l->t->steal_known = !session__steal_ns(l->s, &now);
	l->t->steal_iv_ns = l->t->steal_known && now >= l->steal_ns ? now - l->steal_ns : 0;
	l->steal_ns = now;
}

/*
 * The probes' runs and their cost since the last interval the stats were
 * on in: an interval shorter than their period (250 ms) may have none,
 * and keeps the figures of the last one that had. False when not measured.
 */
static bool probe_costs(struct live *l, double *events_per_s, double *pct)
{
	struct probe_cost pc[PROBE_COSTS_MAX];
	uint64_t events = 0, run_ns = 0, measured = collector__stats_ns(l->s->col, now_ns());
	int i, n = collector__costs(l->s->col, pc, PROBE_COSTS_MAX);

	for (i = 0; i < n; i++) {
		events += pc[i].events;
		run_ns += pc[i].run_ns;
	}
	if (n <= 0)
		return false;
	if (l->started && measured > l->measured) {
		l->events_per_s = (events - l->events) * 1e9 / (measured - l->measured);
		l->pct = 100.0 * (run_ns - l->run_ns) / (measured - l->measured);
		l->have_costs = true;
	}
	if (!l->started || measured > l->measured) {
		l->events = events;
		l->run_ns = run_ns;
		l->measured = measured;
		l->started = true;
	}
	*events_per_s = l->events_per_s;
	*pct = l->pct;
	return l->have_costs;
}

static int read_back(struct live *l)
{
	int err = top_model__read_fd(&l->t->model, l->s->fd, !l->s->o.output);

	if (err && !l->err) {
		pr_err("%s\n", l->t->model.err);
		l->err = err;
	}
	return err;
}

static double ms_since(uint64_t *at)
{
	uint64_t now = now_ns(), was = *at;

	*at = now;
	return (now - was) / 1e6;
}

/* -vv: where an interval's time goes (lockstat-top(1) discusses the cost). */
static void interval(struct live *l)
{
	double events = -1, pct = NAN, usyms, read, show;
	uint64_t at = now_ns(), bytes = l->t->model.base + l->t->model.npending;

	session__write_usyms(l->s);
	usyms = ms_since(&at);
	top_model__next_interval(&l->t->model);
	if (read_back(l)) {
		session__stop(l->s);
		return;
	}
	read = ms_since(&at);
	bytes = l->t->model.base + l->t->model.npending - bytes;
	if (!probe_costs(l, &events, &pct))
		events = -1;
	steal_since(l);
	top__interval(l->t, events, pct);
	show = ms_since(&at);
	pr_debug("interval: drain %.2f ms, user symbols %.2f ms, read back %llu bytes in %.2f ms, snapshot and show %.2f ms\n",
		 l->s->self.drain_ns / 1e6, usyms, (unsigned long long)bytes, read, show);
	if (top__enough(l->t))
		session__stop(l->s);
}

static void on_bucket(void *ctx)
{
	interval(ctx);
}

static void set_interval(void *ctx, double secs)
{
	struct live *l = ctx;

	session__set_bucket(l->s, secs);
	l->s->o.usyms_budget_ns = secs * NSEC_PER_SEC / 100;
}

static void on_input(void *ctx)
{
	struct live *l = ctx;

	top_ui__keys(l->t);
	top__apply(l->t, set_interval, l);
	if (l->t->ui.quit)
		session__stop(l->s);
}

static void on_signal(void *ctx, int signo)
{
	struct live *l = ctx;

	if (signo != SIGWINCH)
		return;
	term__resize();
	top_ui__draw(l->t);
}

/*
 * The last, partial interval: what the final drain and the workload's end
 * added. On the screen it joins the interval before it, which a few
 * milliseconds of remainder would only blank out; printed, it stays apart,
 * so that the intervals still add up to the total.
 */
static void last_interval(struct live *l)
{
	const struct top_snap *prev = l->t->snap;
	bool screen = l->t->o.out == TOP_CURSES;
	double events = screen && prev ? prev->events_per_s : -1;
	double pct = screen && prev ? prev->probe_pct : NAN;

	if (!screen || !prev)
		top_model__next_interval(&l->t->model);
	if (read_back(l))
		return;
	l->t->final = true;
	l->t->ui.paused = false;
	steal_since(l);
	top__interval(l->t, events, pct);
}

static void no_interval(void *ctx, double secs)
{
	(void)ctx;
	(void)secs;
}

/*
 * The workload ended, or -d did: the full-screen view keeps the final
 * snapshot until q or a signal, for a last look.
 */
static void linger(struct live *l)
{
	struct pollfd pfd[2] = { { l->s->sigfd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
	struct signalfd_siginfo si;

	while (!l->t->ui.quit && poll(pfd, 2, -1) >= 0) {
		while (read(l->s->sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGWINCH) {
				term__resize();
				top_ui__draw(l->t);
			} else if (si.ssi_signo != SIGCHLD) {
				return;
			}
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			top_ui__keys(l->t);
			top__apply(l->t, no_interval, l);
		}
		if (pfd[1].revents & (POLLHUP | POLLERR))
			return;
	}
}

/* q, Ctrl-C or -n: the user is done. Otherwise the session ended by itself. */
static bool user_stopped(const struct live *l)
{
	return l->t->ui.quit || l->s->signals || top__enough(l->t) || l->err;
}

int top_live(struct top *t, struct session *s)
{
	struct live l = { .t = t, .s = s };
	struct session_hooks hooks = {
		.input_fd = t->o.out == TOP_CURSES ? STDIN_FILENO : -1,
		.on_input = on_input, .on_bucket = on_bucket, .on_signal = on_signal, .ctx = &l,
	};
	int code;

	s->hooks = &hooks;
	code = session__start(s);
	if (code)
		return code;
	probe_costs(&l, &(double){ 0 }, &(double){ 0 });
	if (t->o.out == TOP_CURSES && term__start()) {
		session__stop(s);
		l.err = -ENOTTY;
	}
	top_ui__draw(t);
	top__mark(t);
	session__run(s);
	if (user_stopped(&l))
		term__end();	/* the terminal first: stopping the workload may take seconds */
	session__finish(s);
	if (!user_stopped(&l) || (t->o.out != TOP_CURSES && !l.err && !top__enough(t)))
		last_interval(&l);
	if (term__active())
		linger(&l);
	term__end();
	if (l.err || s->write_err)
		return EXIT_FAIL;
	return s->wl_ended ? workload__exit_code(&s->wl) : EXIT_OK;
}
