// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat ab: the experiment a patch is judged by, in one command. N
 * runs of a baseline command and N of a patched one, alternated (ABAB...)
 * so that drift (thermal, page cache, other load) falls on both sides
 * alike, each recorded with the workload's own figure; then the diff of
 * the two series with diff's own model and tests (lib/view/diff.c), and
 * one summary: the figure's change with its interval, the locks and
 * functions that changed significantly, the families not compared.
 * The summary is written last and whole: a directory without it is an
 * experiment that did not finish.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "exp.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "base/nsfmt.h"

#define AB_SHOW_MAX	10	/* rows of each view in the summary; diff shows them all */

static void usage(FILE *f)
{
	print_usage(f, "ab",
		"usage: lockstat ab [OPTIONS] --base 'COMMAND A' --patched 'COMMAND B'\n"
		"\n"
		"  -b, --base CMD       the baseline's command (run by sh -c)\n"
		"  -p, --patched CMD    the patched side's command (run by sh -c)\n"
		"  -r, --runs N         runs of each side, alternated (default 5)\n"
		"  -o, --output DIR     new or empty directory for the profiles, logs and\n"
		"                       summary (default lockstat-ab)\n"
		"      --metric REGEX   the workload's own figure, as record --metric takes it\n"
		"      --alpha A        significance level (default 0.05)\n"
		"  -q, --quiet          no progress\n"
		"  -h, --help           this help\n");
}

enum { OPT_METRIC = 1000, OPT_ALPHA };

static const struct option long_opts[] = {
	{ "base", required_argument, NULL, 'b' },
	{ "patched", required_argument, NULL, 'p' },
	{ "runs", required_argument, NULL, 'r' },
	{ "output", required_argument, NULL, 'o' },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct ab {
	struct exp_opts o;
	const char *cmd[2];	/* base, patched */
	double alpha;
	char **names;		/* base.1 ... base.N, patched.1 ... patched.N */
	struct diff_run *runs;
};

static const char *const side_name[2] = { "base", "patched" };

static int parse_one(struct ab *a, int opt, const char *arg)
{
	switch (opt) {
	case 'b': a->cmd[0] = arg; return 0;
	case 'p': a->cmd[1] = arg; return 0;
	case 'r': return parse_ulong("--runs", arg, 1, 1000, &a->o.runs);
	case 'o': a->o.dir = arg; return 0;
	case OPT_METRIC: return exp_metric_parse(&a->o, arg);
	case OPT_ALPHA:
		if (!number_parse(arg, &a->alpha) && a->alpha > 0 && a->alpha < 1)
			return 0;
		pr_err("--alpha: '%s' is not a number between 0 and 1\n", arg);
		return -EINVAL;
	case 'q': log_verbosity = -1; return 0;
	default: return -EINVAL;
	}
}

static int parse_args(struct ab *a, int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "b:p:r:o:qh", long_opts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || parse_one(a, opt, optarg))
			return -EINVAL;
	}
	if (no_operands(argc - optind, argv + optind))
		return -EINVAL;
	if (!a->cmd[0] || !a->cmd[1] || !*a->cmd[0] || !*a->cmd[1]) {
		pr_err("both sides are needed: --base 'COMMAND A' --patched 'COMMAND B'\n");
		return -EINVAL;
	}
	return 0;
}

static int make_names(struct ab *a)
{
	size_t n = a->o.runs, side, i;
	char name[32];

	a->names = calloc(2 * n, sizeof(*a->names));
	a->runs = calloc(2 * n, sizeof(*a->runs));
	if (!a->names || !a->runs)
		return -ENOMEM;
	for (side = 0; side < 2; side++)
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s.%zu", side_name[side], i + 1);
			a->names[side * n + i] = strdup(name);
			if (!a->names[side * n + i])
				return -ENOMEM;
		}
	return 0;
}

