// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat sweep: one workload at each point of a ladder, the first K
 * CPUs (by affinity) or K threads (a {} in the command), recorded at
 * every point: how the workload's figure scales against linear, and
 * which locks eat the CPUs it was given, as the lockmeter scaling graphs
 * showed it. The runs go round the ladder (1 2 4, 1 2 4, ...) so that a
 * drift falls on every point alike. The locks of each point are read
 * with diff's model (lib/view/diff.c, the first point as its base): the
 * same rows, names and per-second means as lockstat diff of two points.
 * Outputs: DIR/sweep.json, DIR/sweep.svg, and DIR/sweep.txt written last,
 * each whole: a directory without sweep.txt did not finish.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "exp.h"
#include "base/exitcode.h"
#include "base/json.h"
#include "base/log.h"
#include "base/nsfmt.h"

#define SWEEP_POINTS_MAX	64
#define SWEEP_LOCKS_MAX		8

static void usage(FILE *f)
{
	print_usage(f, "sweep",
		"usage: lockstat sweep --cpus LIST [OPTIONS] -- COMMAND [ARGS]\n"
		"       lockstat sweep --threads LIST [OPTIONS] -- COMMAND ... {} ...\n"
		"\n"
		"      --cpus LIST      the points: run on the first K CPUs, for each K of LIST\n"
		"                       (e.g. 1,2,4,8)\n"
		"      --threads LIST   the points: {} in COMMAND becomes each K of LIST\n"
		"      --metric REGEX   the workload's own figure, as record --metric takes it\n"
		"                       (needed: it is what is plotted)\n"
		"  -r, --runs N         runs at each point (default 3)\n"
		"  -o, --output DIR     new or empty directory for the profiles, logs, table,\n"
		"                       JSON and plot (default lockstat-sweep)\n"
		"  -n, --top N          locks followed across the points (default 3, at most 8)\n"
		"  -f, --format FMT     what is printed: text (default) or json\n"
		"  -q, --quiet          no progress\n"
		"  -h, --help           this help\n");
}

enum { OPT_CPUS = 1000, OPT_THREADS, OPT_METRIC };

static const struct option long_opts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "runs", required_argument, NULL, 'r' },
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'f' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct point {
	unsigned long x;	/* CPUs or threads */
	unsigned long cpus;	/* the CPUs the workload had */
	double mean, half;	/* the figure, and its 95 % interval's half-width */
	size_t nfig;		/* runs with the figure */
	double wait[SWEEP_LOCKS_MAX];	/* ns of wait per second, per followed lock */
};

struct sweep {
	struct exp_opts o;
	const char *ladder;	/* "cpus" or "threads" */
	unsigned long xs[SWEEP_POINTS_MAX];
	size_t npts;
	char **argv;
	cpu_set_t allowed;	/* the CPUs lockstat may run on: --cpus takes the first K */
	unsigned long ncpus;
	unsigned long top;
	bool json;
	char **names;		/* point-major: names[k * runs + i] */
	struct diff_run *runs;
	struct point pts[SWEEP_POINTS_MAX];
	char *lock[SWEEP_LOCKS_MAX], *detail[SWEEP_LOCKS_MAX];
	size_t nlocks;
	char fig[64];		/* the figure's name */
};

