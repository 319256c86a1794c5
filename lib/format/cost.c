// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cost ledger's META keys, written and read back, and the overhead
 * derived from them (lib/format/cost.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/cost.h"

static void put(struct cost_meta *m, size_t *n, const char *key, uint64_t v)
{
	snprintf(m->vals[*n], sizeof(m->vals[*n]), "%" PRIu64, v);
	m->kv[*n] = (struct kv){ (char *)key, m->vals[*n] };
	(*n)++;
}

static void put_str(struct cost_meta *m, size_t *n, const char *key, const char *v)
{
	m->kv[*n] = (struct kv){ (char *)key, (char *)v };
	(*n)++;
}

/* "NAME:EVENTS:RUN_NS", space-separated. */
static void probes_line(const struct cost_ledger *l, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < l->nprobes && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s:%" PRIu64 ":%" PRIu64, i ? " " : "",
				 l->probes[i].name, l->probes[i].events, l->probes[i].run_ns);
}

size_t cost_meta_keys(const struct cost_ledger *l, struct cost_meta *out)
{
	size_t n = 0;

	put(out, &n, "cost.recording_ns", l->recording_ns);
	put(out, &n, "cost.own.startup_ns", l->startup_ns);
	put(out, &n, "cost.own.steady_ns", l->steady_ns);
	put(out, &n, "cost.own.finish_ns", l->finish_ns);
	put_str(out, &n, "cost.workload.source", l->source ? l->source : "");
	if (l->workload_known)
		put(out, &n, "cost.workload.cpu_ns", l->workload_ns);
	if (l->note && *l->note)
		put_str(out, &n, "cost.workload.note", l->note);
	if (l->probes_known) {
		put(out, &n, "cost.probes.measured_ns", l->measured_ns);
		probes_line(l, out->probes, sizeof(out->probes));
		put_str(out, &n, "cost.probes", out->probes);
	}
	return n;
}

/* cost.probes back into l->probes: 0, or -1 for a line that does not parse. */
static int parse_probes(const char *s, struct cost_ledger *l)
{
	while (*s) {
		struct cost_probe *pc = &l->probes[l->nprobes];
		unsigned long long ev, ns;
		int used = 0;

		if (l->nprobes == COST_PROBES_MAX ||
		    sscanf(s, " %15[^: ]:%llu:%llu%n", pc->name, &ev, &ns, &used) != 3)
			return -1;
		pc->events = ev;
		pc->run_ns = ns;
		l->nprobes++;
		s += used;
		while (*s == ' ')
			s++;
	}
	return 0;
}

void cost_meta_read(const struct profile *p, struct cost_ledger *l)
{
	const char *probes = profile__meta(p, "cost.probes");

	memset(l, 0, sizeof(*l));
	if (profile__meta_u64(p, "cost.recording_ns", &l->recording_ns) ||
	    profile__meta_u64(p, "cost.own.startup_ns", &l->startup_ns) ||
	    profile__meta_u64(p, "cost.own.steady_ns", &l->steady_ns) ||
	    profile__meta_u64(p, "cost.own.finish_ns", &l->finish_ns))
		return;
	l->source = profile__meta_or(p, "cost.workload.source", "");
	l->workload_known = !profile__meta_u64(p, "cost.workload.cpu_ns", &l->workload_ns);
	l->note = profile__meta_or(p, "cost.workload.note", "");
	l->probes_known = probes && !profile__meta_u64(p, "cost.probes.measured_ns", &l->measured_ns);
	if (l->probes_known && parse_probes(probes, l))
		return;
	l->recorded = true;
}

double cost_probe_ns(const struct cost_ledger *l, const struct cost_probe *pc)
{
	/* Measured throughout (another tool held the stats on), or not at all: as counted. */
	if (!l->measured_ns || l->measured_ns >= l->recording_ns)
		return pc->run_ns;
	return (double)pc->run_ns * l->recording_ns / l->measured_ns;
}

double cost_probes_ns(const struct cost_ledger *l)
{
	double sum = 0;
	size_t i;

	if (!l->probes_known)
		return NAN;
	for (i = 0; i < l->nprobes; i++)
		sum += cost_probe_ns(l, &l->probes[i]);
	return sum;
}

double cost_overhead_pct(const struct cost_ledger *l)
{
	double probes = cost_probes_ns(l);

	if (!l->recorded || !l->workload_known || !l->workload_ns || isnan(probes))
		return NAN;
	return 100.0 * (probes + l->steady_ns) / l->workload_ns;
}
