// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * top without curses: one text snapshot per interval, as top -b, or one
 * JSON object per interval (JSON Lines), for scripts and tests. Both
 * come from the same descriptions of the locks, functions and tables
 * through the table renderer (lib/out/output.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "base/json.h"
#include "out/output.h"
#include "top.h"

#define CALLERS_SHOWN	3	/* text: under each lock; JSON has them all */

static size_t shown(const struct top *t, size_t n)
{
	return t->o.rows && t->o.rows < n ? t->o.rows : n;
}

/* --- the header -------------------------------------------------------------- */

static void text_header(const struct top_snap *s, double interval)
{
	char up[32], iv[32], wait[32], cwait[32], steal[64];

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
		printf(", lockstat itself not measured");
	else
		printf(", lockstat itself %.2f %% of one CPU", s->self_pct);
	if (s->steal_known)
		printf(", steal %s", top_steal_text(steal, sizeof(steal), s));
	printf("\n");
	fmt_ns(wait, sizeof(wait), per_s(s->locks_iv.total_ns, s->iv_ns));
	fmt_ns(cwait, sizeof(cwait), s->locks_cum.total_ns);
	printf("locks: %.0f contended/s, %s wait/s, %.2f %% of CPU time waiting; in all %llu contended, %s\n\n",
	       per_s(s->locks_iv.count, s->iv_ns), wait, wait_pct(s->locks_iv.total_ns, s->iv_ns, s->cpus),
	       (unsigned long long)s->locks_cum.count, cwait);
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
	if (s->steal_known)
		jw_u64_field(jw, "steal_ns", s->steal_ns);
	else
		jw_null_field(jw, "steal_ns");
	jw_name(jw, "lost");
	jw_start_object(jw);
	jw_u64_field(jw, "interval", s->lost_iv);
	jw_u64_field(jw, "total", s->lost_cum);
	jw_end_object(jw);
}

/* --- locks --------------------------------------------------------------------- */

/* A lock's, caller's or the total's figures over one span: the interval, or since the start. */
#define SPAN_COLS(span)								\
	{ span ".contended", NULL, COL_U64 },					\
	{ span ".wait_total_ns", NULL, COL_NS },				\
	{ span ".wait_avg_ns", NULL, COL_NS },					\
	{ span ".wait_max_ns", NULL, COL_NS },					\
	{ span ".contended_per_s", NULL, COL_RATE },				\
	{ span ".wait_ns_per_s", NULL, COL_NS_RATE },				\
	{ span ".wait_pct_cpu", NULL, COL_PCT }

enum { S_CONT, S_WAIT, S_AVG, S_MAX, S_CONT_RATE, S_WAIT_RATE, S_PCT, S__COUNT };
enum { K_NAME, K_TYPE, K_CALLER, K_SYMBOL, K_ESTIMATED, K_IV, K_CUM = K_IV + S__COUNT, K__COUNT = K_CUM + S__COUNT };

static struct out_col lock_cols[K__COUNT] = {
	[K_NAME] = { "name", "lock / caller", COL_STR, 0, true, OUT_TOP },
	[K_TYPE] = { "type", "type", COL_STR, 11, false, OUT_TOP },
	[K_CALLER] = { "caller", NULL, COL_STR, 0, false, OUT_TOP },	/* the one that waited most */
	[K_SYMBOL] = { "symbol", NULL, COL_STR, 0, false, OUT_SUB },
	/* a caller's figures from the sampled stacks, each weighed by 1/p: "~" in text */
	[K_ESTIMATED] = { "estimated", NULL, COL_BOOL, 0, false, OUT_SUB },
	SPAN_COLS("interval"),
	SPAN_COLS("cumulative"),
};

/* Text: the interval's rates, then since the start. */
static const struct {
	int col;
	const char *header;
	int width;
} lock_text[] = {
	{ K_IV + S_CONT_RATE, "cont/s", 9 }, { K_IV + S_WAIT_RATE, "wait/s", 10 },
	{ K_IV + S_AVG, "avg", 10 }, { K_IV + S_MAX, "max", 10 }, { K_IV + S_PCT, "%cpu", 6 },
	{ K_CUM + S_CONT, "contended", 11 }, { K_CUM + S_WAIT, "total wait", 11 },
	{ K_CUM + S_MAX, "max", 10 }, { K_TYPE, "type", 11 }, { K_NAME, "lock / caller", 0 },
};

#define NLOCK_TEXT	(sizeof(lock_text) / sizeof(lock_text[0]))

static struct out_table *lock_table(struct out_doc *d)
{
	struct out_col cols[K__COUNT];
	int order[NLOCK_TEXT];
	struct out_table *t;
	size_t i;

	memcpy(cols, lock_cols, sizeof(cols));
	for (i = 0; i < NLOCK_TEXT; i++) {
		order[i] = lock_text[i].col;
		cols[order[i]].header = lock_text[i].header;
		cols[order[i]].width = lock_text[i].width;
	}
	t = out_doc__table(d, "locks", cols, K__COUNT);
	if (t) {
		out_table__text_order(t, order, NLOCK_TEXT);
		out_table__set_children(t, "callers");
		out_table__set_total(t, "totals", true);
	}
	return t;
}

/* approx: estimates (a sampled caller's), whose counts and sums text marks "~". */
static void put_span(struct out_table *t, const struct top_stat *st, uint64_t span, unsigned int cpus,
		     bool approx)
{
	if (approx)
		out_table__approx(t);
	out_table__u64(t, st->count);
	if (approx)
		out_table__approx(t);
	out_table__ns(t, st->total_ns);
	out_table__ns(t, stat_avg(st));
	out_table__ns(t, st->max_ns);
	if (approx)
		out_table__approx(t);
	out_table__num(t, per_s(st->count, span));
	if (approx)
		out_table__approx(t);
	out_table__num(t, per_s(st->total_ns, span));
	out_table__pct(t, wait_pct(st->total_ns, span, cpus));
}

/* A lock's row (c NULL), or one of its callers'. */
static void put_lock(struct out_table *t, const struct top_snap *s, const struct top_lock *l,
		     const struct top_caller *c)
{
	out_table__row_begin(t, c ? 1 : 0);
	out_table__str(t, l->name);
	out_table__str(t, l->type);
	out_table__str(t, l->caller);
	out_table__str(t, c ? c->name : NULL);
	if (c)
		out_table__bool(t, c->estimated);
	else
		out_table__none(t);
	put_span(t, c ? &c->iv : &l->iv, s->iv_ns, s->cpus, c && c->estimated);
	put_span(t, c ? &c->cum : &l->cum, s->cum_ns, s->cpus, c && c->estimated);
	out_table__row_end(t);
}

static void put_locks(struct out_doc *d, const struct top *t, const struct top_snap *s)
{
	bool json = out_doc__format(d) == OUT_JSON;
	struct out_table *ot = lock_table(d);
	size_t i, c;

	if (!ot)
		return;
	if (json) {	/* text has them in its header */
		out_table__total_begin(ot, NULL);
		out_table__none(ot);
		out_table__none(ot);
		out_table__none(ot);
		out_table__none(ot);
		out_table__none(ot);
		put_span(ot, &s->locks_iv, s->iv_ns, s->cpus, false);
		put_span(ot, &s->locks_cum, s->cum_ns, s->cpus, false);
		out_table__row_end(ot);
	}
	for (i = 0; i < shown(t, s->nlocks); i++) {
		const struct top_lock *l = &s->locks[i];

		put_lock(ot, s, l, NULL);
		for (c = 0; c < l->ncallers && (json || c < CALLERS_SHOWN); c++)
			put_lock(ot, s, l, &l->callers[c]);
	}
	out_table__free(ot);
}

/* --- functions ----------------------------------------------------------------- */

static const struct out_col func_cols[] = {
	{ "symbol", "function", COL_STR, 28, true },
	{ "module", "module", COL_STR, 0, true },
	{ "kernel", NULL, COL_BOOL },
	{ "space", "", COL_STR, 1, false },
	{ "interval.samples", NULL, COL_U64 },
	{ "interval.per_s", "hits/s", COL_RATE, 9, false },
	{ "interval.percent", "%", COL_PCT, 6, false },
	{ "cumulative.samples", "hits", COL_U64, 10, false },
	{ "cumulative.percent", "%", COL_PCT, 6, false },
};

/* Text: hits/s  %  hits  %  k|u  function  module */
static const int func_text[] = { 5, 6, 7, 8, 3, 0, 1 };

static void put_func(struct out_table *t, const struct top_snap *s, const struct top_func *f)
{
	out_table__row_begin(t, 0);
	out_table__str(t, f->function);
	out_table__str(t, f->module);
	out_table__bool(t, f->kernel);
	out_table__str(t, f->kernel ? "k" : "u");
	out_table__u64(t, f->iv);
	out_table__num(t, per_s(f->iv, s->iv_ns));
	out_table__pct(t, s->samples_iv ? 100.0 * f->iv / s->samples_iv : 0);
	out_table__u64(t, f->cum);
	out_table__pct(t, s->samples_cum ? 100.0 * f->cum / s->samples_cum : 0);
	out_table__row_end(t);
}

static void put_funcs(struct out_doc *d, const struct top *t, const struct top_snap *s)
{
	struct out_table *ot;
	size_t i;

	if (out_doc__format(d) == OUT_TEXT) {
		if (!s->has_samples)
			return;
		printf("\nfunctions: %.0f samples/s, %.0f %% kernel; in all %llu samples\n",
		       per_s(s->samples_iv, s->iv_ns), s->samples_iv ? 100.0 * s->ksamples_iv / s->samples_iv : 0.0,
		       (unsigned long long)s->samples_cum);
	}
	ot = out_doc__table(d, "functions", func_cols, sizeof(func_cols) / sizeof(func_cols[0]));
	if (!ot)
		return;
	out_table__text_order(ot, func_text, sizeof(func_text) / sizeof(func_text[0]));
	for (i = 0; i < shown(t, s->nfuncs); i++)
		put_func(ot, s, &s->funcs[i]);
	out_table__free(ot);
}

/* --- the other families' tables ------------------------------------------------ */

#define MAX_TEXT_COLS	48	/* text: the keys, and as many values as fit */

/* keys.NAME for each key, interval.NAME and cumulative.NAME for each value. */
struct tcols {
	struct out_col *cols;
	char (*keys)[80];
	char (*heads)[80];
	int *text;
	int n, ntext;
};

static bool is_ns(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, "_ns");
}