/* "1,2,4": at least one, each 1..1024, rising. */
static int parse_ladder(struct sweep *s, const char *opt, const char *arg)
{
	char *end;
	const char *p = arg;
	unsigned long v;

	if (s->ladder) {
		pr_err("give one ladder: --cpus or --threads, once\n");
		return -EINVAL;
	}
	s->ladder = opt + 2;
	for (;;) {
		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || *p == '-' || errno || v < 1 || v > 1024 || (*end && *end != ',') ||
		    s->npts == SWEEP_POINTS_MAX || (s->npts && v <= s->xs[s->npts - 1])) {
			pr_err("%s: '%s' is not a rising list of numbers from 1 to 1024 (e.g. 1,2,4)\n", opt, arg);
			return -EINVAL;
		}
		s->xs[s->npts++] = v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int parse_one(struct sweep *s, int opt, const char *arg)
{
	switch (opt) {
	case OPT_CPUS: return parse_ladder(s, "--cpus", arg);
	case OPT_THREADS: return parse_ladder(s, "--threads", arg);
	case OPT_METRIC: return exp_metric_parse(&s->o, arg);
	case 'r': return parse_ulong("--runs", arg, 1, 1000, &s->o.runs);
	case 'o': s->o.dir = arg; return 0;
	case 'n': return parse_ulong("--top", arg, 1, SWEEP_LOCKS_MAX, &s->top);
	case 'f':
		if (!strcmp(arg, "text") || !strcmp(arg, "json")) {
			s->json = !strcmp(arg, "json");
			return 0;
		}
		pr_err("--format: '%s' is not text or json\n", arg);
		return -EINVAL;
	case 'q': log_verbosity = -1; return 0;
	default: return -EINVAL;
	}
}

static bool has_placeholder(char **argv)
{
	for (; *argv; argv++)
		if (strstr(*argv, "{}"))
			return true;
	return false;
}

static int check_args(struct sweep *s)
{
	if (!s->ladder) {
		pr_err("no ladder: give --cpus LIST or --threads LIST\n");
		return -EINVAL;
	}
	if (!s->argv) {
		pr_err("no command: give it after --\n");
		return -EINVAL;
	}
	if (!s->o.metric) {
		pr_err("--metric REGEX is needed: the workload's figure is what a sweep plots\n");
		return -EINVAL;
	}
	if (!strcmp(s->ladder, "threads") && !has_placeholder(s->argv)) {
		pr_err("--threads: the command has no {} to put the thread count in\n");
		return -EINVAL;
	}
	if (!strcmp(s->ladder, "cpus") && s->xs[s->npts - 1] > s->ncpus) {
		pr_err("--cpus: %lu CPUs asked for, lockstat may run on %lu\n", s->xs[s->npts - 1], s->ncpus);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(struct sweep *s, int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "+r:o:n:f:qh", long_opts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || parse_one(s, opt, optarg))
			return -EINVAL;
	}
	if (optind < argc)
		s->argv = argv + optind;
	return check_args(s);
}

/* --- the runs ------------------------------------------------------------------------- */

/* The first k CPUs of those lockstat may run on. */
static void first_cpus(const cpu_set_t *allowed, unsigned long k, cpu_set_t *out)
{
	int cpu;

	CPU_ZERO(out);
	for (cpu = 0; cpu < CPU_SETSIZE && (unsigned long)CPU_COUNT(out) < k; cpu++)
		if (CPU_ISSET(cpu, allowed))
			CPU_SET(cpu, out);
}

/* Every {} of every argument becomes x; NULL: no memory. */
static char *subst(const char *arg, unsigned long x)
{
	char num[24], *out, *o;
	const char *p;
	size_t n = 1;

	snprintf(num, sizeof(num), "%lu", x);
	for (p = arg; *p; p++)
		n += strncmp(p, "{}", 2) ? 1 : strlen(num);
	out = o = malloc(n);
	for (p = arg; out && *p; p++) {
		if (strncmp(p, "{}", 2)) {
			*o++ = *p;
			continue;
		}
		o = stpcpy(o, num);
		p++;
	}
	if (out)
		*o = '\0';
	return out;
}

static void free_argv(char **argv)
{
	size_t j;

	for (j = 0; argv && argv[j]; j++)
		free(argv[j]);
	free(argv);
}

/* The command of a --threads point: {} replaced. NULL: no memory. */
static char **point_argv(char **cmd, unsigned long x)
{
	size_t n = 0, j;
	char **argv;

	while (cmd[n])
		n++;
	argv = calloc(n + 1, sizeof(*argv));
	for (j = 0; argv && j < n; j++)
		if (!(argv[j] = subst(cmd[j], x))) {
			free_argv(argv);
			return NULL;
		}
	return argv;
}

static int run_point(struct sweep *s, size_t k, size_t i)
{
	bool cpus = !strcmp(s->ladder, "cpus");
	char **argv = cpus ? s->argv : point_argv(s->argv, s->xs[k]);
	char what[96];
	cpu_set_t pin;
	int err;

	if (!argv)
		return -ENOMEM;
	first_cpus(&s->allowed, s->xs[k], &pin);
	snprintf(what, sizeof(what), "%s=%lu run %zu of %lu", s->ladder, s->xs[k], i + 1, s->o.runs);
	pr_notice("%s\n", what);
	err = exp_record(&s->o, s->names[k * s->o.runs + i], argv, cpus ? &pin : NULL, what);
	if (!cpus)
		free_argv(argv);
	return err;
}

static int make_names(struct sweep *s)
{
	size_t k, i, n = s->npts * s->o.runs;
	char name[64];

	s->names = calloc(n, sizeof(*s->names));
	s->runs = calloc(n, sizeof(*s->runs));
	if (!s->names || !s->runs)
		return -ENOMEM;
	for (k = 0; k < s->npts; k++)
		for (i = 0; i < s->o.runs; i++) {
			snprintf(name, sizeof(name), "%s-%lu.%zu", s->ladder, s->xs[k], i + 1);
			if (!(s->names[k * s->o.runs + i] = strdup(name)))
				return -ENOMEM;
		}
	return 0;
}

/* Round the ladder, run after run: a drift falls on every point alike. */
static int run_all(struct sweep *s)
{
	size_t k, i;
	int err = 0;

	for (i = 0; !err && i < s->o.runs; i++)
		for (k = 0; !err && k < s->npts; k++)
			err = run_point(s, k, i);
	return err;
}

/* --- what the runs say ------------------------------------------------------------------ */

static void read_figures(struct sweep *s, size_t k)
{
	const struct diff_run *r = s->runs + k * s->o.runs;
	double v[1000];
	size_t i;

	s->pts[k].nfig = 0;
	for (i = 0; i < s->o.runs; i++) {
		const char *val = profile__meta(r[i].p, "metric.value");
		const char *name = profile__meta(r[i].p, "metric.name");
		char *end;

		if (!val || !*val)
			continue;
		v[s->pts[k].nfig] = strtod(val, &end);
		if (*end || !isfinite(v[s->pts[k].nfig]))
			continue;
		s->pts[k].nfig++;
		if (!s->fig[0] && name)
			snprintf(s->fig, sizeof(s->fig), "%s", name);
	}
	exp_interval(v, s->pts[k].nfig, &s->pts[k].mean, &s->pts[k].half);
}

/* The locks followed: the largest waits at the last point, where contention is worst. */
static int pick_locks(struct sweep *s, const struct diff *d)
{
	bool *taken = calloc(d->nrows + 1, sizeof(*taken));
	size_t i, best;

	if (!taken)
		return -ENOMEM;
	while (s->nlocks < s->top) {
		for (i = 0, best = d->nrows; i < d->nrows; i++)
			if (!taken[i] && !d->rows[i].depth && d->rows[i].patched.mean > 0 &&
			    (best == d->nrows || d->rows[i].patched.mean > d->rows[best].patched.mean))
				best = i;
		if (best == d->nrows)
			break;
		taken[best] = true;
		s->lock[s->nlocks] = strdup(d->rows[best].name);
		s->detail[s->nlocks] = strdup(d->rows[best].detail);
		if (!s->lock[s->nlocks] || !s->detail[s->nlocks]) {
			free(taken);
			return -ENOMEM;
		}
		s->nlocks++;
	}
	free(taken);
	return 0;
}

static double lock_wait(const struct sweep *s, const struct diff *d, size_t l)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!d->rows[i].depth && !strcmp(d->rows[i].name, s->lock[l]) &&
		    !strcmp(d->rows[i].detail, s->detail[l]))
			return d->rows[i].patched.mean;
	return 0;
}

