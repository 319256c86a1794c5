// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat diff: a baseline against a patched kernel, each side one
 * profile or several runs. Rows are matched by normalized name; each has
 * its per-second means, shares, change and a significance test (the
 * model is lib/view/diff.c, the tests lib/view/stats.c). Text, JSON, CSV, or a
 * differential flame graph.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "view/diff.h"
#include "base/exitcode.h"
#include "out/export.h"
#include "out/flame.h"
#include "base/json.h"
#include "base/log.h"
#include "out/output.h"
#include "format/profile.h"

struct diff_cmd {
	struct diff_opts o;
	enum out_format format;
	bool svg;
	bool color;		/* dim the rows within noise */
	bool stats_set;		/* --alpha, --test or --adjust given */
	bool value_set;
	unsigned long top_n;
	const char **files[2];	/* base, patched */
	size_t nfiles[2];
	struct diff_run *runs;
	size_t nruns;
};

static void usage(FILE *f)
{
	print_usage(f, "diff",
		"usage: lockstat diff [OPTIONS] BASE PATCHED\n"
		"       lockstat diff [OPTIONS] -b BASE... -p PATCHED...\n"
		"\n"
		"  -b, --base FILE...     the baseline's profiles, one per run (e.g. -b base.*.data;\n"
		"                         - reads one from standard input)\n"
		"  -p, --patched FILE...  the patched kernel's profiles, one per run\n"
		"  -V, --view VIEW        locks (default: lock waits) or hits (the sampled functions)\n"
		"      --value VALUE      locks: wait (default, wait time) or count (contended waits)\n"
		"  -f, --format FMT       text (default), json, csv, or svg (a differential flame graph)\n"
		"  -n, --top N            only the N largest changes (with their callers)\n"
		"      --alpha A          significance level (default 0.05)\n"
		"      --test TEST        auto (default), welch, mwu or poisson (see lockstat-diff(1))\n"
		"      --adjust HOW       bh (default, Benjamini-Hochberg), holm or none: the correction\n"
		"                         for testing many rows at once\n"
		"  -v, --verbose          say more\n"
		"  -q, --quiet            no warnings\n"
		"  -h, --help             this help\n");
}

enum { OPT_VALUE = 1000, OPT_ALPHA, OPT_TEST, OPT_ADJUST };

