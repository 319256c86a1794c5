// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top without curses: one text snapshot per interval, as top -b, or one
 * JSON object per interval (JSON Lines), for scripts and tests. The text
 * goes through the table formatter, the JSON through the streaming
 * writer, like every other output of lockstat.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "out/output.h"
#include "top.h"

#define CALLERS_SHOWN	3

static size_t shown(const struct top *t, size_t n)
{
	return t->o.rows && t->o.rows < n ? t->o.rows : n;
}

/* --- text ---------------------------------------------------------------- */

static const struct out_col lock_cols[] = {
	{ "contended_per_s", "cont/s", COL_U64, 9, false },
	{ "wait_ns_per_s", "wait/s", COL_NS, 10, false },
	{ "wait_avg_ns", "avg", COL_NS, 10, false },
	{ "wait_max_ns", "max", COL_NS, 10, false },
	{ "wait_pct_cpu", "%cpu", COL_PCT, 6, false },
	{ "contended", "contended", COL_U64, 11, false },
	{ "wait_total_ns", "total wait", COL_NS, 11, false },
	{ "total_max_ns", "max", COL_NS, 10, false },
	{ "type", "type", COL_STR, 11, false },
	{ "name", "lock / caller", COL_STR, 0, true },
};

static const struct out_col func_cols[] = {
	{ "per_s", "hits/s", COL_U64, 9, false },
	{ "percent", "%", COL_PCT, 6, false },
	{ "samples", "hits", COL_U64, 10, false },
	{ "total_percent", "%", COL_PCT, 6, false },
	{ "space", "", COL_STR, 1, false },
	{ "symbol", "function", COL_STR, 28, true },
	{ "module", "module", COL_STR, 0, true },
};

static void text_header(const struct top_snap *s, double interval)
{
	char up[32], iv[32], wait[32], cwait[32];

	fmt_ns(up, sizeof(up), s->elapsed_ns);
	fmt_ns(iv, sizeof(iv), s->iv_ns);
	fprintf_printable(stdout, "lockstat top%s: %s from the start, interval %s (every %g s), %u CPUs, %s%s%s\n",
			  s->final ? " (final)" : "", up, iv, interval, s->cpus, s->target,
			  s->command[0] ? ": " : "", s->command);
	printf("events %.0f/s, lost %llu (%llu in all), probe cost ", s->events_per_s,
	       (unsigned long long)s->lost_iv, (unsigned long long)s->lost_cum);
	if (isnan(s->probe_pct))
		printf("not measured");
	else
		printf("%.2f %% of one CPU", s->probe_pct);
	if (isnan(s->self_pct))
		printf(", lockstat itself not measured\n");
	else
		printf(", lockstat itself %.2f %% of one CPU\n", s->self_pct);
	fmt_ns(wait, sizeof(wait), per_s(s->locks_iv.total_ns, s->iv_ns));
	fmt_ns(cwait, sizeof(cwait), s->locks_cum.total_ns);
	printf("locks: %.0f contended/s, %s wait/s, %.2f %% of CPU time waiting; in all %llu contended, %s\n",
	       per_s(s->locks_iv.count, s->iv_ns), wait, wait_pct(s->locks_iv.total_ns, s->iv_ns, s->cpus),
	       (unsigned long long)s->locks_cum.count, cwait);
}

/* approx: a caller's estimates, marked "~" like report's. */
static void text_lock_row(struct out_table *t, const struct top_snap *s, int indent,
			  const struct top_stat *iv, const struct top_stat *cum, const char *type,
			  const char *name, bool approx)
{
	out_table__row_begin(t, indent);
	if (approx)
		out_table__approx(t);
	out_table__u64(t, per_s(iv->count, s->iv_ns) + 0.5);
	if (approx)
		out_table__approx(t);
	out_table__ns(t, per_s(iv->total_ns, s->iv_ns) + 0.5);
	out_table__ns(t, stat_avg(iv));
	out_table__ns(t, iv->max_ns);
	out_table__pct(t, wait_pct(iv->total_ns, s->iv_ns, s->cpus));
	if (approx)
		out_table__approx(t);
	out_table__u64(t, cum->count);
	if (approx)
		out_table__approx(t);
	out_table__ns(t, cum->total_ns);
	out_table__ns(t, cum->max_ns);
	out_table__str(t, type);
	out_table__str(t, name);
	out_table__row_end(t);
}

static void text_locks(const struct top *t, const struct top_snap *s)
{
	struct out_table *ot = out_table__new(stdout, OUT_TEXT, lock_cols, sizeof(lock_cols) / sizeof(lock_cols[0]));
	size_t i, c;

	for (i = 0; ot && i < shown(t, s->nlocks); i++) {
		const struct top_lock *l = &s->locks[i];

		text_lock_row(ot, s, 0, &l->iv, &l->cum, l->type, l->name, false);
		for (c = 0; c < l->ncallers && c < CALLERS_SHOWN; c++)
			text_lock_row(ot, s, 1, &l->callers[c].iv, &l->callers[c].cum, "", l->callers[c].name,
				      l->callers[c].estimated);
	}
	out_table__free(ot);
}