/*
 * diff's model compares two sides; a point's own means are its patched
 * side against any base, so each point is diffed against itself.
 */
static int point_locks(struct sweep *s, size_t k)
{
	struct diff_opts o = { .view = DIFF_VIEW_LOCKS, .value = DIFF_VALUE_WAIT, .test = DIFF_TEST_AUTO,
			       .adjust = ADJUST_BH, .alpha = 0.05 };
	const struct diff_run *r = s->runs + k * s->o.runs;
	struct diff_run both[2000];
	size_t n = s->o.runs, l;
	struct diff d;
	int err;

	memcpy(both, r, n * sizeof(*r));
	memcpy(both + n, r, n * sizeof(*r));
	err = diff__build(&d, both, n, n, &o);
	if (err)
		return err;
	if (k == s->npts - 1 && !s->nlocks)
		err = pick_locks(s, &d);
	for (l = 0; l < s->nlocks; l++)
		s->pts[k].wait[l] = lock_wait(s, &d, l);
	diff__free(&d);
	return err;
}

static int analyze(struct sweep *s)
{
	size_t k;
	int err = 0;

	for (k = 0; k < s->npts; k++) {
		s->pts[k].x = s->xs[k];
		s->pts[k].cpus = strcmp(s->ladder, "cpus") ? s->ncpus : s->xs[k];
		read_figures(s, k);
	}
	/* The last point picks the locks, then every point is read for them. */
	err = point_locks(s, s->npts - 1);
	for (k = 0; !err && k + 1 < s->npts; k++)
		err = point_locks(s, k);
	return err;
}

