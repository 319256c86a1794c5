// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a recording says at its end (tool/say.h): its losses, steal time,
 * the probes' costs and lockstat's own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "base/log.h"
#include "out/head.h"
#include "say.h"

/* What session_write_steal() wrote, for record's summary. */
void session__say_steal(struct session *s)
{
	struct steal_summary sum = { .max_iv_cpu = -1 };
	char line[256];

	if (s->steal.on)
		steal_tracker__summary(&s->steal.tracker, &sum);
	pr_notice("steal: %s%s%s\n", out_steal_line(&sum, line, sizeof(line)),
		  s->steal.on ? "" : ": ", s->steal.on ? "" : strerror(-s->steal.err));
}

/*
 * What the probes cost, measured by the kernel (kernel.bpf_stats): over
 * the whole recording, or over the tenth of it that the stats were on.
 */
static void say_probe_costs(const struct session *s)
{
	struct probe_cost pc[PROBE_COSTS_MAX];
	double secs = (s->last_t - s->t0) / 1e9;
	uint64_t measured = collector__stats_ns(s->col, s->last_t);
	int i, n;

	if (collector__stats_cycled(s->col))
		pr_notice("probe costs measured over %.2f s of the %.2f s (kernel.bpf_stats on %d ms of every %d)\n",
			  measured / 1e9, secs, STATS_ON_MS, STATS_PERIOD_MS);
	if (measured)
		secs = measured / 1e9;

	n = collector__costs(s->col, pc, PROBE_COSTS_MAX);
	if (n == -EOPNOTSUPP)
		return;
	if (n < 0) {
		pr_warn("probe cost unknown: %s\n", strerror(-n));
		return;
	}
	for (i = 0; i < n && secs > 0; i++) {
		double rate = pc[i].events / secs;
		double ns = pc[i].events ? (double)pc[i].run_ns / pc[i].events : 0;

		pr_notice("probe cost: %-9s %10.0f events/s x %6.0f ns = %5.2f %% of one CPU\n",
			  pc[i].name, rate, ns, pc[i].run_ns / secs / 1e7);
	}
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

/*
 * lockstat's own CPU time from session__start() on (getrusage: user and
 * system), where it went: the drains, and the end (the last drain and
 * the user symbols); and its peak resident memory (ru_maxrss), the end's
 * included, which no sampling of /proc/PID/status can promise to see.
 */
static void say_own_cpu(const struct session *s)
{
	double wall = (now_ns() - s->self.wall_start) / 1e9, user, sys;
	uint64_t buckets = s->self.nbuckets ? s->self.nbuckets : 1;
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) || wall <= 0)
		return;
	user = tv_s(&ru.ru_utime) - tv_s(&s->self.ru_start.ru_utime);
	sys = tv_s(&ru.ru_stime) - tv_s(&s->self.ru_start.ru_stime);
	pr_notice("own CPU: %.3f s (user %.3f + sys %.3f) in %.2f s = %.2f %% of one CPU; "
		  "drains %.2f ms a bucket (%" PRIu64 " buckets, %" PRIu64 " map entries read a bucket), "
		  "the end %.3f s in %.2f s; peak RSS %.1f MiB\n", user + sys, user, sys, wall,
		  100 * (user + sys) / wall, s->self.drain_cpu_ns / 1e6 / buckets, s->self.nbuckets,
		  collector__entries_read(s->col) / (buckets + 1), s->self.finish_cpu_ns / 1e9,
		  s->self.finish_ns / 1e9, ru.ru_maxrss / 1024.0);
}

/*
 * The loss counters that are not zero, as the report's header lists
 * them, said where they happen: a notice, as a stack collision or two
 * is routine; their sizes tell the rest.
 */
void session__say_lost(const struct session *s)
{
	struct lost_counter lc[MAX_LOST];
	size_t i, len = 0, n = collector__lost(s->col, lc, MAX_LOST);
	char line[1024];
	int w;

	line[0] = '\0';
	for (i = 0; i < n && len < sizeof(line); i++) {
		if (lc[i].value == s->lost.base[i])
			continue;
		w = snprintf(line + len, sizeof(line) - len, " %s=%" PRIu64, lc[i].name,
			     lc[i].value - s->lost.base[i]);
		if (w > 0)
			len += w;
	}
	/* The families' tables of losses, as report --view tables names them. */
	for (i = 0; i < s->lost.ntables && len < sizeof(line); i++) {
		const struct table_lost *t = &s->lost.tables[i];

		if (!t->value)
			continue;
		w = snprintf(line + len, sizeof(line) - len, " %s.%s=%" PRIu64, t->schema->name,
			     t->schema->cols[t->col].name, t->value);
		if (w > 0)
			len += w;
	}
	if (len)
		pr_notice("lost:%s (lockstat-record(1), LOSSES)\n", line);
}

void session__say_costs(const struct session *s)
{
	say_probe_costs(s);
	say_own_cpu(s);
}
