// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What top's two drivers (top-live.c, top-replay.c) share: a new interval
 * becomes a snapshot that is drawn or printed, and the UI's requests are
 * carried out.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "base/clock.h"
#include "out/output.h"
#include "run/session.h"
#include "top.h"

static const double ladder[] = { 0.25, 0.5, 1, 2, 3, 5, 10, 15, 30, 60 };

#define NLADDER	(sizeof(ladder) / sizeof(ladder[0]))

double top__next_interval(double secs, int step)
{
	size_t i;

	/* An -i off the ladder's ends stays where it is rather than jump back. */
	if (step > 0) {
		for (i = 0; i < NLADDER; i++)
			if (ladder[i] > secs + 1e-9)
				return ladder[i];
		return secs;
	}
	for (i = NLADDER; i-- > 0;)
		if (ladder[i] < secs - 1e-9)
			return ladder[i];
	return secs;
}

bool top__enough(const struct top *t)
{
	return (t->o.iterations && t->shown >= t->o.iterations) || t->stdout_failed;
}

#define MIN_SELF_WALL_NS	(50 * 1000 * 1000ULL)

static uint64_t tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * NSEC_PER_SEC + tv->tv_usec * 1000ULL;
}

/* lockstat's own CPU time since the last interval, in % of one CPU. */
static double self_cpu(struct top *t)
{
	struct rusage ru;
	uint64_t cpu, wall = now_ns();
	double pct = NAN;

	getrusage(RUSAGE_SELF, &ru);
	cpu = tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime);
	/* Over a few milliseconds (a replay at full speed) the ratio means nothing. */
	if (t->self_wall_ns && wall > t->self_wall_ns + MIN_SELF_WALL_NS)
		pct = 100.0 * (cpu - t->self_cpu_ns) / (wall - t->self_wall_ns);
	t->self_cpu_ns = cpu;
	t->self_wall_ns = wall;
	return pct;
}

void top__mark(struct top *t)
{
	self_cpu(t);
}

static bool tables_shown(const struct top *t)
{
	enum top_view v = t->ui.view >= TV__MAIN ? t->ui.back : t->ui.view;

	return t->o.out != TOP_CURSES || v == TV_TABLES;
}

int top__rebuild(struct top *t)
{
	struct top_snap *s, *old = t->snap;
	int err;

	t->q.tables = tables_shown(t);	/* the costly section only when seen */
	err = top_snap__build(&s, &t->model, &t->q);

	if (err) {
		snprintf(t->ui.message, sizeof(t->ui.message), "building the view: %s", strerror(-err));
		return err;
	}
	if (old) {	/* the header's figures belong to the interval, not to the query */
		s->events_per_s = old->events_per_s;
		s->probe_pct = old->probe_pct;
		s->self_pct = old->self_pct;
		s->steal_known = old->steal_known;
		s->steal_ns = old->steal_ns;
		s->final = old->final;
	}
	top_snap__sort_locks(s, t->o.lock_key);
	top_snap__sort_funcs(s, t->o.func_key);
	top_snap__free(old);
	t->snap = s;
	top_ui__follow(t);
	return 0;
}

const char *top_steal_text(char *buf, size_t len, const struct top_snap *s)
{
	char ns[32];
	double cpu_ns = (double)s->iv_ns * s->cpus;

	fmt_ns(ns, sizeof(ns), s->steal_ns);
	snprintf(buf, len, "%s (%.2f %% of CPU time)", ns, cpu_ns > 0 ? 100.0 * s->steal_ns / cpu_ns : 0);
	return buf;
}

void top__show(struct top *t)
{
	if (t->o.out == TOP_CURSES)
		top_ui__draw(t);
	else
		top_batch__print(t);
}

int top__interval(struct top *t, double events_per_s, double probe_pct)
{
	struct top_snap *s;
	int err;

	if (t->o.out == TOP_CURSES && t->ui.paused && !t->final)
		return 0;
	err = top__rebuild(t);
	if (err)
		return err;
	s = t->snap;
	/* Without kernel.bpf_stats, the events are the waits and samples counted. */
	s->events_per_s = events_per_s >= 0 ? events_per_s :
			  per_s(s->locks_iv.count + s->samples_iv, s->iv_ns);
	s->probe_pct = probe_pct;
	s->self_pct = self_cpu(t);
	s->steal_known = t->steal_known;
	s->steal_ns = t->steal_iv_ns;
	s->final = t->final;
	t->shown++;
	top__show(t);
	/* main() reports it when top ends (finish_stdout) */
	t->stdout_failed = t->o.out != TOP_CURSES && ferror(stdout);
	return 0;
}

void top__apply(struct top *t, void (*set_interval)(void *ctx, double secs), void *ctx)
{
	if (t->ui.reset) {
		top_model__reset(&t->model);
		t->ui.reset = false;
		t->ui.rebuild = true;
	}
	if (t->ui.interval_step) {
		t->o.interval = top__next_interval(t->o.interval, t->ui.interval_step);
		t->ui.interval_step = 0;
		set_interval(ctx, t->o.interval);
		snprintf(t->ui.message, sizeof(t->ui.message), "every %g s from the next refresh", t->o.interval);
	}
	if (t->ui.rebuild) {
		t->ui.rebuild = false;
		top__rebuild(t);
	}
	if (t->ui.redraw)
		top_ui__draw(t);
}
