// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>
#include "format/family_meta.h"
#include "format/steal.h"
#include "out/head.h"
#include "out/output.h"

#define MAX_FAMILIES	32

const char *out_family_line(const struct profile *p, const char *family, char *buf, size_t len)
{
	struct family_status st;

	family_meta_read(p, family, &st);
	return family_status_line(&st, buf, len);
}

/* The families after locks and sample, in the order recorded: how many. */
static size_t other_families(const struct profile *p, char (*names)[32], size_t max)
{
	size_t i, n = family_meta_names(p, names, max), kept = 0;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], family_name(FAMILY_LOCKS)) &&
		    strcmp(names[i], family_name(FAMILY_SAMPLE)))
			memmove(names[kept++], names[i], sizeof(names[0]));
	return kept;
}

static void text_probes(FILE *f, const struct profile *p)
{
	char line[600], names[MAX_FAMILIES][32];
	struct family_status st;
	size_t i, n;

	fprintf_printable(f, "# probes: contention=%s",
			  out_family_line(p, family_name(FAMILY_LOCKS), line, sizeof(line)));
	fprintf_printable(f, " sample=%s", out_family_line(p, family_name(FAMILY_SAMPLE), line, sizeof(line)));
	n = other_families(p, names, MAX_FAMILIES);
	for (i = 0; i < n; i++) {	/* the other families that were recorded */
		family_meta_read(p, names[i], &st);
		if (st.state != FSTATE_NOT_WANTED)
			fprintf_printable(f, " %s=%s", family_legacy_name(names[i]),
					  family_status_line(&st, line, sizeof(line)));
	}
	fprintf(f, "\n");
}

const char *out_steal_line(const struct steal_summary *s, char *buf, size_t len)
{
	char total[32], most[32], tick[32], pct[48] = "";
	int n;

	if (!s->recorded) {
		snprintf(buf, len, "not recorded");
		return buf;
	}
	fmt_ns(total, sizeof(total), s->total_ns);
	fmt_ns(tick, sizeof(tick), s->tick_ns);
	if (s->cpu_time_ns)
		snprintf(pct, sizeof(pct), " (%.2f %% of CPU time)", 100.0 * s->total_ns / s->cpu_time_ns);
	n = snprintf(buf, len, "%s%s", total, pct);
	if (s->max_iv_cpu >= 0 && n >= 0 && (size_t)n < len) {
		fmt_ns(most, sizeof(most), s->max_iv_ns);
		n += snprintf(buf + n, len - n, ", at most %s in one interval on cpu%d", most, s->max_iv_cpu);
	}
	/* Where none was ever counted, a zero says nothing of the host. */
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "; counted in %s ticks%s", tick,
			 s->boot_ns ? "" : ", none since boot: the host may not report it");
	return buf;
}