/* ABAB...: a drift over the experiment's time falls on both sides alike. */
static int run_all(struct ab *a)
{
	size_t n = a->o.runs, i, side;
	char what[64];
	int err = 0;

	for (i = 0; !err && i < n; i++)
		for (side = 0; !err && side < 2; side++) {
			char *argv[] = { "sh", "-c", (char *)a->cmd[side], NULL };

			snprintf(what, sizeof(what), "%s run %zu of %zu", side_name[side], i + 1, n);
			pr_notice("%s\n", what);
			err = exp_record(&a->o, a->names[side * n + i], argv, NULL, what);
		}
	return err;
}

/* "1234567 (sd 2.1 %, 5 runs)"; one run has no sd. */
static void side_figure(char *buf, size_t len, double mean, double sd, size_t n)
{
	char fig[32];

	exp_figure(fig, sizeof(fig), mean);
	if (n > 1)
		snprintf(buf, len, "%s (sd %.1f %%, %zu runs)", fig, 100 * sd / fabs(mean), n);
	else
		snprintf(buf, len, "%s (1 run)", fig);
}

static void say_metric(FILE *f, const struct diff_metric *m, double alpha, const char *spec)
{
	char b[96], p[96];

	if (!m->name) {
		fprintf(f, "figure: none (%s)\n", spec ? "no run's output matched --metric" : "no --metric");
		return;
	}
	side_figure(b, sizeof(b), m->base_mean, m->base_sd, m->nb);
	side_figure(p, sizeof(p), m->patched_mean, m->patched_sd, m->np);
	fprintf(f, "figure %s: base %s, patched %s\n", m->name, b, p);
	if (isnan(m->p)) {
		fprintf(f, "  change %+.1f %%, untested: fewer than 2 runs with the figure on a side\n", m->pct);
		return;
	}
	fprintf(f, "  change %+.1f %%, %g %% interval [%+.1f %%, %+.1f %%], p %.2g: %s\n", m->pct,
		100 * (1 - alpha), m->lo, m->hi, m->p,
		m->significant ? "significant" : "not significant (within noise)");
}

static void row_value(char *buf, size_t len, enum diff_view v, double x)
{
	if (v == DIFF_VIEW_LOCKS)
		fmt_ns(buf, len, (unsigned long long)llround(x));
	else
		snprintf(buf, len, "%.1f", x);
}

static void say_rows(FILE *f, const struct diff *d)
{
	char b[32], p[32], change[32];
	size_t i, shown = 0, more = 0;

	fprintf(f, "%s changed significantly (%s per second, base -> patched, q <= %g):\n",
		d->o.view == DIFF_VIEW_LOCKS ? "locks" : "functions",
		d->o.view == DIFF_VIEW_LOCKS ? "wait" : "samples", d->o.alpha);
	for (i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[d->order[i]];

		if (r->depth || !r->significant)
			continue;
		if (shown++ >= AB_SHOW_MAX) {
			more++;
			continue;
		}
		row_value(b, sizeof(b), d->o.view, r->base.mean);
		row_value(p, sizeof(p), d->o.view, r->patched.mean);
		if (r->status == DIFF_CHANGED)
			snprintf(change, sizeof(change), "%+.1f %%", r->pct);
		else
			snprintf(change, sizeof(change), "%s", r->status == DIFF_NEW ? "new" : "gone");
		fprintf(f, "  %-40s %-10s %10s -> %-10s %9s  q %.2g\n", r->name, r->detail, b, p, change, r->q);
	}
	if (!shown)
		fprintf(f, "  none\n");
	if (more)
		fprintf(f, "  and %zu more (lockstat diff shows them all)\n", more);
}