static void tcol(struct tcols *c, const char *group, const char *name, enum col_type type,
		 const char *head, int width)
{
	snprintf(c->keys[c->n], sizeof(c->keys[0]), "%s.%s", group, name);
	snprintf(c->heads[c->n], sizeof(c->heads[0]), "%s", head);
	c->cols[c->n] = (struct out_col){ c->keys[c->n], c->heads[c->n], type, width, type == COL_STR };
	c->n++;
}

static void tcols_free(struct tcols *c)
{
	free(c->cols);
	free(c->keys);
	free(c->heads);
	free(c->text);
}

/*
 * Text: the keys, then for each value its interval (per second for the
 * counts that add up) and its cumulative total side by side, as many as
 * fit in MAX_TEXT_COLS.
 */
static int table_cols(const struct top_table *tt, struct tcols *c)
{
	size_t max = tt->nkeys + 2 * tt->nvals;
	uint32_t k, v;

	c->n = c->ntext = 0;
	c->cols = calloc(max, sizeof(*c->cols));
	c->keys = calloc(max, sizeof(*c->keys));
	c->heads = calloc(max, sizeof(*c->heads));
	c->text = calloc(max, sizeof(*c->text));
	if (!c->cols || !c->keys || !c->heads || !c->text)
		return -ENOMEM;
	for (k = 0; k < tt->nkeys; k++) {
		c->text[c->ntext++] = c->n;
		tcol(c, "keys", tt->key_names[k], COL_STR, tt->key_names[k], 24);
	}
	for (v = 0; v < tt->nvals; v++) {
		char head[80];

		snprintf(head, sizeof(head), "%s%s", tt->val_names[v], tt->val_kinds[v] == TCOL_SUM ? "/s" : "");
		tcol(c, "interval", tt->val_names[v], is_ns(tt->val_names[v]) ? COL_NS : COL_U64, head, 14);
	}
	for (v = 0; v < tt->nvals; v++) {
		if (c->ntext + 2 <= MAX_TEXT_COLS) {
			c->text[c->ntext++] = tt->nkeys + v;
			c->text[c->ntext++] = c->n;
		}
		tcol(c, "cumulative", tt->val_names[v], is_ns(tt->val_names[v]) ? COL_NS : COL_U64,
		     tt->val_names[v], 12);
	}
	if (c->ntext)
		c->cols[c->text[c->ntext - 1]].width = 0;
	return 0;
}