static void text_funcs(const struct top *t, const struct top_snap *s)
{
	struct out_table *ot;
	size_t i;

	printf("\nfunctions: %.0f samples/s, %.0f %% kernel; in all %llu samples\n",
	       per_s(s->samples_iv, s->iv_ns), s->samples_iv ? 100.0 * s->ksamples_iv / s->samples_iv : 0.0,
	       (unsigned long long)s->samples_cum);
	ot = out_table__new(stdout, OUT_TEXT, func_cols, sizeof(func_cols) / sizeof(func_cols[0]));
	for (i = 0; ot && i < shown(t, s->nfuncs); i++) {
		const struct top_func *f = &s->funcs[i];

		out_table__row_begin(ot, 0);
		out_table__u64(ot, per_s(f->iv, s->iv_ns) + 0.5);
		out_table__pct(ot, s->samples_iv ? 100.0 * f->iv / s->samples_iv : 0);
		out_table__u64(ot, f->cum);
		out_table__pct(ot, s->samples_cum ? 100.0 * f->cum / s->samples_cum : 0);
		out_table__str(ot, f->kernel ? "k" : "u");
		out_table__str(ot, f->function);
		out_table__str(ot, f->module);
		out_table__row_end(ot);
	}
	out_table__free(ot);
}

#define MAX_TCOLS	48

static bool is_ns(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, "_ns");
}

static void text_table(const struct top *t, const struct top_snap *s, const struct top_table *tt)
{
	char heads[MAX_TCOLS][64];
	struct out_col cols[MAX_TCOLS];
	struct out_table *ot;
	uint32_t k, v, n = 0;
	size_t r;

	for (k = 0; k < tt->nkeys && n < MAX_TCOLS; k++)
		cols[n++] = (struct out_col){ tt->key_names[k], tt->key_names[k], COL_STR, 24, true };
	for (v = 0; v < tt->nvals && n + 2 <= MAX_TCOLS; v++) {
		enum col_type type = is_ns(tt->val_names[v]) ? COL_NS : COL_U64;

		snprintf(heads[n], sizeof(heads[n]), "%s%s", tt->val_names[v], tt->val_kinds[v] == TCOL_SUM ? "/s" : "");
		cols[n] = (struct out_col){ heads[n], heads[n], type, 14, false };
		n++;
		cols[n++] = (struct out_col){ tt->val_names[v], tt->val_names[v], type, 12, false };
	}
	cols[n - 1].width = 0;
	fprintf_printable(stdout, "\ntable %s: %zu rows\n", tt->name, tt->total_rows);
	ot = out_table__new(stdout, OUT_TEXT, cols, n);
	for (r = 0; ot && r < shown(t, tt->nrows); r++) {
		out_table__row_begin(ot, 0);
		for (k = 0; k < tt->nkeys && k < MAX_TCOLS; k++)
			out_table__str(ot, tt->rows[r].keys[k]);
		for (v = 0; v < tt->nvals && tt->nkeys + 2 * v + 2 <= MAX_TCOLS; v++) {
			uint64_t iv = tt->val_kinds[v] == TCOL_SUM ? per_s(tt->rows[r].iv[v], s->iv_ns) + 0.5 : tt->rows[r].iv[v];

			if (is_ns(tt->val_names[v])) {
				out_table__ns(ot, iv);
				out_table__ns(ot, tt->rows[r].cum[v]);
			} else {
				out_table__u64(ot, iv);
				out_table__u64(ot, tt->rows[r].cum[v]);
			}
		}
		out_table__row_end(ot);
	}
	out_table__free(ot);
}

static void print_text(const struct top *t, const struct top_snap *s)
{
	size_t i;

	text_header(s, t->o.interval);
	printf("\n");
	text_locks(t, s);
	if (s->has_samples)
		text_funcs(t, s);
	for (i = 0; i < s->ntables; i++)
		if (s->tables[i].nkeys + 2 <= MAX_TCOLS)
			text_table(t, s, &s->tables[i]);
	printf("\n");
}

/* --- JSON ---------------------------------------------------------------------- */

static void json_stat(struct json_writer *jw, const char *name, const struct top_stat *st, uint64_t span,
		      unsigned int cpus)
{
	jw_name(jw, name);
	jw_start_object(jw);
	jw_u64_field(jw, "contended", st->count);
	jw_u64_field(jw, "wait_total_ns", st->total_ns);
	jw_u64_field(jw, "wait_avg_ns", stat_avg(st));
	jw_u64_field(jw, "wait_max_ns", st->max_ns);
	jw_double_field(jw, "contended_per_s", per_s(st->count, span));
	jw_double_field(jw, "wait_ns_per_s", per_s(st->total_ns, span));
	jw_double_field(jw, "wait_pct_cpu", wait_pct(st->total_ns, span, cpus));
	jw_end_object(jw);
}