static void say_families(FILE *f, const struct diff_family_runs *fam, size_t n)
{
	char text[256];
	int i, bad = 0;

	for (i = 0; i < DIFF_FAMILY__COUNT; i++) {
		if (diff_family_comparable(&fam[i], n, n))
			continue;
		diff_family_text(text, sizeof(text), i, &fam[i], n, n);
		fprintf(f, "%s %s\n", bad++ ? "               " : "not compared:  ", text);
	}
	if (!bad)
		fprintf(f, "not compared:  none (every run recorded the same probe families)\n");
}

/* One view's significant rows; a view none of whose families every run recorded is skipped. */
static int view_rows(FILE *f, const struct ab *a, enum diff_view view)
{
	struct diff_opts o = { .view = view, .value = DIFF_VALUE_WAIT, .test = DIFF_TEST_AUTO,
			       .adjust = ADJUST_BH, .alpha = a->alpha };
	struct diff_family_runs fam[DIFF_FAMILY__COUNT];
	size_t n = a->o.runs;
	enum diff_family first;
	struct diff d;
	int err;

	diff_families(a->runs, n, n, fam);
	if (diff_nothing_comparable(fam, n, n, view, &first)) {
		fprintf(f, "%s: not compared\n", view == DIFF_VIEW_LOCKS ? "locks" : "functions");
		return 0;
	}
	err = diff__build(&d, a->runs, n, n, &o);
	if (err)
		return err;
	if (view == DIFF_VIEW_LOCKS)
		say_metric(f, &d.metric, a->alpha, a->o.metric);
	say_rows(f, &d);
	diff__free(&d);
	return 0;
}

static void say_head(FILE *f, const struct ab *a)
{
	fprintf(f, "lockstat ab: %lu runs of each side, alternated, in %s\n", a->o.runs, a->o.dir);
	fprintf(f, "  base:    %s\n  patched: %s\n", a->cmd[0], a->cmd[1]);
}

static int summarize(struct ab *a, FILE *f)
{
	struct diff_family_runs fam[DIFF_FAMILY__COUNT];
	size_t n = a->o.runs;
	int err;

	say_head(f, a);
	err = view_rows(f, a, DIFF_VIEW_LOCKS);
	if (!err)
		err = view_rows(f, a, DIFF_VIEW_HITS);
	if (err)
		return err;
	diff_families(a->runs, n, n, fam);
	say_families(f, fam, n);
	fprintf(f, "every row: lockstat diff -b %s/base.*.data -p %s/patched.*.data\n", a->o.dir, a->o.dir);
	return 0;
}

/* The summary to a buffer, then whole to DIR/summary.txt, then to standard output. */
static int write_summary(struct ab *a)
{
	struct exp_file x;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int err;

	if (!mem)
		return -ENOMEM;
	err = summarize(a, mem);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err)
		err = exp_file_open(&x, a->o.dir, "summary.txt");
	if (!err) {
		fwrite(text, 1, len, x.f);
		err = exp_file_commit(&x);
	}
	if (!err)
		fwrite(text, 1, len, stdout);
	free(text);
	return err;
}

static void ab_free(struct ab *a)
{
	size_t i;

	if (a->runs)
		exp_unload(a->runs, 2 * a->o.runs);
	for (i = 0; a->names && i < 2 * a->o.runs; i++)
		free(a->names[i]);
	free(a->names);
	free(a->runs);
}

int cmd_ab(int argc, char **argv)
{
	struct ab a = { .o = { .runs = 5, .dir = "lockstat-ab" }, .alpha = 0.05 };
	int err = parse_args(&a, argc, argv);

	if (err) {
		usage(err > 0 ? stdout : stderr);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	err = exp_dir_make(a.o.dir);
	if (!err)
		err = make_names(&a);
	if (!err)
		err = run_all(&a);
	if (!err)
		err = exp_load(a.o.dir, a.names, 2 * a.o.runs, a.runs);
	if (!err)
		err = write_summary(&a);
	if (err == -ENOMEM)
		pr_err("out of memory\n");
	ab_free(&a);
	return err ? EXIT_FAIL : EXIT_OK;
}