/* The interval's value as text shows it: per second for a count that adds up. */
static void put_iv(struct out_table *t, const struct top_snap *s, const struct top_table *tt, uint32_t v,
		   uint64_t iv)
{
	char buf[32];

	if (tt->val_kinds[v] == TCOL_SUM) {
		uint64_t rate = per_s(iv, s->iv_ns) + 0.5;

		if (is_ns(tt->val_names[v]))
			fmt_ns(buf, sizeof(buf), rate);
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rate);
		out_table__text(t, buf);
	}
	if (is_ns(tt->val_names[v]))
		out_table__ns(t, iv);
	else
		out_table__u64(t, iv);
}

static void json_empty(struct json_writer *jw)
{
	if (jw) {
		jw_start_object(jw);
		jw_end_object(jw);
	}
}

static void put_trow(struct out_table *t, const struct top_snap *s, const struct top_table *tt,
		     const struct top_trow *r)
{
	uint32_t k, v;

	out_table__row_begin(t, 0);
	for (k = 0; k < tt->nkeys; k++)
		out_table__str(t, r->keys[k]);
	for (v = 0; v < tt->nvals; v++)
		put_iv(t, s, tt, v, r->iv[v]);
	for (v = 0; v < tt->nvals; v++) {
		if (is_ns(tt->val_names[v]))
			out_table__ns(t, r->cum[v]);
		else
			out_table__u64(t, r->cum[v]);
	}
	out_table__row_end(t);
	for (v = 0; !tt->nvals && v < 2; v++)	/* a table of keys only (lock_names): empty, still there */
		json_empty(out_table__extra(t, v ? "cumulative" : "interval"));
}