static double share(const struct point *p, size_t l)
{
	return 100 * p->wait[l] / 1e9 / p->cpus;
}

static double speedup(const struct sweep *s, size_t k)
{
	return s->pts[k].mean / s->pts[0].mean;
}

static double linear(const struct sweep *s, size_t k)
{
	return (double)s->pts[k].x / s->pts[0].x;
}

/* --- outputs ---------------------------------------------------------------------------- */

static void print_text(FILE *f, const struct sweep *s)
{
	char cmd[512], ns[32], cell[64];
	size_t k, l;

	exp_argv_text(cmd, sizeof(cmd), s->argv);
	fprintf(f, "# lockstat sweep over %s, runs a point: %lu, in %s\n# command: %s\n", s->ladder, s->o.runs,
		s->o.dir, cmd);
	fprintf(f, "# %s: the runs' mean and its 95 %% interval; speedup against the first point, and that\n"
		"# speedup as a share of linear (the point's %s over the first's)\n", s->fig, s->ladder);
	fprintf(f, "%7s %14s %9s %8s %7s %10s\n", s->ladder, s->fig, "+-95%", "speedup", "linear", "of linear");
	for (k = 0; k < s->npts; k++) {
		const struct point *p = &s->pts[k];

		char half[16] = "-";
		char fig[32];

		if (!isnan(p->half))
			snprintf(half, sizeof(half), "%.1f%%", 100 * p->half / p->mean);
		exp_figure(fig, sizeof(fig), p->mean);
		fprintf(f, "%7lu %14s %9s %8.2f %7.2f %9.0f%%\n", p->x, fig, half, speedup(s, k), linear(s, k),
			100 * speedup(s, k) / linear(s, k));
	}
	fprintf(f, "\n# the top locks at each point: wait per second (%% of the point's CPUs: %s)\n",
		strcmp(s->ladder, "cpus") ? "all lockstat may run on" : "the ladder's");
	if (!s->nlocks)
		fprintf(f, "# none: no lock wait at the last point\n");
	else
		fprintf(f, "%-44s", "lock");
	for (k = 0; s->nlocks && k < s->npts; k++) {
		snprintf(cell, sizeof(cell), "%s=%lu", s->ladder, s->pts[k].x);
		fprintf(f, " %20s", cell);
	}
	for (l = 0; l < s->nlocks; l++) {
		snprintf(cell, sizeof(cell), "%s (%s)", s->lock[l], s->detail[l]);
		fprintf(f, "\n%-44s", cell);
		for (k = 0; k < s->npts; k++) {
			fmt_ns(ns, sizeof(ns), (unsigned long long)llround(s->pts[k].wait[l]));
			snprintf(cell, sizeof(cell), "%s (%.1f%%)", ns, share(&s->pts[k], l));
			fprintf(f, " %20s", cell);
		}
	}
	fprintf(f, "\n");
}

