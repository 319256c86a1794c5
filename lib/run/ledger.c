// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The recording's cost ledger (format/cost.h): lockstat's own CPU split
 * at the workload's release and at the recording's end, the workload's
 * CPU read from the source that fits the target, and the probes' costs
 * as the collector measured them, written as the META keys cost.*.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/log.h"
#include "format/cost.h"
#include "record/cpu_read.h"
#include "run/session_int.h"

static double tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1e9 + tv->tv_usec * 1e3;
}

/* The targets' CPU time now: -p's process, the cgroup's, or the machine's. */
static int read_workload(const struct session *s, uint64_t *ns)
{
	if (s->o.pid)
		return cpu_read_pid_ns(s->o.pid, ns);
	if (s->o.cgroup)
		return cpu_read_cgroup_ns(s->cgroup.fd, ns);
	if (s->o.system_wide)
		return cpu_read_machine_ns(ns);
	return -ENODATA;	/* a command: its rusage, once it has exited */
}

void session_ledger_start(struct session *s)
{
	struct session_ledger *l = &s->ledger;

	l->startup_ns = session_cpu_ns();
	l->started = true;
	l->wl_ok = !read_workload(s, &l->wl_first);
	l->wl_last = l->wl_first;
}

void session_ledger_sample(struct session *s)
{
	struct session_ledger *l = &s->ledger;
	uint64_t ns;

	if (!s->o.pid || !l->wl_ok || l->wl_gone)
		return;
	if (read_workload(s, &ns))
		l->wl_gone = true;
	else
		l->wl_last = ns;
}

void session_ledger_stop(struct session *s)
{
	struct session_ledger *l = &s->ledger;
	uint64_t ns;

	l->stop_cpu_ns = session_cpu_ns();
	if (!l->wl_ok || l->wl_gone)
		return;
	if (read_workload(s, &ns))
		l->wl_gone = true;
	else
		l->wl_last = ns;
}

static const char *source_of(const struct session *s)
{
	if (s->o.pid)
		return "pid";
	if (s->o.cgroup)
		return "cgroup";
	return s->o.system_wide ? "system" : "command";
}

/*
 * The targets' CPU from a growth d of their counter: the machine's busy
 * time holds lockstat's own (own over the same time), left out.
 */
static uint64_t targets_ns(const struct session *s, uint64_t d, uint64_t own)
{
	if (strcmp(source_of(s), "system"))
		return d;
	return d > own ? d - own : 0;
}

int session__ledger_now(const struct session *s, uint64_t *startup_ns, uint64_t *workload_ns,
			const char **source)
{
	const struct session_ledger *l = &s->ledger;
	uint64_t ns;

	if (!l->started)
		return -ENODATA;
	*startup_ns = l->startup_ns;
	*source = source_of(s);
	if (!l->wl_ok || read_workload(s, &ns) || ns < l->wl_first)
		return -ENODATA;
	*workload_ns = targets_ns(s, ns - l->wl_first, session_cpu_ns() - l->startup_ns);
	return 0;
}

/* The workload's CPU into c, and where it came from; its note in note. */
static void workload_cost(const struct session *s, struct cost_ledger *c, char *note, size_t len)
{
	const struct session_ledger *l = &s->ledger;

	note[0] = '\0';
	c->note = note;
	c->source = source_of(s);
	if (!strcmp(c->source, "command")) {
		c->workload_known = s->wl.exited;
		c->workload_ns = tv_ns(&s->wl.ru.ru_utime) + tv_ns(&s->wl.ru.ru_stime);
		snprintf(note, len, "its rusage: descendants count once waited for");
		return;
	}
	c->workload_known = l->wl_ok && l->wl_last >= l->wl_first;
	if (!l->wl_ok)
		snprintf(note, len, "not measured: the first reading failed");
	else if (s->o.pid)
		snprintf(note, len, "/proc/PID/stat, its threads and waited-for children%s",
			 l->wl_gone ? "; it exited: counted to the last drain" : "");
	else if (s->o.cgroup)
		snprintf(note, len, "cpu.stat usage_usec");
	else
		snprintf(note, len, "/proc/stat busy (no idle, iowait, steal) less lockstat's own");
	c->workload_ns = targets_ns(s, l->wl_last - l->wl_first, l->stop_cpu_ns - l->startup_ns);
}

/* The probes as record's probe cost lines give them: the measured windows' sums. */
static void probe_costs(const struct session *s, struct cost_ledger *c)
{
	struct probe_cost pc[PROBE_COSTS_MAX];
	int i, n = collector__costs(s->col, pc, PROBE_COSTS_MAX);

	c->probes_known = n >= 0;
	c->measured_ns = collector__stats_ns(s->col, s->last_t);
	for (i = 0; i < n && (size_t)i < COST_PROBES_MAX; i++) {
		snprintf(c->probes[i].name, sizeof(c->probes[i].name), "%s", pc[i].name);
		c->probes[i].events = pc[i].events;
		c->probes[i].run_ns = pc[i].run_ns;
		c->nprobes++;
	}
}

void session_write_cost(struct session *s)
{
	const struct session_ledger *l = &s->ledger;
	struct cost_ledger c = { 0 };
	struct cost_meta m;
	char note[160];

	if (l->off || !l->started)
		return;
	c.recording_ns = s->last_t - s->t0;
	c.startup_ns = l->startup_ns;
	c.steady_ns = l->stop_cpu_ns - l->startup_ns;
	c.finish_ns = session_cpu_ns() - l->stop_cpu_ns;
	workload_cost(s, &c, note, sizeof(note));
	probe_costs(s, &c);
	session_note_write(s, pwriter__meta(s->w, m.kv, cost_meta_keys(&c, &m)));
}