static void put_table(struct out_doc *d, const struct top *t, const struct top_snap *s,
		      const struct top_table *tt)
{
	struct json_writer *jw = out_doc__jw(d);
	struct out_table *ot;
	struct tcols c = { 0 };
	size_t r;

	/* Text without room for a value shows nothing of it. */
	if ((!jw && tt->nkeys + 2 > MAX_TEXT_COLS) || !tt->nkeys || table_cols(tt, &c)) {
		tcols_free(&c);
		return;
	}
	if (jw) {
		jw_start_object(jw);
		jw_string_field(jw, "name", tt->name);
		jw_u64_field(jw, "rows_total", tt->total_rows);
	} else {
		fprintf_printable(stdout, "\ntable %s: %zu rows\n", tt->name, tt->total_rows);
	}
	ot = out_doc__table(d, "rows", c.cols, c.n);
	if (ot)
		out_table__text_order(ot, c.text, c.ntext);
	for (r = 0; ot && r < shown(t, tt->nrows); r++)
		put_trow(ot, s, tt, &tt->rows[r]);
	out_table__free(ot);
	tcols_free(&c);
	if (jw)
		jw_end_object(jw);
}

static void put_tables(struct out_doc *d, const struct top *t, const struct top_snap *s)
{
	struct json_writer *jw = out_doc__jw(d);
	size_t i;

	if (jw) {
		jw_name(jw, "tables");
		jw_start_array(jw);
	}
	for (i = 0; i < s->ntables; i++)
		put_table(d, t, s, &s->tables[i]);
	if (jw)
		jw_end_array(jw);
}

void top_batch__print(struct top *t)
{
	const struct top_snap *s = t->snap;
	struct out_doc *d;

	if (!s)
		return;
	d = out_doc__new(stdout, t->o.out == TOP_JSON ? OUT_JSON : OUT_TEXT, false);
	if (!d)
		return;
	if (out_doc__jw(d))
		json_header(out_doc__jw(d), s);
	else
		text_header(s, t->o.interval);
	put_locks(d, t, s);
	put_funcs(d, t, s);
	put_tables(d, t, s);
	if (!out_doc__jw(d))
		printf("\n");
	out_doc__free(d);
}