static void json_point(struct json_writer *jw, const struct sweep *s, size_t k)
{
	const struct point *p = &s->pts[k];
	size_t l;

	jw_start_object(jw);
	jw_u64_field(jw, "point", p->x);
	jw_u64_field(jw, "cpus", p->cpus);
	jw_u64_field(jw, "runs", p->nfig);
	jw_double_field(jw, "figure", p->mean);
	jw_double_field(jw, "figure_ci95", p->half);
	jw_double_field(jw, "speedup", speedup(s, k));
	jw_double_field(jw, "linear", linear(s, k));
	jw_name(jw, "locks");
	jw_start_array(jw);
	for (l = 0; l < s->nlocks; l++) {
		jw_start_object(jw);
		jw_string_field(jw, "name", s->lock[l]);
		jw_string_field(jw, "type", s->detail[l]);
		jw_double_field(jw, "wait_ns_per_s", p->wait[l]);
		jw_double_field(jw, "cpu_pct", share(p, l));
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

static int print_json(FILE *f, const struct sweep *s)
{
	struct json_writer *jw = jw_new(f, true);
	size_t k;

	if (!jw)
		return -ENOMEM;
	jw_start_object(jw);
	jw_string_field(jw, "ladder", s->ladder);
	jw_u64_field(jw, "runs", s->o.runs);
	jw_name(jw, "command");
	jw_start_array(jw);
	for (k = 0; s->argv[k]; k++)
		jw_string(jw, s->argv[k]);
	jw_end_array(jw);
	jw_string_field(jw, "figure", s->fig);
	jw_name(jw, "points");
	jw_start_array(jw);
	for (k = 0; k < s->npts; k++)
		json_point(jw, s, k);
	jw_end_array(jw);
	jw_end_object(jw);
	jw_free(jw);
	fputc('\n', f);
	return 0;
}

/* --- the plot --------------------------------------------------------------------------- */

#define SVG_W		720
#define SVG_LEFT	80	/* the panels' plot area */
#define SVG_RIGHT	520
#define SVG_PANEL_H	220
#define SVG_TOP1	50
#define SVG_TOP2	340

static const char *const colors[SWEEP_LOCKS_MAX] = {
	"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
};

/* XML text: markup escaped, control characters as '?'. */
static void put_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
		}
	}
}

struct axes {
	double xmax, ymax;
	int top;
};

static double px(const struct axes *a, double x)
{
	return SVG_LEFT + (SVG_RIGHT - SVG_LEFT) * x / a->xmax;
}

static double py(const struct axes *a, double y)
{
	return a->top + SVG_PANEL_H - SVG_PANEL_H * (a->ymax > 0 ? y / a->ymax : 0);
}

/* The frame, a tick at every point, 0, half and the top of y, and the labels. */
static void svg_axes(FILE *f, const struct sweep *s, const struct axes *a, const char *ylabel)
{
	char tick[32];
	size_t k;
	int i;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		SVG_LEFT, a->top, SVG_RIGHT - SVG_LEFT, SVG_PANEL_H);
	for (k = 0; k < s->npts; k++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%lu</text>\n", px(a, s->pts[k].x),
			a->top + SVG_PANEL_H + 16, s->pts[k].x);
	for (i = 0; i <= 2; i++) {
		exp_figure(tick, sizeof(tick), a->ymax * i / 2);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", SVG_LEFT - 4,
			py(a, a->ymax * i / 2) + 4, tick);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", (SVG_LEFT + SVG_RIGHT) / 2,
		a->top + SVG_PANEL_H + 34, s->ladder);
	fprintf(f, "<text x=\"%d\" y=\"%d\">", SVG_LEFT, a->top - 8);
	put_xml(f, ylabel);
	fprintf(f, "</text>\n");
}

static void svg_figure(FILE *f, const struct sweep *s)
{
	struct axes a = { .xmax = s->pts[s->npts - 1].x, .top = SVG_TOP1 };
	char label[128];
	size_t k;

	a.ymax = s->pts[0].mean * linear(s, s->npts - 1);
	for (k = 0; k < s->npts; k++)
		a.ymax = fmax(a.ymax, s->pts[k].mean + (isnan(s->pts[k].half) ? 0 : s->pts[k].half));
	a.ymax = isfinite(a.ymax) ? a.ymax * 1.1 : 1;
	snprintf(label, sizeof(label), "%s (mean, 95 %% interval) and linear from the first point", s->fig);
	svg_axes(f, s, &a, label);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n",
		px(&a, s->pts[0].x), py(&a, s->pts[0].mean), px(&a, a.xmax), py(&a, s->pts[0].mean * linear(s, s->npts - 1)));
	fprintf(f, "<polyline fill=\"none\" stroke=\"#000\" stroke-width=\"2\" points=\"");
	for (k = 0; k < s->npts; k++)
		fprintf(f, "%s%.1f,%.1f", k ? " " : "", px(&a, s->pts[k].x), py(&a, s->pts[k].mean));
	fprintf(f, "\"/>\n");
	for (k = 0; k < s->npts; k++) {
		const struct point *p = &s->pts[k];

		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n", px(&a, p->x), py(&a, p->mean));
		if (!isnan(p->half))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
				px(&a, p->x), py(&a, p->mean - p->half), px(&a, p->x), py(&a, p->mean + p->half));
	}
}