static void json_header(struct json_writer *jw, const struct top_snap *s)
{
	jw_u64_field(jw, "time_ns", s->elapsed_ns);
	jw_u64_field(jw, "interval_ns", s->iv_ns);
	jw_u64_field(jw, "cumulative_ns", s->cum_ns);
	jw_bool_field(jw, "final", s->final);
	jw_u64_field(jw, "cpus", s->cpus);
	jw_string_field(jw, "target", s->target);
	jw_string_field(jw, "command", s->command);
	jw_double_field(jw, "events_per_s", s->events_per_s);
	jw_double_field(jw, "probe_cost_pct", s->probe_pct);
	jw_double_field(jw, "self_cpu_pct", s->self_pct);
	jw_name(jw, "lost");
	jw_start_object(jw);
	jw_u64_field(jw, "interval", s->lost_iv);
	jw_u64_field(jw, "total", s->lost_cum);
	jw_end_object(jw);
	jw_name(jw, "totals");
	jw_start_object(jw);
	json_stat(jw, "interval", &s->locks_iv, s->iv_ns, s->cpus);
	json_stat(jw, "cumulative", &s->locks_cum, s->cum_ns, s->cpus);
	jw_end_object(jw);
}

static void json_lock(struct json_writer *jw, const struct top_snap *s, const struct top_lock *l)
{
	size_t c;

	jw_start_object(jw);
	jw_string_field(jw, "name", l->name);
	jw_string_field(jw, "type", l->type);
	jw_string_field(jw, "caller", l->caller);
	json_stat(jw, "interval", &l->iv, s->iv_ns, s->cpus);
	json_stat(jw, "cumulative", &l->cum, s->cum_ns, s->cpus);
	jw_name(jw, "callers");
	jw_start_array(jw);
	for (c = 0; c < l->ncallers; c++) {
		jw_start_object(jw);
		jw_string_field(jw, "symbol", l->callers[c].name);
		jw_bool_field(jw, "estimated", l->callers[c].estimated);
		json_stat(jw, "interval", &l->callers[c].iv, s->iv_ns, s->cpus);
		json_stat(jw, "cumulative", &l->callers[c].cum, s->cum_ns, s->cpus);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

static void json_func(struct json_writer *jw, const struct top_snap *s, const struct top_func *f)
{
	jw_start_object(jw);
	jw_string_field(jw, "symbol", f->function);
	jw_string_field(jw, "module", f->module);
	jw_bool_field(jw, "kernel", f->kernel);
	jw_name(jw, "interval");
	jw_start_object(jw);
	jw_u64_field(jw, "samples", f->iv);
	jw_double_field(jw, "per_s", per_s(f->iv, s->iv_ns));
	jw_double_field(jw, "percent", s->samples_iv ? 100.0 * f->iv / s->samples_iv : 0);
	jw_end_object(jw);
	jw_name(jw, "cumulative");
	jw_start_object(jw);
	jw_u64_field(jw, "samples", f->cum);
	jw_double_field(jw, "percent", s->samples_cum ? 100.0 * f->cum / s->samples_cum : 0);
	jw_end_object(jw);
	jw_end_object(jw);
}

static void json_values(struct json_writer *jw, const char *name, const struct top_table *tt,
			const uint64_t *v)
{
	uint32_t i;

	jw_name(jw, name);
	jw_start_object(jw);
	for (i = 0; i < tt->nvals; i++)
		jw_u64_field(jw, tt->val_names[i], v[i]);
	jw_end_object(jw);
}

static void json_table(struct json_writer *jw, const struct top *t, const struct top_table *tt)
{
	size_t r;
	uint32_t k;

	jw_start_object(jw);
	jw_string_field(jw, "name", tt->name);
	jw_u64_field(jw, "rows_total", tt->total_rows);
	jw_name(jw, "rows");
	jw_start_array(jw);
	for (r = 0; r < shown(t, tt->nrows); r++) {
		jw_start_object(jw);
		jw_name(jw, "keys");
		jw_start_object(jw);
		for (k = 0; k < tt->nkeys; k++)
			jw_string_field(jw, tt->key_names[k], tt->rows[r].keys[k]);
		jw_end_object(jw);
		json_values(jw, "interval", tt, tt->rows[r].iv);
		json_values(jw, "cumulative", tt, tt->rows[r].cum);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

static void print_json(const struct top *t, const struct top_snap *s)
{
	struct json_writer *jw = jw_new(stdout, false);
	size_t i;

	if (!jw)
		return;
	jw_start_object(jw);
	json_header(jw, s);
	jw_name(jw, "locks");
	jw_start_array(jw);
	for (i = 0; i < shown(t, s->nlocks); i++)
		json_lock(jw, s, &s->locks[i]);
	jw_end_array(jw);
	jw_name(jw, "functions");
	jw_start_array(jw);
	for (i = 0; i < shown(t, s->nfuncs); i++)
		json_func(jw, s, &s->funcs[i]);
	jw_end_array(jw);
	jw_name(jw, "tables");
	jw_start_array(jw);
	for (i = 0; i < s->ntables; i++)
		json_table(jw, t, &s->tables[i]);
	jw_end_array(jw);
	jw_end_object(jw);
	jw_free(jw);
}

void top_batch__print(struct top *t)
{
	if (!t->snap)
		return;
	if (t->o.out == TOP_JSON)
		print_json(t, t->snap);
	else
		print_text(t, t->snap);
	fflush(stdout);
}
