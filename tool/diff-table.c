// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat diff as text, JSON or CSV: the rows of the diff model
 * (lib/view/diff.h), each lock with its callers, and the total, from one
 * description of the columns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/json.h"
#include "format/profile.h"
#include "diff.h"

static bool is_wait(const struct diff *d)
{
	return d->o.view == DIFF_VIEW_LOCKS && d->o.value == DIFF_VALUE_WAIT;
}

/* A per-second value for people: "12.30 ms" of wait, or a count. */
static void fmt_rate(char *buf, size_t len, const struct diff *d, double v, bool sign)
{
	char num[24];
	const char *s = sign ? (v < 0 ? "-" : "+") : "";

	if (is_wait(d))
		fmt_ns(num, sizeof(num), (unsigned long long)llround(fabs(v)));
	else
		snprintf(num, sizeof(num), fabs(v) >= 100 ? "%.0f" : "%.2f", fabs(v));
	snprintf(buf, len, "%s%s", v || !sign ? s : "", num);
}

static void fmt_spread(char *buf, size_t len, const struct diff_sum *s)
{
	if (isnan(s->sd) || !(s->mean > 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100 * s->sd / s->mean);
}

static void fmt_pct(char *buf, size_t len, const struct diff_row *r)
{
	if (r->status == DIFF_NEW)
		snprintf(buf, len, "new");
	else if (r->status == DIFF_GONE)
		snprintf(buf, len, "gone");
	else if (isnan(r->pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", r->pct);
}

static void fmt_p(char *buf, size_t len, double q)
{
	if (isnan(q))
		snprintf(buf, len, "-");
	else if (q < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", q);
}

static const char *mark(const struct diff_row *r)
{
	return isnan(r->p) ? "" : r->significant ? "*" : "~";
}

static const char *what_per_second(const struct diff *d)
{
	if (d->o.view == DIFF_VIEW_HITS)
		return "samples";
	return d->o.value == DIFF_VALUE_WAIT ? "wait" : "waits";
}

static void print_side(const char *label, const struct diff_cmd *c, size_t from, size_t n)
{
	double secs = 0;
	size_t i;

	for (i = 0; i < n; i++)
		secs += profile__duration_ns(c->runs[from + i].p) / 1e9;
	fprintf_printable(stdout, "# %-8s %zu run%s, %.2f s each on average, kernel %s:", label, n,
			  n == 1 ? "" : "s", secs / n, profile__meta_or(c->runs[from].p, "kernel", "?"));
	for (i = 0; i < n; i++)
		fprintf_printable(stdout, " %s", c->runs[from + i].path);
	printf("\n");
}

static const char *adjust_name(enum stats_adjust a)
{
	return a == ADJUST_BH ? "Benjamini-Hochberg" : a == ADJUST_HOLM ? "Holm" : "no correction";
}

static void print_test(const struct diff *d)
{
	static const char *const how[] = {
		[DIFF_TEST_WELCH] = "Welch's t on the logarithm of each run's per-second value",
		[DIFF_TEST_MWU] = "Mann-Whitney U on each run's per-second value",
		[DIFF_TEST_POISSON] = "conditional binomial test on the summed counts",
	};

	printf("# test: %s; p adjusted over %zu %s (%s)%s; alpha %g\n", how[d->test], d->ntested,
	       d->o.view == DIFF_VIEW_LOCKS ? "locks" : "functions", adjust_name(d->o.adjust),
	       d->o.view == DIFF_VIEW_LOCKS ? ", callers within their lock" : "", d->o.alpha);
	printf("#       * more than noise, ~ within noise%s\n",
	       d->test == DIFF_TEST_POISSON && d->o.view == DIFF_VIEW_LOCKS &&
	       d->o.value == DIFF_VALUE_WAIT ? "; a lock's wait is tested through its contended count" : "");
	if (d->test == DIFF_TEST_POISSON)
		printf("# one run a side: the test knows counting noise only, not how much the workload varies from run to run; record several runs a side before calling a change real\n");
	if (d->test == DIFF_TEST_MWU && stats_mwu_min_p(d->nb, d->np) > d->o.alpha)
		printf("# with %zu and %zu runs Mann-Whitney cannot give p below %.3f: no row can pass alpha %g\n",
		       d->nb, d->np, stats_mwu_min_p(d->nb, d->np), d->o.alpha);
}

static void fmt_metric_side(char *buf, size_t len, double mean, double sd, size_t n)
{
	if (n > 1 && mean)
		snprintf(buf, len, "%.10g (±%.1f%%, %zu runs)", mean, 100 * sd / fabs(mean), n);
	else
		snprintf(buf, len, "%.10g", mean);
}

static void print_metric(const struct diff *d)
{
	const struct diff_metric *m = &d->metric;
	char b[64], p[64];

	if (!m->name) {
		printf("# metric: none recorded (record --metric REGEX)\n");
		return;
	}
	if (!m->nb || !m->np) {
		fprintf_printable(stdout, "# metric: %s only on the %s side\n", m->name, m->nb ? "base" : "patched");
		return;
	}
	fmt_metric_side(b, sizeof(b), m->base_mean, m->base_sd, m->nb);
	fmt_metric_side(p, sizeof(p), m->patched_mean, m->patched_sd, m->np);
	fprintf_printable(stdout, "# metric: %s %s → %s, %+.1f %%", m->name, b, p, m->pct);
	if (isnan(m->p))
		printf(" (not tested: it needs 2 runs a side)\n");
	else
		printf(", p = %.3g, %s\n", m->p, m->significant ? "significant" : "within noise");
}

/* Left out, said once: a family that some runs did not record is no change. */
static bool not_compared(const struct diff *d, enum diff_family f)
{
	return diff_family_in_view(f, d->o.view) && !diff_family_comparable(&d->fam[f], d->nb, d->np);
}

static void print_not_comparable(const struct diff *d)
{
	char text[256];
	int f;

	for (f = 0; f < DIFF_FAMILY__COUNT; f++) {
		if (!not_compared(d, f))
			continue;
		diff_family_text(text, sizeof(text), f, &d->fam[f], d->nb, d->np);
		printf("# not comparable, left out of the rows and the total: %s\n", text);
	}
}

static void print_diff_header(const struct diff_cmd *c, const struct diff *d)
{
	const char *kb = profile__meta_or(d->runs[0].p, "kernel", "?");
	const char *kp = profile__meta_or(d->runs[d->nb].p, "kernel", "?");

	printf("# lockstat diff: %s, %s per second\n", d->o.view == DIFF_VIEW_LOCKS ? "locks" : "hits",
	       d->o.view == DIFF_VIEW_HITS ? "samples" : is_wait(d) ? "wait time" : "contended waits");
	print_side("base:", c, 0, d->nb);
	print_side("patched:", c, d->nb, d->np);
	print_not_comparable(d);
	if (strcmp(kb, kp))
		printf("# the kernels differ: rows are matched by name, never by address\n");
	print_test(d);
	print_metric(d);
	printf("#\n");
}

/* The rows shown: the first top_n locks or functions, with their callers. */
static bool shown(const struct diff_cmd *c, const struct diff *d, size_t i, size_t *tops)
{
	const struct diff_row *r = &d->rows[d->order[i]];

	if (!r->depth)
		(*tops)++;
	return !c->top_n || *tops <= c->top_n;
}

enum {
	D_ROW, D_NAME, D_DETAIL, D_CALLER, D_STATUS, D_BASE, D_BASE_SD, D_PATCHED, D_PATCHED_SD,
	D_DELTA, D_DELTA_PCT, D_BASE_SHARE, D_PATCHED_SHARE, D_BASE_EVENTS, D_PATCHED_EVENTS,
	D_P, D_Q, D_SIG, D_RATIO, D_BASE_TOTAL, D_PATCHED_TOTAL, D_BASE_RUNS, D_PATCHED_RUNS,
	D_KERNEL, D_SPACE, D__COUNT,
};

/*
 * CSV has them in this order, the ones after D_SIG last, where a script
 * reading CSV by position does not see them move the others; JSON groups
 * the base.* and patched.* ones in an object each, and nests the callers.
 * Text shows each figure in its own form (out_table__text()).
 */
static const struct out_col diff_cols[D__COUNT] = {
	[D_ROW] = { "row", NULL, COL_STR, 0, false, OUT_NO_JSON },
	[D_NAME] = { "name", "lock / caller", COL_STR, 0, true, OUT_TOP, "name" },
	[D_DETAIL] = { "type", "type", COL_STR, 11, false, OUT_TOP, "detail" },
	[D_CALLER] = { "symbol", NULL, COL_STR, 0, false, OUT_SUB, "caller" },
	[D_STATUS] = { "status", NULL, COL_STR },
	[D_BASE] = { "base.per_s", "base/s", COL_NUM, 10, false },
	[D_BASE_SD] = { "base.sd_per_s", "±", COL_NUM, 6, false },
	[D_PATCHED] = { "patched.per_s", "patched/s", COL_NUM, 10, false },
	[D_PATCHED_SD] = { "patched.sd_per_s", "±", COL_NUM, 6, false },
	[D_DELTA] = { "delta_per_s", "change/s", COL_NUM, 10, false },
	[D_DELTA_PCT] = { "delta_pct", "change", COL_NUM, 7, false },
	[D_BASE_SHARE] = { "base.share_pct", "base%", COL_NUM, 6, false },
	[D_PATCHED_SHARE] = { "patched.share_pct", "patch%", COL_NUM, 6, false },
	[D_BASE_EVENTS] = { "base.events", NULL, COL_U64 },
	[D_PATCHED_EVENTS] = { "patched.events", NULL, COL_U64 },
	[D_P] = { "p", NULL, COL_NUM },
	[D_Q] = { "p_adjusted", "p", COL_NUM, 6, false },
	[D_SIG] = { "significant", "", COL_BOOL, 1, false },
	[D_RATIO] = { "ratio", NULL, COL_NUM },
	[D_BASE_TOTAL] = { "base.total", NULL, COL_NUM },
	[D_PATCHED_TOTAL] = { "patched.total", NULL, COL_NUM },
	[D_BASE_RUNS] = { "base.runs_per_s", NULL, COL_NUMS },
	[D_PATCHED_RUNS] = { "patched.runs_per_s", NULL, COL_NUMS },
	[D_KERNEL] = { "kernel", NULL, COL_BOOL, 0, false, OUT_TOP },
	[D_SPACE] = { "space", "", COL_STR, 1, false, OUT_TOP },
};

static const int text_order[] = {
	D_BASE, D_BASE_SD, D_PATCHED, D_PATCHED_SD, D_DELTA, D_DELTA_PCT, D_BASE_SHARE,
	D_PATCHED_SHARE, D_Q, D_SIG, D_SPACE, D_DETAIL, D_NAME,
};

struct diff_table {
	struct out_col cols[D__COUNT];
	int text[D__COUNT];
	int n, ntext;
	char heads[2][32];
};

/* The columns of this view: the hits view has no callers, and its functions a module and k|u. */
static void diff_cols_of(const struct diff *d, struct diff_table *dt)
{
	bool hits = d->o.view == DIFF_VIEW_HITS;
	size_t i;

	memcpy(dt->cols, diff_cols, sizeof(diff_cols));
	dt->n = hits ? D__COUNT : D_KERNEL;
	snprintf(dt->heads[0], sizeof(dt->heads[0]), "base %s/s", what_per_second(d));
	snprintf(dt->heads[1], sizeof(dt->heads[1]), "patched %s/s", what_per_second(d));
	dt->cols[D_BASE].header = dt->heads[0];
	dt->cols[D_PATCHED].header = dt->heads[1];
	if (hits) {
		dt->cols[D_NAME] = (struct out_col){ "symbol", "function", COL_STR, 0, true, OUT_TOP, "name" };
		dt->cols[D_DETAIL] = (struct out_col){ "module", "module", COL_STR, 24, true, OUT_TOP, "detail" };
	}
	dt->ntext = 0;
	for (i = 0; i < sizeof(text_order) / sizeof(text_order[0]); i++)
		if (text_order[i] < dt->n)
			dt->text[dt->ntext++] = text_order[i];
}

static const char *status_name(const struct diff_row *r)
{
	return r->status == DIFF_NEW ? "new" : r->status == DIFF_GONE ? "gone" : "changed";
}

/* A figure, and how text shows it. */
static void num_as(struct out_table *t, double v, const char *text)
{
	out_table__text(t, text);
	out_table__num(t, v);
}

/* One side's mean and its spread. */
static void put_side(struct out_table *t, const struct diff *d, const struct diff_sum *side)
{
	char buf[32];

	fmt_rate(buf, sizeof(buf), d, side->mean, false);
	num_as(t, side->mean, buf);
	fmt_spread(buf, sizeof(buf), side);
	num_as(t, side->sd, buf);
}

static void put_change(struct out_table *t, const struct diff *d, const struct diff_row *r)
{
	char buf[32];

	fmt_rate(buf, sizeof(buf), d, r->delta, true);
	num_as(t, r->delta, buf);
	fmt_pct(buf, sizeof(buf), r);
	num_as(t, r->pct, buf);
	/* Text reads a share not defined (no total) as 0. */
	snprintf(buf, sizeof(buf), "%.2f", isnan(r->base.share) ? 0 : r->base.share);
	num_as(t, r->base.share, buf);
	snprintf(buf, sizeof(buf), "%.2f", isnan(r->patched.share) ? 0 : r->patched.share);
	num_as(t, r->patched.share, buf);
	out_table__u64(t, r->base.count);
	out_table__u64(t, r->patched.count);
}

static void put_test(struct out_table *t, const struct diff_row *r)
{
	char buf[16];

	out_table__num(t, r->p);
	fmt_p(buf, sizeof(buf), r->q);
	num_as(t, r->q, buf);
	out_table__text(t, mark(r));
	if (isnan(r->p))
		out_table__none(t);	/* not tested: neither significant nor not */
	else
		out_table__bool(t, r->significant);
}

/* Each run's per-second value, of one side. */
static void put_runs(struct out_table *t, const struct diff *d, const struct diff_row *r, size_t from, size_t n)
{
	double v[n ? n : 1];
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = diff_rate(d, r, from + i);
	out_table__nums(t, v, n);
}

static void put_row(struct out_table *t, const struct diff_cmd *c, const struct diff *d,
		    const struct diff_row *r, const char *kind)
{
	const struct diff_row *top = r->depth ? &d->rows[r->parent] : r;
	bool dim = c->color && !r->significant;

	if (r == &d->total)
		out_table__total_begin(t, NULL);
	else
		out_table__row_begin(t, r->depth);
	out_table__str(t, kind);
	out_table__str(t, top->name);
	out_table__str(t, top->detail);
	out_table__str(t, r->depth ? r->name : NULL);
	out_table__str(t, status_name(r));
	put_side(t, d, &r->base);
	put_side(t, d, &r->patched);
	put_change(t, d, r);
	put_test(t, r);
	out_table__num(t, r->base.mean > 0 ? r->patched.mean / r->base.mean : NAN);
	out_table__num(t, r->base.total);
	out_table__num(t, r->patched.total);
	put_runs(t, d, r, 0, d->nb);
	put_runs(t, d, r, d->nb, d->np);
	if (d->o.view == DIFF_VIEW_HITS) {
		out_table__bool(t, top->kernel);
		/* [root] and the total are neither kernel nor user. */
		out_table__str(t, r == &d->total ? "" : top->kernel ? "k" : "u");
	}
	if (dim)
		fputs("\033[2m", stdout);
	out_table__row_end(t);
	if (dim)
		fputs("\033[0m", stdout);
}

/* A family left out: one CSV row, "family,NAME,WHAT,,not comparable", the rest empty. */
static void put_csv_families(struct out_table *t, const struct diff *d)
{
	int f;

	for (f = 0; f < DIFF_FAMILY__COUNT; f++) {
		if (!not_compared(d, f))
			continue;
		out_table__row_begin(t, 0);
		out_table__str(t, "family");
		out_table__str(t, diff_family_name(f));
		out_table__str(t, diff_family_what(f));
		out_table__str(t, "");
		out_table__str(t, "not comparable");
		out_table__row_end(t);
	}
}

static void json_runs(struct json_writer *jw, const char *name, const struct diff *d, size_t from,
		      size_t n)
{
	size_t i;

	jw_name(jw, name);
	jw_start_array(jw);
	for (i = 0; i < n; i++) {
		const struct profile *p = d->runs[from + i].p;

		jw_start_object(jw);
		jw_string_field(jw, "file", d->runs[from + i].path);
		jw_string_field(jw, "kernel", profile__meta_or(p, "kernel", ""));
		jw_u64_field(jw, "duration_ns", profile__duration_ns(p));
		jw_string_field(jw, "command", profile__meta_or(p, "command", ""));
		jw_double_field(jw, "metric", d->metric.v[from + i]);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_metric(struct json_writer *jw, const struct diff *d)
{
	const struct diff_metric *m = &d->metric;

	jw_name(jw, "metric");
	if (!m->name) {
		jw_null(jw);
		return;
	}
	jw_start_object(jw);
	jw_string_field(jw, "name", m->name);
	jw_double_field(jw, "base_mean", m->base_mean);
	jw_double_field(jw, "base_sd", m->base_sd);
	jw_double_field(jw, "patched_mean", m->patched_mean);
	jw_double_field(jw, "patched_sd", m->patched_sd);
	jw_double_field(jw, "delta_pct", m->pct);
	jw_double_field(jw, "p", m->p);
	jw_bool_field(jw, "significant", m->significant);
	jw_end_object(jw);
}

static void json_not_comparable(struct json_writer *jw, const struct diff *d)
{
	int f;

	jw_name(jw, "not_comparable");
	jw_start_array(jw);
	for (f = 0; f < DIFF_FAMILY__COUNT; f++) {
		if (!not_compared(d, f))
			continue;
		jw_start_object(jw);
		jw_string_field(jw, "family", diff_family_name(f));
		jw_string_field(jw, "what", diff_family_what(f));
		jw_u64_field(jw, "base_runs", d->fam[f].nb);
		jw_u64_field(jw, "patched_runs", d->fam[f].np);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_head(struct json_writer *jw, const struct diff *d)
{
	jw_string_field(jw, "view", d->o.view == DIFF_VIEW_LOCKS ? "locks" : "hits");
	jw_string_field(jw, "value", d->o.view == DIFF_VIEW_HITS ? "samples" :
			is_wait(d) ? "wait_ns" : "contended");
	jw_string_field(jw, "test", diff_test_name(d->test));
	jw_string_field(jw, "adjust", d->o.adjust == ADJUST_BH ? "bh" : d->o.adjust == ADJUST_HOLM ? "holm" : "none");
	jw_double_field(jw, "alpha", d->o.alpha);
	jw_u64_field(jw, "rows_tested", d->ntested);
	json_runs(jw, "base", d, 0, d->nb);
	json_runs(jw, "patched", d, d->nb, d->np);
	json_metric(jw, d);
	json_not_comparable(jw, d);
}

void print_diff(const struct diff_cmd *c, const struct diff *d)
{
	struct out_doc *doc = out_doc__new(stdout, c->format, isatty(STDOUT_FILENO));
	bool locks = d->o.view == DIFF_VIEW_LOCKS;
	struct diff_table dt;
	struct out_table *t;
	size_t i, tops = 0;

	if (!doc)
		return;
	if (c->format == OUT_TEXT)
		print_diff_header(c, d);
	if (out_doc__jw(doc))
		json_head(out_doc__jw(doc), d);
	diff_cols_of(d, &dt);
	t = out_doc__table(doc, "rows", dt.cols, dt.n);
	if (t) {
		out_table__text_order(t, dt.text, dt.ntext);
		if (locks)
			out_table__set_children(t, "callers");
	}
	for (i = 0; t && i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[d->order[i]];

		if (shown(c, d, i, &tops))
			put_row(t, c, d, r, r->depth ? "caller" : locks ? "lock" : "function");
	}
	if (t)
		put_row(t, c, d, &d->total, "total");
	if (t && c->format == OUT_CSV)
		put_csv_families(t, d);
	out_table__free(t);
	out_doc__free(doc);
}