static void svg_locks(FILE *f, const struct sweep *s)
{
	struct axes a = { .xmax = s->pts[s->npts - 1].x, .top = SVG_TOP2, .ymax = 1 };
	size_t k, l;

	for (k = 0; k < s->npts; k++)
		for (l = 0; l < s->nlocks; l++)
			a.ymax = fmax(a.ymax, share(&s->pts[k], l) * 1.1);
	svg_axes(f, s, &a, "the top locks' wait, % of the point's CPUs");
	for (l = 0; l < s->nlocks; l++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colors[l]);
		for (k = 0; k < s->npts; k++)
			fprintf(f, "%s%.1f,%.1f", k ? " " : "", px(&a, s->pts[k].x), py(&a, share(&s->pts[k], l)));
		fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" fill=\"%s\">", SVG_RIGHT + 10, SVG_TOP2 + 12 + 16 * (int)l,
			colors[l]);
		put_xml(f, s->lock[l]);
		fprintf(f, "</text>\n");
	}
}

static void print_svg(FILE *f, const struct sweep *s)
{
	char cmd[512];
	int h = SVG_TOP2 + SVG_PANEL_H + 50;

	exp_argv_text(cmd, sizeof(cmd), s->argv);
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n<text x=\"%d\" y=\"20\" font-size=\"14\">",
		SVG_W, h, SVG_W, h, SVG_LEFT);
	fprintf(f, "lockstat sweep over %s: ", s->ladder);
	put_xml(f, cmd);
	fprintf(f, "</text>\n");
	svg_figure(f, s);
	svg_locks(f, s);
	fprintf(f, "</svg>\n");
}

/* --- the command ------------------------------------------------------------------------ */

static int write_file(const struct sweep *s, const char *name, int what)
{
	struct exp_file x;
	int err = exp_file_open(&x, s->o.dir, name);

	if (err)
		return err;
	if (what == 'j')
		err = print_json(x.f, s);
	else if (what == 's')
		print_svg(x.f, s);
	else
		print_text(x.f, s);
	if (err) {
		outfile__close(&x.out);
		return err;
	}
	return exp_file_commit(&x);
}

/* The table last: a directory that holds sweep.txt is a finished sweep. */
static int write_all(const struct sweep *s)
{
	int err = write_file(s, "sweep.json", 'j');

	if (!err)
		err = write_file(s, "sweep.svg", 's');
	if (!err)
		err = write_file(s, "sweep.txt", 't');
	if (!err && s->json)
		err = print_json(stdout, s);
	else if (!err)
		print_text(stdout, s);
	return err;
}

static void sweep_free(struct sweep *s)
{
	size_t i, n = s->npts * s->o.runs;

	if (s->runs)
		exp_unload(s->runs, n);
	for (i = 0; s->names && i < n; i++)
		free(s->names[i]);
	for (i = 0; i < s->nlocks; i++) {
		free(s->lock[i]);
		free(s->detail[i]);
	}
	free(s->names);
	free(s->runs);
}

static int sweep(struct sweep *s)
{
	int err = exp_dir_make(s->o.dir);

	if (!err)
		err = make_names(s);
	if (!err)
		err = run_all(s);
	if (!err)
		err = exp_load(s->o.dir, s->names, s->npts * s->o.runs, s->runs);
	if (!err)
		err = analyze(s);
	if (!err && !s->fig[0]) {
		pr_err("no run's output matched --metric '%s': nothing to plot (the logs are in %s)\n", s->o.metric,
		       s->o.dir);
		err = -EINVAL;
	}
	if (!err)
		err = write_all(s);
	return err;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep s = { .o = { .runs = 3, .dir = "lockstat-sweep" }, .top = 3 };
	int err;

	if (sched_getaffinity(0, sizeof(s.allowed), &s.allowed)) {
		pr_err("sched_getaffinity: %s\n", strerror(errno));
		return EXIT_FAIL;
	}
	s.ncpus = CPU_COUNT(&s.allowed);
	err = parse_args(&s, argc, argv);
	if (err) {
		usage(err > 0 ? stdout : stderr);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	err = sweep(&s);
	if (err == -ENOMEM)
		pr_err("out of memory\n");
	sweep_free(&s);
	return err ? EXIT_FAIL : EXIT_OK;
}