static const struct option long_opts[] = {
	{ "view", required_argument, NULL, 'V' },
	{ "value", required_argument, NULL, OPT_VALUE },
	{ "format", required_argument, NULL, 'f' },
	{ "top", required_argument, NULL, 'n' },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "adjust", required_argument, NULL, OPT_ADJUST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --- arguments ------------------------------------------------------------------ */

static int add_file(struct diff_cmd *c, int side, const char *path)
{
	const char **grown = realloc(c->files[side], (c->nfiles[side] + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	c->files[side] = grown;
	grown[c->nfiles[side]++] = path;
	return 0;
}

static int side_option(const char *a, const char **inline_file)
{
	*inline_file = NULL;
	if (!strcmp(a, "-b") || !strcmp(a, "--base"))
		return 0;
	if (!strcmp(a, "-p") || !strcmp(a, "--patched"))
		return 1;
	if (!strncmp(a, "--base=", 7) || !strncmp(a, "--patched=", 10)) {
		*inline_file = strchr(a, '=') + 1;
		return a[2] == 'b' ? 0 : 1;
	}
	return -1;
}

/*
 * -b and -p take every argument up to the next option, as a shell glob
 * expands them; everything else is left in rest for getopt.
 */
static int split_sides(struct diff_cmd *c, int argc, char **argv, char **rest, int *nrest)
{
	const char *file;
	int i, side = -1, s, err = 0;

	rest[(*nrest)++] = argv[0];
	for (i = 1; !err && i < argc; i++) {
		s = side_option(argv[i], &file);
		if (s >= 0) {
			side = s;
			if (file)
				err = add_file(c, s, file);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			side = -1;	/* another option ends the list */
			rest[(*nrest)++] = argv[i];
		} else if (side >= 0) {
			err = add_file(c, side, argv[i]);
		} else {
			rest[(*nrest)++] = argv[i];
		}
	}
	rest[*nrest] = NULL;
	return err;
}

static int parse_alpha(struct diff_cmd *c, const char *arg)
{
	double v;

	if (number_parse(arg, &v) || !(v > 0 && v < 1)) {
		pr_err("--alpha: '%s' is not a number between 0 and 1\n", arg);
		return -EINVAL;
	}
	c->o.alpha = v;
	return 0;
}

static int parse_adjust(struct diff_cmd *c, const char *arg)
{
	if (!strcmp(arg, "bh"))
		c->o.adjust = ADJUST_BH;
	else if (!strcmp(arg, "holm"))
		c->o.adjust = ADJUST_HOLM;
	else if (!strcmp(arg, "none"))
		c->o.adjust = ADJUST_NONE;
	else {
		pr_err("--adjust: '%s' is not bh, holm or none\n", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_format(struct diff_cmd *c, const char *arg)
{
	c->svg = !strcmp(arg, "svg");
	if (c->svg || !out_format_parse(arg, &c->format))
		return 0;
	pr_err("--format: '%s' is not text, json, csv or svg\n", arg);
	return -EINVAL;
}

static int parse_one(struct diff_cmd *c, int opt, const char *arg)
{
	switch (opt) {
	case 'V':
		if (!strcmp(arg, "locks") || !strcmp(arg, "hits")) {
			c->o.view = strcmp(arg, "hits") ? DIFF_VIEW_LOCKS : DIFF_VIEW_HITS;
			return 0;
		}
		pr_err("--view: '%s' is not locks or hits\n", arg);
		return -EINVAL;
	case OPT_VALUE:
		c->value_set = true;
		if (!strcmp(arg, "wait") || !strcmp(arg, "count")) {
			c->o.value = strcmp(arg, "wait") ? DIFF_VALUE_COUNT : DIFF_VALUE_WAIT;
			return 0;
		}
		pr_err("--value: '%s' is not wait or count\n", arg);
		return -EINVAL;
	case 'f': return parse_format(c, arg);
	case 'n': return parse_ulong("--top", arg, 0, ULONG_MAX, &c->top_n);
	case OPT_ALPHA: c->stats_set = true; return parse_alpha(c, arg);
	case OPT_ADJUST: c->stats_set = true; return parse_adjust(c, arg);
	case OPT_TEST:
		c->stats_set = true;
		if (!diff_test_parse(arg, &c->o.test))
			return 0;
		pr_err("--test: '%s' is not auto, welch, mwu or poisson\n", arg);
		return -EINVAL;
	case 'v': log_verbosity++; return 0;
	case 'q': log_verbosity = -1; return 0;
	default: return -EINVAL;
	}
}

/* Standard input ("-") holds one profile: it cannot be read for two runs. */
static int check_stdin_once(const struct diff_cmd *c)
{
	size_t side, i, n = 0;

	for (side = 0; side < 2; side++)
		for (i = 0; i < c->nfiles[side]; i++)
			n += !strcmp(c->files[side][i], "-");
	if (n < 2)
		return 0;
	pr_err("standard input (-) is given %zu times: it holds one profile, and is read once\n", n);
	return -EINVAL;
}

/* BASE PATCHED, or -b and -p; and no option that cannot apply. */
static int check_args(struct diff_cmd *c, int npos, char **pos)
{
	if (!c->nfiles[0] && !c->nfiles[1] && npos == 2) {
		if (add_file(c, 0, pos[0]) || add_file(c, 1, pos[1]))
			return -ENOMEM;
		npos = 0;
	}
	if (npos) {
		pr_err("unexpected argument '%s': give BASE PATCHED, or -b BASE... -p PATCHED...\n", pos[0]);
		return -EINVAL;
	}
	if (!c->nfiles[0] || !c->nfiles[1]) {
		pr_err("%s\n", c->nfiles[0] || c->nfiles[1] ? "both sides are needed: -b BASE... and -p PATCHED..." :
		       "nothing to compare: give BASE PATCHED, or -b BASE... -p PATCHED...");
		return -EINVAL;
	}
	if (check_stdin_once(c))
		return -EINVAL;
	if (c->value_set && c->o.view == DIFF_VIEW_HITS) {
		pr_err("--value applies to the locks view\n");
		return -EINVAL;
	}
	if ((c->o.test == DIFF_TEST_WELCH || c->o.test == DIFF_TEST_MWU) &&
	    (c->nfiles[0] < 2 || c->nfiles[1] < 2)) {
		pr_err("--test %s needs at least 2 runs a side (got %zu and %zu)\n", diff_test_name(c->o.test),
		       c->nfiles[0], c->nfiles[1]);
		return -EINVAL;
	}
	if (c->svg && (c->top_n || c->stats_set)) {
		pr_err("--top, --alpha, --test and --adjust do not apply to --format svg\n");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(struct diff_cmd *c, int argc, char **argv)
{
	char **rest = calloc(argc + 1, sizeof(*rest));
	int nrest = 0, opt, err;

	if (!rest)
		return -ENOMEM;
	err = split_sides(c, argc, argv, rest, &nrest);
	optind = 1;
	while (!err && (opt = opt_next(nrest, rest, "V:f:n:vqh", long_opts)) != -1) {
		if (opt == 'h')
			err = 1;
		else if (opt == '?' || parse_one(c, opt, optarg))
			err = -EINVAL;
	}
	if (!err)
		err = check_args(c, nrest - optind, rest + optind);
	free(rest);
	return err;
}

/* --- loading ---------------------------------------------------------------------- */

static int load_run(struct diff_run *r, const char *path)
{
	struct profile *p;
	char why[256] = "";
	int err = profile__read(path, &p, why, sizeof(why));

	if (err) {
		pr_err("%s: %s\n", path, why[0] ? why : strerror(-err));
		return err;
	}
	if (!p->has_end || p->stop != WALK_EOF)
		pr_warn("%s: the recording is incomplete; comparing the %.2f s it holds\n", path,
			profile__duration_ns(p) / 1e9);
	r->p = p;
	r->path = path;
	return 0;
}

static int load(struct diff_cmd *c)
{
	size_t side, i;
	int err = 0;

	c->runs = calloc(c->nfiles[0] + c->nfiles[1], sizeof(*c->runs));
	if (!c->runs)
		return -ENOMEM;
	for (side = 0; side < 2; side++)
		for (i = 0; !err && i < c->nfiles[side]; i++)
			err = load_run(&c->runs[c->nruns++], c->files[side][i]);
	return err;
}

static void unload(struct diff_cmd *c)
{
	size_t i;

	for (i = 0; i < c->nruns; i++)
		profile__free((struct profile *)c->runs[i].p);
	free(c->runs);
	free(c->files[0]);
	free(c->files[1]);
}

/* Say what makes the comparison weaker than it looks. */
static void warn_mismatch(const struct diff_cmd *c)
{
	const struct profile *first = c->runs[0].p;
	size_t i;

	for (i = 1; i < c->nruns; i++) {
		const struct profile *p = c->runs[i].p;

		if (strcmp(profile__meta_or(p, "cpus", "?"), profile__meta_or(first, "cpus", "?")))
			pr_warn("%s has %s CPUs, %s has %s: per-second values may not compare\n",
				c->runs[i].path, profile__meta_or(p, "cpus", "?"), c->runs[0].path, profile__meta_or(first, "cpus", "?"));
		if (c->o.view == DIFF_VIEW_HITS && diff_recorded(p, DIFF_FAMILY_SAMPLE) &&
		    diff_recorded(first, DIFF_FAMILY_SAMPLE) &&
		    strcmp(profile__meta_or(p, "sample_freq", "?"), profile__meta_or(first, "sample_freq", "?")))
			pr_warn("%s was sampled at %s Hz, %s at %s Hz: compare the share columns\n",
				c->runs[i].path, profile__meta_or(p, "sample_freq", "?"), c->runs[0].path,
				profile__meta_or(first, "sample_freq", "?"));
	}
}

/* --- text ---------------------------------------------------------------------------- */

struct fmt {
	const struct diff_cmd *c;
	const struct diff *d;
};

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

static void put_text_row(struct out_table *t, const struct fmt *x, const struct diff_row *r)
{
	char b[32], bs[16], p[32], ps[16], dl[32], pct[16], q[16], bsh[16], psh[16];
	bool dim = x->c->color && !r->significant;

	fmt_rate(b, sizeof(b), x->d, r->base.mean, false);
	fmt_spread(bs, sizeof(bs), &r->base);
	fmt_rate(p, sizeof(p), x->d, r->patched.mean, false);
	fmt_spread(ps, sizeof(ps), &r->patched);
	fmt_rate(dl, sizeof(dl), x->d, r->delta, true);
	fmt_pct(pct, sizeof(pct), r);
	snprintf(bsh, sizeof(bsh), "%.2f", isnan(r->base.share) ? 0 : r->base.share);
	snprintf(psh, sizeof(psh), "%.2f", isnan(r->patched.share) ? 0 : r->patched.share);
	fmt_p(q, sizeof(q), r->q);
	out_table__row_begin(t, r->depth);
	if (dim)
		fputs("\033[2m", stdout);
	out_table__str(t, b);
	out_table__str(t, bs);
	out_table__str(t, p);
	out_table__str(t, ps);
	out_table__str(t, dl);
	out_table__str(t, pct);
	out_table__str(t, bsh);
	out_table__str(t, psh);
	out_table__str(t, q);
	out_table__str(t, mark(r));
	if (x->d->o.view == DIFF_VIEW_HITS)
		out_table__str(t, r->depth || r == &x->d->total ? "" : r->kernel ? "k" : "u");
	out_table__str(t, r->depth ? "" : r->detail);
	out_table__str(t, r->name);
	out_table__row_end(t);
	if (dim)
		fputs("\033[0m", stdout);
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

static void print_diff_header(const struct fmt *x)
{
	const struct diff *d = x->d;
	const char *kb = profile__meta_or(d->runs[0].p, "kernel", "?");
	const char *kp = profile__meta_or(d->runs[d->nb].p, "kernel", "?");

	printf("# lockstat diff: %s, %s per second\n", d->o.view == DIFF_VIEW_LOCKS ? "locks" : "hits",
	       d->o.view == DIFF_VIEW_HITS ? "samples" : is_wait(d) ? "wait time" : "contended waits");
	print_side("base:", x->c, 0, d->nb);
	print_side("patched:", x->c, d->nb, d->np);
	print_not_comparable(d);
	if (strcmp(kb, kp))
		printf("# the kernels differ: rows are matched by name, never by address\n");
	print_test(d);
	print_metric(d);
	printf("#\n");
}

#define NTEXT_COLS	13

static int text_cols(const struct diff *d, struct out_col *cols)
{
	static char h[5][32];
	const char *w = what_per_second(d);
	int n = 0;

	snprintf(h[0], sizeof(h[0]), "base %s/s", w);
	snprintf(h[1], sizeof(h[1]), "patched %s/s", w);
	snprintf(h[2], sizeof(h[2]), "change/s");
	cols[n++] = (struct out_col){ "base", h[0], COL_STR, 10, false };
	cols[n++] = (struct out_col){ "base_spread", "±", COL_STR, 6, false };
	cols[n++] = (struct out_col){ "patched", h[1], COL_STR, 10, false };
	cols[n++] = (struct out_col){ "patched_spread", "±", COL_STR, 6, false };
	cols[n++] = (struct out_col){ "delta", h[2], COL_STR, 10, false };
	cols[n++] = (struct out_col){ "delta_pct", "change", COL_STR, 7, false };
	cols[n++] = (struct out_col){ "base_share", "base%", COL_STR, 6, false };
	cols[n++] = (struct out_col){ "patched_share", "patch%", COL_STR, 6, false };
	cols[n++] = (struct out_col){ "p", "p", COL_STR, 6, false };
	cols[n++] = (struct out_col){ "mark", "", COL_STR, 1, false };
	if (d->o.view == DIFF_VIEW_HITS)
		cols[n++] = (struct out_col){ "space", "", COL_STR, 1, false };
	cols[n++] = (struct out_col){ "detail", d->o.view == DIFF_VIEW_HITS ? "module" : "type", COL_STR,
				      d->o.view == DIFF_VIEW_HITS ? 10 : 11, d->o.view == DIFF_VIEW_HITS };
	cols[n++] = (struct out_col){ "name", d->o.view == DIFF_VIEW_HITS ? "function" : "lock / caller",
				      COL_STR, 0, true };
	return n;
}

/* The rows shown: the first top_n locks or functions, with their callers. */
static bool shown(const struct diff_cmd *c, const struct diff *d, size_t i, size_t *tops)
{
	const struct diff_row *r = &d->rows[d->order[i]];

	if (!r->depth)
		(*tops)++;
	return !c->top_n || *tops <= c->top_n;
}

static void print_diff_text(const struct fmt *x)
{
	struct out_col cols[NTEXT_COLS];
	struct out_table *t;
	size_t i, tops = 0;
	int n = text_cols(x->d, cols);

	print_diff_header(x);
	if (x->d->o.view == DIFF_VIEW_HITS)	/* the module column: the module of the function */
		cols[n - 2].width = 24;
	t = out_table__new(stdout, OUT_TEXT, cols, n);
	if (!t)
		return;
	for (i = 0; i < x->d->nrows; i++)
		if (shown(x->c, x->d, i, &tops))
			put_text_row(t, x, &x->d->rows[x->d->order[i]]);
	out_table__separator(t);
	put_text_row(t, x, &x->d->total);
	out_table__free(t);
}

/* --- CSV ------------------------------------------------------------------------------ */

static const struct out_col csv_cols[] = {
	{ "row", "row", COL_STR, 0, true },
	{ "name", "name", COL_STR, 0, true },
	{ "detail", "detail", COL_STR, 0, true },
	{ "caller", "caller", COL_STR, 0, true },
	{ "status", "status", COL_STR, 0, true },
	{ "base_per_s", "", COL_STR, 0, false },
	{ "base_sd_per_s", "", COL_STR, 0, false },
	{ "patched_per_s", "", COL_STR, 0, false },
	{ "patched_sd_per_s", "", COL_STR, 0, false },
	{ "delta_per_s", "", COL_STR, 0, false },
	{ "delta_pct", "", COL_STR, 0, false },
	{ "base_share_pct", "", COL_STR, 0, false },
	{ "patched_share_pct", "", COL_STR, 0, false },
	{ "base_events", "", COL_STR, 0, false },
	{ "patched_events", "", COL_STR, 0, false },
	{ "p", "", COL_STR, 0, false },
	{ "p_adjusted", "", COL_STR, 0, false },
	{ "significant", "", COL_STR, 0, false },
};

#define NCSV_COLS	(sizeof(csv_cols) / sizeof(csv_cols[0]))

static const char *status_name(const struct diff_row *r)
{
	return r->status == DIFF_NEW ? "new" : r->status == DIFF_GONE ? "gone" : "changed";
}

static void csv_num(struct out_table *t, double v)
{
	char buf[40];

	if (isnan(v)) {
		out_table__none(t);
		return;
	}
	snprintf(buf, sizeof(buf), "%.10g", v);
	out_table__str(t, buf);
}

static void put_csv_row(struct out_table *t, const struct diff *d, const struct diff_row *r,
			const char *kind)
{
	const struct diff_row *lock = r->depth ? &d->rows[r->parent] : r;

	out_table__row_begin(t, 0);
	out_table__str(t, kind);
	out_table__str(t, lock->name);
	out_table__str(t, lock->detail);
	out_table__str(t, r->depth ? r->name : "");
	out_table__str(t, status_name(r));
	csv_num(t, r->base.mean);
	csv_num(t, r->base.sd);
	csv_num(t, r->patched.mean);
	csv_num(t, r->patched.sd);
	csv_num(t, r->delta);
	csv_num(t, r->pct);
	csv_num(t, r->base.share);
	csv_num(t, r->patched.share);
	csv_num(t, (double)r->base.count);
	csv_num(t, (double)r->patched.count);
	csv_num(t, r->p);
	csv_num(t, r->q);
	out_table__str(t, isnan(r->p) ? "" : r->significant ? "1" : "0");
	out_table__row_end(t);
}

/* A family left out: one row, "family,NAME,WHAT,,not comparable", the rest empty. */
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

static void print_diff_csv(const struct fmt *x)
{
	const struct diff *d = x->d;
	struct out_table *t = out_table__new(stdout, OUT_CSV, csv_cols, NCSV_COLS);
	size_t i, tops = 0;

	if (!t)
		return;
	for (i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[d->order[i]];

		if (shown(x->c, d, i, &tops))
			put_csv_row(t, d, r, r->depth ? "caller" : d->o.view == DIFF_VIEW_LOCKS ? "lock" : "function");
	}
	put_csv_row(t, d, &d->total, "total");
	put_csv_families(t, d);
	out_table__free(t);
}

/* --- JSON ------------------------------------------------------------------------------ */

static void json_sum(struct json_writer *jw, const char *name, const struct diff *d,
		     const struct diff_row *r, const struct diff_sum *s, size_t from, size_t n)
{
	size_t i;

	jw_name(jw, name);
	jw_start_object(jw);
	jw_double_field(jw, "per_s", s->mean);
	jw_double_field(jw, "sd_per_s", s->sd);
	jw_double_field(jw, "share_pct", s->share);
	jw_double_field(jw, "total", s->total);
	jw_u64_field(jw, "events", s->count);
	jw_name(jw, "runs_per_s");
	jw_start_array(jw);
	for (i = 0; i < n; i++)
		jw_double(jw, diff_rate(d, r, from + i));
	jw_end_array(jw);
	jw_end_object(jw);
}

static void json_row(struct json_writer *jw, const struct diff *d, const struct diff_row *r)
{
	jw_string_field(jw, d->o.view == DIFF_VIEW_HITS ? "symbol" : r->depth ? "symbol" : "name", r->name);
	if (d->o.view == DIFF_VIEW_HITS) {
		jw_string_field(jw, "module", r->detail);
		jw_bool_field(jw, "kernel", r->kernel);
	} else if (!r->depth) {
		jw_string_field(jw, "type", r->detail);
	}
	jw_string_field(jw, "status", status_name(r));
	json_sum(jw, "base", d, r, &r->base, 0, d->nb);
	json_sum(jw, "patched", d, r, &r->patched, d->nb, d->np);
	jw_double_field(jw, "delta_per_s", r->delta);
	jw_double_field(jw, "delta_pct", r->pct);
	jw_double_field(jw, "ratio", r->base.mean > 0 ? r->patched.mean / r->base.mean : NAN);
	jw_double_field(jw, "p", r->p);
	jw_double_field(jw, "p_adjusted", r->q);
	jw_bool_field(jw, "significant", r->significant);
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

static void print_diff_json(const struct fmt *x)
{
	const struct diff *d = x->d;
	struct json_writer *jw = jw_new(stdout, isatty(STDOUT_FILENO));
	size_t i, tops = 0;
	bool open = false;

	if (!jw)
		return;
	jw_start_object(jw);
	json_head(jw, d);
	jw_name(jw, "rows");
	jw_start_array(jw);
	for (i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[d->order[i]];

		if (!shown(x->c, d, i, &tops))
			continue;
		if (open && !r->depth) {	/* the previous lock's callers end */
			jw_end_array(jw);
			jw_end_object(jw);
			open = false;
		}
		if (r->depth) {
			jw_start_object(jw);
			json_row(jw, d, r);
			jw_end_object(jw);
			continue;
		}
		jw_start_object(jw);
		json_row(jw, d, r);
		if (d->o.view == DIFF_VIEW_LOCKS) {
			jw_name(jw, "callers");
			jw_start_array(jw);
			open = true;
		} else {
			jw_end_object(jw);
		}
	}
	if (open) {
		jw_end_array(jw);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "total");
	jw_start_object(jw);
	json_row(jw, d, &d->total);
	jw_end_object(jw);
	jw_end_object(jw);
	jw_free(jw);
}

/* --- SVG ------------------------------------------------------------------------------- */

/* Frames merge across runs and kernels under the names rows match by. */
static const char *svg_rename(const char *name, enum flame_kind kind, char *buf, size_t len)
{
	if (kind == FLAME_TASK)
		return name;
	return kind == FLAME_LOCK ? diff_norm_lock(name, buf, len) : diff_norm_func(name, buf, len);
}

/* The stacks of a lock family that is not comparable go, as their rows do in the other formats. */
static void keep_comparable(struct export_stacks *s, const bool *left_out)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		enum diff_family f = !s->locks ? DIFF_FAMILY_SAMPLE :
				     s->stacks[i].user ? DIFF_FAMILY_ULOCKS : DIFF_FAMILY_LOCKS;

		if (!left_out[f])
			s->stacks[n++] = s->stacks[i];
	}
	s->n = n;
}

static int add_side(struct flame *f, const struct diff_cmd *c, const struct export_opts *eo,
		    const bool *left_out, size_t from, size_t n, int side)
{
	double secs = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++)
		secs += profile__duration_ns(c->runs[from + i].p) / 1e9;
	for (i = 0; !err && i < n; i++) {
		struct export_stacks s;

		err = export_stacks__build(&s, c->runs[from + i].p, eo);
		if (err)
			break;
		keep_comparable(&s, left_out);
		export_stacks__merge(&s, eo->value);
		err = flame__add_export(f, &s, eo->value, side, secs > 0 ? 1 / secs : 0, svg_rename);
		export_stacks__free(&s);
	}
	return err;
}

/* The subtitle's note on what was left out, "" when nothing was. */
static void svg_left_out(const struct diff_cmd *c, const struct diff_family_runs *fam, bool *left_out,
			 char *buf, size_t len)
{
	size_t used = 0;
	int f;

	buf[0] = '\0';
	for (f = 0; f < DIFF_FAMILY__COUNT; f++) {
		left_out[f] = diff_family_in_view(f, c->o.view) &&
			      !diff_family_comparable(&fam[f], c->nfiles[0], c->nfiles[1]);
		if (left_out[f] && used < len)
			used += snprintf(buf + used, len - used, "; %s not comparable (-e %s in %zu of %zu base, %zu of %zu patched runs): left out",
					 diff_family_what(f), diff_family_name(f), fam[f].nb, c->nfiles[0],
					 fam[f].np, c->nfiles[1]);
	}
}

static int print_diff_svg(const struct diff_cmd *c, const struct diff_family_runs *fam)
{
	struct export_opts eo = { .what = c->o.view == DIFF_VIEW_LOCKS ? EXPORT_LOCKS : EXPORT_SAMPLES,
				  .filter = { .pid = -1 } };
	struct flame_opts fo = { .per_second = true, .unit = FLAME_UNIT_SAMPLES };
	char title[128], sub[512], note[256];
	bool left_out[DIFF_FAMILY__COUNT];
	struct flame f;
	int err;

	eo.value = c->o.value == DIFF_VALUE_WAIT && eo.what == EXPORT_LOCKS ? EXPORT_VALUE_WAIT : EXPORT_VALUE_COUNT;
	if (eo.what == EXPORT_LOCKS)
		fo.unit = eo.value == EXPORT_VALUE_WAIT ? FLAME_UNIT_NS : FLAME_UNIT_WAITS;
	snprintf(title, sizeof(title), "Differential flame graph: %s", eo.what == EXPORT_SAMPLES ? "CPU samples" :
		 eo.value == EXPORT_VALUE_WAIT ? "lock wait time" : "contended lock waits");
	svg_left_out(c, fam, left_out, note, sizeof(note));
	snprintf(sub, sizeof(sub), "base %s%s, patched %s%s: width base + patched per second, red grew, blue shrank%s",
		 c->files[0][0], c->nfiles[0] > 1 ? " and the others" : "", c->files[1][0],
		 c->nfiles[1] > 1 ? " and the others" : "", note);
	fo.title = title;
	fo.subtitle = sub;
	err = flame__init(&f, true);
	if (!err)
		err = add_side(&f, c, &eo, left_out, 0, c->nfiles[0], 0);
	if (!err)
		err = add_side(&f, c, &eo, left_out, c->nfiles[0], c->nfiles[1], 1);
	if (!err)
		err = flame__write_svg(&f, stdout, &fo);
	flame__free(&f);
	return err;
}

/* --- the command ---------------------------------------------------------------------------- */

/* A view whose every family is missing from some runs compares nothing: an error. */
static int check_comparable(const struct diff_cmd *c, struct diff_family_runs *fam)
{
	enum diff_family first;
	char text[256];

	diff_families(c->runs, c->nfiles[0], c->nfiles[1], fam);
	if (!diff_nothing_comparable(fam, c->nfiles[0], c->nfiles[1], c->o.view, &first))
		return 0;
	diff_family_text(text, sizeof(text), first, &fam[first], c->nfiles[0], c->nfiles[1]);
	pr_err("nothing to compare: %s\n", text);
	return -EINVAL;
}

static int compare(struct diff_cmd *c)
{
	struct diff_family_runs fam[DIFF_FAMILY__COUNT];
	struct diff d;
	struct fmt x = { c, &d };
	int err;

	if (check_comparable(c, fam))
		return -EINVAL;
	if (c->svg)
		return print_diff_svg(c, fam);
	err = diff__build(&d, c->runs, c->nfiles[0], c->nfiles[1], &c->o);
	if (err)
		return err;
	if (!d.nrows)
		pr_warn("no %s on either side\n", c->o.view == DIFF_VIEW_LOCKS ? "lock waits" : "samples");
	if (c->format == OUT_JSON)
		print_diff_json(&x);
	else if (c->format == OUT_CSV)
		print_diff_csv(&x);
	else
		print_diff_text(&x);
	diff__free(&d);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = {
		.o = { .view = DIFF_VIEW_LOCKS, .value = DIFF_VALUE_WAIT, .test = DIFF_TEST_AUTO,
		       .adjust = ADJUST_BH, .alpha = 0.05 },
		.format = OUT_TEXT,
	};
	int err = parse_args(&c, argc, argv);

	if (err) {
		usage(err > 0 ? stdout : stderr);
		unload(&c);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	log_set_json_errors(c.format == OUT_JSON && !c.svg);
	c.color = c.format == OUT_TEXT && !c.svg && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	err = load(&c);
	if (!err) {
		warn_mismatch(&c);
		err = compare(&c);
	}
	if (err == -ENOMEM)
		pr_err("out of memory\n");
	unload(&c);
	return err ? EXIT_FAIL : EXIT_OK;
}