static void verdict_too_little(const struct steal_summary *s, char *buf, size_t len)
{
	char total[32];
	int n;

	fmt_ns(total, sizeof(total), s->total_ns);
	if (s->total_ns)
		n = snprintf(buf, len, "only %s of steal in the recording, too little to explain it: "
			     "an accounting error, please report it", total);
	else
		n = snprintf(buf, len, "no steal was recorded: an accounting error, please report it");
	if (!s->boot_ns && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (unless the host does not report steal: this machine "
			 "counted none since boot)");
}

const char *out_steal_verdict(const struct steal_summary *s, enum steal_verdict v, char *buf, size_t len)
{
	char total[32], bound[32];

	fmt_ns(total, sizeof(total), s->total_ns);
	fmt_ns(bound, sizeof(bound), steal_bound_ns(s));
	if (v == STEAL_NOT_RECORDED)
		snprintf(buf, len, "steal was not recorded (a profile from before lockstat recorded it): "
			 "cannot tell the host's steal from an accounting error");
	else if (v == STEAL_COULD_EXPLAIN && s->total_ns)
		snprintf(buf, len, "%s of steal in the recording could explain it", total);
	else if (v == STEAL_COULD_EXPLAIN)
		snprintf(buf, len, "no steal was recorded, but it is counted in whole ticks: up to %s "
			 "could have gone unseen, which could explain it", bound);
	else if (v == STEAL_TOO_LITTLE)
		verdict_too_little(s, buf, len);
	else
		snprintf(buf, len, "within the limit");
	return buf;
}

static void text_lost(FILE *f, const struct profile *p)
{
	bool any = false;
	size_t i;

	fprintf(f, "# lost:");
	for (i = 0; i < p->nlost; i++) {
		if (strcmp(p->lost[i].value, "0")) {
			fprintf_printable(f, " %s=%s", p->lost[i].key, p->lost[i].value);
			any = true;
		}
	}
	fprintf(f, "%s\n#\n", any ? "" : " none");
}

void out_head__text(FILE *f, const struct profile *p, const char *file)
{
	struct steal_summary steal;
	char dur[32], line[256];

	/* The file's strings (a workload's argv above all) never reach the terminal raw. */
	fmt_ns(dur, sizeof(dur), profile__duration_ns(p));
	fprintf_printable(f, "# lockstat report of %s\n", file);
	fprintf_printable(f, "# kernel %s %s, %s CPUs, %s, target %s%s%s\n",
			  profile__meta_or(p, "kernel", "?"), profile__meta_or(p, "arch", ""),
			  profile__meta_or(p, "cpus", "?"), dur, profile__meta_or(p, "target", "?"),
			  *profile__meta_or(p, "command", "") ? ": " : "", profile__meta_or(p, "command", ""));
	text_probes(f, p);
	if (*profile__meta_or(p, "lock_names", ""))	/* what the recording could name, what not and why */
		fprintf_printable(f, "# lock names: %s\n", profile__meta_or(p, "lock_names", ""));
	if (*profile__meta_or(p, "metric.value", ""))	/* the workload's own figure (record --metric) */
		fprintf_printable(f, "# metric: %s = %s\n", profile__meta_or(p, "metric.name", "metric"),
				  profile__meta_or(p, "metric.value", ""));
	steal_meta_read(p, &steal);
	fprintf(f, "# steal: %s\n", out_steal_line(&steal, line, sizeof(line)));
	text_lost(f, p);
}

/* Every family the profile names, as recorded, each as one line. */
static void json_probes(struct json_writer *jw, const struct profile *p)
{
	char line[600], names[MAX_FAMILIES][32];
	size_t i, n = other_families(p, names, MAX_FAMILIES);

	jw_name(jw, "probes");
	jw_start_object(jw);
	jw_string_field(jw, "contention", out_family_line(p, family_name(FAMILY_LOCKS), line,
							    sizeof(line)));
	jw_string_field(jw, "sample", out_family_line(p, family_name(FAMILY_SAMPLE), line, sizeof(line)));
	for (i = 0; i < n; i++)
		jw_string_field(jw, family_legacy_name(names[i]), out_family_line(p, names[i], line, sizeof(line)));
	jw_end_object(jw);
}

static void json_metric(struct json_writer *jw, const struct profile *p)
{
	jw_name(jw, "metric");	/* the workload's own figure (record --metric), or null */
	if (!*profile__meta_or(p, "metric.value", "")) {
		jw_null(jw);
		return;
	}
	jw_start_object(jw);
	jw_string_field(jw, "name", profile__meta_or(p, "metric.name", "metric"));
	jw_double_field(jw, "value", strtod(profile__meta_or(p, "metric.value", ""), NULL));
	jw_end_object(jw);
}

/* Each CPU's "CPU:TOTAL_NS:MAX_INTERVAL_NS" as an object; a malformed entry ends the list. */
static void json_steal_per_cpu(struct json_writer *jw, const char *list)
{
	unsigned long long total, most;
	unsigned int cpu;
	int used;

	jw_name(jw, "per_cpu");
	jw_start_array(jw);
	while (sscanf(list, " %u:%llu:%llu%n", &cpu, &total, &most, &used) == 3) {
		jw_start_object(jw);
		jw_u64_field(jw, "cpu", cpu);
		jw_u64_field(jw, "total_ns", total);
		jw_u64_field(jw, "max_interval_ns", most);
		jw_end_object(jw);
		list += used;
	}
	jw_end_array(jw);
}

/* The recording's steal (null: not recorded), as out_steal_line() says it. */
static void json_steal(struct json_writer *jw, const struct profile *p)
{
	struct steal_summary s;

	steal_meta_read(p, &s);
	jw_name(jw, "steal");
	if (!s.recorded) {
		jw_null(jw);
		return;
	}
	jw_start_object(jw);
	jw_u64_field(jw, "total_ns", s.total_ns);
	jw_u64_field(jw, "cpu_time_ns", s.cpu_time_ns);
	jw_double_field(jw, "pct_cpu_time", s.cpu_time_ns ? 100.0 * s.total_ns / s.cpu_time_ns : 0);
	jw_u64_field(jw, "max_interval_ns", s.max_iv_ns);
	if (s.max_iv_cpu >= 0)
		jw_u64_field(jw, "max_interval_cpu", s.max_iv_cpu);
	else
		jw_null_field(jw, "max_interval_cpu");
	jw_u64_field(jw, "interval_ns", s.interval_ns);
	jw_u64_field(jw, "tick_ns", s.tick_ns);
	jw_u64_field(jw, "cpus", s.ncpus);
	jw_u64_field(jw, "since_boot_ns", s.boot_ns);
	jw_u64_field(jw, "bound_ns", steal_bound_ns(&s));
	json_steal_per_cpu(jw, s.per_cpu);
	jw_end_object(jw);
}

void out_head__json(struct json_writer *jw, const struct profile *p, const char *file)
{
	jw_name(jw, "meta");
	jw_start_object(jw);
	jw_string_field(jw, "file", file);
	jw_string_field(jw, "kernel", profile__meta_or(p, "kernel", ""));
	jw_string_field(jw, "arch", profile__meta_or(p, "arch", ""));
	jw_u64_field(jw, "cpus", strtoull(profile__meta_or(p, "cpus", "0"), NULL, 10));
	jw_u64_field(jw, "duration_ns", profile__duration_ns(p));
	jw_string_field(jw, "command", profile__meta_or(p, "command", ""));
	jw_string_field(jw, "target", profile__meta_or(p, "target", ""));
	jw_string_field(jw, "start_time", profile__meta_or(p, "start_time", ""));
	jw_bool_field(jw, "per_task", !strcmp(profile__meta_or(p, "per_task", "0"), "1"));
	jw_u64_field(jw, "stack_rate", strtoull(profile__meta_or(p, "stack_rate", "0"), NULL, 10));
	jw_u64_field(jw, "stack_thin_ns", strtoull(profile__meta_or(p, "stack_thin_ns", "0"), NULL, 10));
	jw_bool_field(jw, "complete", p->has_end && p->stop == WALK_EOF);
	if (p->has_end)
		jw_i64_field(jw, "exit_status", p->end_exit_status);
	json_metric(jw, p);
	json_probes(jw, p);
	jw_string_field(jw, "lock_names", profile__meta_or(p, "lock_names", ""));
	json_steal(jw, p);
	jw_end_object(jw);
}

void out_lost__json(struct json_writer *jw, const struct profile *p)
{
	size_t i;

	jw_name(jw, "lost");
	jw_start_object(jw);
	for (i = 0; i < p->nlost; i++)
		jw_u64_field(jw, p->lost[i].key, strtoull(p->lost[i].value, NULL, 10));
	jw_end_object(jw);
}

void out_head(struct out_doc *d, const struct profile *p, const char *file)
{
	struct json_writer *jw = out_doc__jw(d);

	if (out_doc__format(d) == OUT_TEXT)
		out_head__text(out_doc__file(d), p, file);
	if (jw) {
		out_head__json(jw, p, file);
		out_lost__json(jw, p);
	}
}
