// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report --cost: the recording's cost ledger (format/cost.h),
 * what the probes, lockstat itself and the workload used, and the
 * overhead derived from them. Text and JSON show the same figures;
 * JSON in ns, text in seconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include "base/log.h"
#include "format/cost.h"
#include "report.h"

static double secs(double ns)
{
	return ns / 1e9;
}

static void text_probes(FILE *f, const struct cost_ledger *l)
{
	size_t i;

	if (!l->probes_known) {
		fprintf(f, "  probes:        not measured (kernel.bpf_stats could not be turned on)\n");
		return;
	}
	fprintf(f, "  probes:        %.3f s of BPF run time (kernel.bpf_stats on %.3f s of the %.3f s%s)\n",
		secs(cost_probes_ns(l)), secs(l->measured_ns), secs(l->recording_ns),
		l->measured_ns && l->measured_ns < l->recording_ns ? ", scaled to the whole" : "");
	for (i = 0; i < l->nprobes; i++) {
		const struct cost_probe *pc = &l->probes[i];

		fprintf(f, "    %-10s %12" PRIu64 " events x %6.0f ns = %.3f s\n", pc->name, pc->events,
			pc->events ? (double)pc->run_ns / pc->events : 0, secs(cost_probe_ns(l, pc)));
	}
}

static void print_text(FILE *f, const struct cost_ledger *l)
{
	double rec = secs(l->recording_ns), pct = cost_overhead_pct(l);

	if (!l->recorded) {
		fprintf(f, "cost ledger: not recorded\n");
		return;
	}
	fprintf(f, "cost ledger:\n");
	fprintf(f, "  recording:     %.3f s\n", rec);
	text_probes(f, l);
	fprintf(f, "  own CPU:       start-up %.3f s, steady %.3f s (%.2f ms a second), finish %.3f s\n",
		secs(l->startup_ns), secs(l->steady_ns), rec > 0 ? secs(l->steady_ns) * 1e3 / rec : 0,
		secs(l->finish_ns));
	if (l->workload_known)
		fprintf(f, "  workload CPU:  %.3f s (%s: %s)\n", secs(l->workload_ns), l->source, l->note);
	else
		fprintf(f, "  workload CPU:  unknown (%s: %s)\n", l->source, l->note);
	if (isnan(pct))
		fprintf(f, "  overhead:      unknown\n");
	else
		fprintf(f, "  overhead:      %.2f %% = (probes %.3f s + own steady %.3f s) / workload %.3f s\n",
			pct, secs(cost_probes_ns(l)), secs(l->steady_ns), secs(l->workload_ns));
	fprintf(f, "  not in it:     start-up %.3f s and finish %.3f s, paid once\n",
		secs(l->startup_ns), secs(l->finish_ns));
}

static void json_probes(struct json_writer *jw, const struct cost_ledger *l)
{
	size_t i;

	jw_name(jw, "probes");
	if (!l->probes_known) {
		jw_null(jw);
		return;
	}
	jw_start_object(jw);
	jw_u64_field(jw, "measured_ns", l->measured_ns);
	jw_u64_field(jw, "bpf_ns", llround(cost_probes_ns(l)));
	jw_name(jw, "sets");
	jw_start_array(jw);
	for (i = 0; i < l->nprobes; i++) {
		jw_start_object(jw);
		jw_string_field(jw, "name", l->probes[i].name);
		jw_u64_field(jw, "events", l->probes[i].events);
		jw_u64_field(jw, "run_ns", l->probes[i].run_ns);
		jw_u64_field(jw, "bpf_ns", llround(cost_probe_ns(l, &l->probes[i])));
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

static void print_json(struct json_writer *jw, const struct cost_ledger *l)
{
	double pct = cost_overhead_pct(l);

	jw_name(jw, "cost");
	jw_start_object(jw);
	jw_bool_field(jw, "recorded", l->recorded);
	if (l->recorded) {
		jw_u64_field(jw, "recording_ns", l->recording_ns);
		json_probes(jw, l);
		jw_name(jw, "own");
		jw_start_object(jw);
		jw_u64_field(jw, "startup_ns", l->startup_ns);
		jw_u64_field(jw, "steady_ns", l->steady_ns);
		jw_u64_field(jw, "finish_ns", l->finish_ns);
		jw_end_object(jw);
		jw_name(jw, "workload");
		jw_start_object(jw);
		jw_string_field(jw, "source", l->source);
		if (l->workload_known)
			jw_u64_field(jw, "cpu_ns", l->workload_ns);
		else
			jw_null_field(jw, "cpu_ns");
		jw_string_field(jw, "note", l->note);
		jw_end_object(jw);
		if (isnan(pct))
			jw_null_field(jw, "overhead_pct");
		else
			jw_double_field(jw, "overhead_pct", pct);
	}
	jw_end_object(jw);
}

int print_cost(const struct report *r)
{
	struct cost_ledger l;
	struct out_doc *d;

	cost_meta_read(r->p, &l);
	d = report__doc(r);
	if (!d)
		return -ENOMEM;
	if (out_doc__format(d) == OUT_JSON)
		print_json(out_doc__jw(d), &l);
	else
		print_text(out_doc__file(d), &l);
	out_doc__free(d);
	return 0;
}
