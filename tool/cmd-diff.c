// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat diff: a baseline against a patched kernel, each side one
 * profile or several runs. Rows are matched by normalized name; each has
 * its per-second means, shares, change and a significance test (the
 * model is lib/view/diff.c, the tests lib/view/stats.c): the options and
 * the runs here, printed as text, JSON or CSV (diff-table.c) or as a
 * differential flame graph (diff-svg.c).
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
#include "base/log.h"
#include "out/output.h"
#include "format/profile.h"
#include "diff.h"


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
	print_diff(c, &d);
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
