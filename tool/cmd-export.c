// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat export: a profile's CPU samples or lock waits, stack by stack,
 * for other tools: folded stacks for flame graphs, pprof's profile.proto,
 * JSON or CSV; or our own flame graph (SVG).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/buf.h"
#include "cmds.h"
#include "base/exitcode.h"
#include "out/export.h"
#include "out/flame.h"
#include "base/log.h"
#include "base/outfile.h"
#include "out/pprof.h"
#include "format/profile.h"

struct export_cmd {
	const char *input;
	const char *output;	/* NULL or "-": standard output */
	struct export_opts o;
	bool what_set;
	bool value_set;
	struct profile *p;
};

static void usage(FILE *f)
{
	print_usage(f, "export",
		"usage: lockstat export [OPTIONS]\n"
		"\n"
		"  -i, --input FILE       profile to read (default lockstat.data; - standard input)\n"
		"  -o, --output FILE      write to FILE (a regular file), replaced whole once\n"
		"                         complete (default, or -: standard output)\n"
		"  -f, --format FMT       folded (default), pprof, json, csv or svg (a flame graph)\n"
		"  -w, --what WHAT        samples (default when the profile has any) or locks\n"
		"      --value VALUE      locks: wait (default, total wait in ns) or count (contended waits)\n"
		"      --pid PID          only this process or thread (kernel locks: profiles recorded with -t)\n"
		"      --comm GLOB        only tasks whose command matches (kernel locks: recorded with -t)\n"
		"      --kernel           samples: only those whose leaf is in the kernel\n"
		"      --user             samples: only those whose leaf is in user space\n"
		"      --annotate-kernel  folded: add _[k] to kernel frames, as stackcollapse-perf.pl --kernel\n"
		"  -v, --verbose          say more\n"
		"  -q, --quiet            no warnings\n"
		"  -h, --help             this help\n");
}

enum { OPT_VALUE = 1000, OPT_PID, OPT_COMM, OPT_KERNEL, OPT_USER, OPT_ANNOTATE };

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "what", required_argument, NULL, 'w' },
	{ "value", required_argument, NULL, OPT_VALUE },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "user", no_argument, NULL, OPT_USER },
	{ "annotate-kernel", no_argument, NULL, OPT_ANNOTATE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_what(struct export_cmd *c, const char *arg)
{
	if (strcmp(arg, "samples") && strcmp(arg, "locks")) {
		pr_err("--what: '%s' is not samples or locks\n", arg);
		return -EINVAL;
	}
	c->o.what = strcmp(arg, "locks") ? EXPORT_SAMPLES : EXPORT_LOCKS;
	c->what_set = true;
	return 0;
}

static int parse_value(struct export_cmd *c, const char *arg)
{
	if (strcmp(arg, "wait") && strcmp(arg, "count")) {
		pr_err("--value: '%s' is not wait or count\n", arg);
		return -EINVAL;
	}
	c->o.value = strcmp(arg, "wait") ? EXPORT_VALUE_COUNT : EXPORT_VALUE_WAIT;
	c->value_set = true;
	return 0;
}

static int parse_one(struct export_cmd *c, int opt, const char *arg)
{
	unsigned long v;

	switch (opt) {
	case 'i': return parse_path("--input", arg, &c->input);
	case 'o': return parse_path("--output", arg, &c->output);
	case 'w': return parse_what(c, arg);
	case OPT_VALUE: return parse_value(c, arg);
	case OPT_COMM: c->o.filter.comm = arg; return 0;
	case OPT_KERNEL: c->o.filter.kernel_only = true; return 0;
	case OPT_USER: c->o.filter.user_only = true; return 0;
	case OPT_ANNOTATE: c->o.annotate_kernel = true; return 0;
	case 'v': log_verbosity++; return 0;
	case 'q': log_verbosity = -1; return 0;
	case OPT_PID:
		if (parse_ulong("--pid", arg, 0, INT_MAX, &v))
			return -EINVAL;
		c->o.filter.pid = v;
		return 0;
	case 'f':
		if (!export_format_parse(arg, &c->o.format))
			return 0;
		pr_err("--format: '%s' is not folded, pprof, json, csv or svg\n", arg);
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/* An option that cannot apply is an error, not silently ignored. */
static int check_options(const struct export_cmd *c)
{
	const struct export_opts *o = &c->o;
	bool samples_only = o->filter.kernel_only || o->filter.user_only;
	bool samples = samples_only || (c->what_set && o->what == EXPORT_SAMPLES);

	if (o->filter.kernel_only && o->filter.user_only) {
		pr_err("--kernel and --user exclude each other\n");
		return -EINVAL;
	}
	if (c->what_set && o->what == EXPORT_LOCKS && samples_only) {
		pr_err("--kernel and --user apply to --what samples\n");
		return -EINVAL;
	}
	if (o->value == EXPORT_VALUE_WAIT && samples) {
		pr_err("--value wait applies to --what locks\n");
		return -EINVAL;
	}
	if (c->value_set && o->format == EXPORT_PPROF) {
		pr_err("--value: a pprof file carries both values (pick one with pprof's -sample_index)\n");
		return -EINVAL;
	}
	if (o->annotate_kernel && o->format != EXPORT_FOLDED) {
		pr_err("--annotate-kernel applies to --format folded\n");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(struct export_cmd *c, int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "i:o:f:w:vqh", long_opts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || parse_one(c, opt, optarg))
			return -EINVAL;
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (the profile is given with -i)\n", argv[optind]);
		return -EINVAL;
	}
	return check_options(c);
}

static bool to_stdout(const struct export_cmd *c)
{
	return !c->output || !strcmp(c->output, "-");
}

/* --- loading ------------------------------------------------------------- */

static void warn_if_partial(const struct export_cmd *c)
{
	const struct profile *p = c->p;

	if (p->stop == WALK_TRUNCATED || p->stop == WALK_BAD_CRC)
		pr_warn("%s: %s at byte %" PRIu64 ", recovered %.2f s of data\n", c->input,
			p->stop == WALK_TRUNCATED ? "truncated" : "damaged chunk",
			p->stop_offset, profile__duration_ns(p) / 1e9);
	else if (!p->has_end)
		pr_warn("%s: no END chunk (recording was killed?), recovered %.2f s of data\n",
			c->input, profile__duration_ns(p) / 1e9);
}

/*
 * Without --what: samples when --kernel, --user or the profile asks for
 * them, locks for --value wait or a profile of locks only.
 */
static void choose_what(struct export_cmd *c)
{
	struct export_opts *o = &c->o;

	if (c->what_set)
		return;
	if (o->filter.kernel_only || o->filter.user_only)
		o->what = EXPORT_SAMPLES;
	else if (c->value_set && o->value == EXPORT_VALUE_WAIT)
		o->what = EXPORT_LOCKS;
	else
		o->what = c->p->samples.count ? EXPORT_SAMPLES : EXPORT_LOCKS;
}

/* Kernel or user lock waits, as report's locks view counts them. */
static bool has_lock_waits(const struct profile *p)
{
	const struct hits_filter all = { .pid = -1 };
	struct lock_view v;
	bool any;

	if (export_lock_view(&v, p, &all))
		return true;	/* the export itself says what failed */
	any = v.nrows > 0;
	lock_view__free(&v);
	return any;
}

static int check_profile(struct export_cmd *c)
{
	const char *per_task = profile__meta(c->p, "per_task");
	struct export_opts *o = &c->o;

	choose_what(c);
	if (o->what == EXPORT_LOCKS && !c->value_set)
		o->value = EXPORT_VALUE_WAIT;
	/* User locks always carry their process. */
	if (o->what == EXPORT_LOCKS && (o->filter.pid >= 0 || o->filter.comm) &&
	    (!per_task || strcmp(per_task, "1")) && !profile__ltable(c->p, TBL_ULOCKS)) {
		pr_err("--pid and --comm need a profile recorded with -t (per task) or -e ulocks to filter locks\n");
		return -EINVAL;
	}
	if (o->what == EXPORT_SAMPLES && !c->p->nsample_buckets)
		pr_warn("%s has no samples (recorded without -e sample?)\n", c->input);
	else if (o->what == EXPORT_LOCKS && !has_lock_waits(c->p))
		pr_warn("%s has no lock waits, kernel or user\n", c->input);
	return 0;
}

static int load(struct export_cmd *c)
{
	char why[256] = "";
	int err;

	err = profile__read(c->input, &c->p, why, sizeof(why));
	if (err) {
		pr_err("%s: %s\n", c->input, why[0] ? why : strerror(-err));
		return err;
	}
	warn_if_partial(c);
	return check_profile(c);
}

/* --- output --------------------------------------------------------------- */

/* The export is built unnamed and replaces the file only once complete. */
static int out_open(struct outfile *out, const char *path, FILE **f)
{
	int err;

	if (!path) {
		*f = stdout;
		return 0;
	}
	err = outfile__open(out, path, NULL);
	*f = err ? NULL : outfile__stream(out);
	if (err)
		pr_err("%s%s\n", out->why, err == -EINVAL ? " (standard output: no -o, or -o -)" : "");
	else if (!*f)
		err = -ENOMEM;
	return err;
}

/* commit: put the file in place; otherwise leave the target untouched. */
static int out_close(struct outfile *out, const char *path, bool commit)
{
	int err = 0;

	if (path && commit && (err = outfile__commit(out)))
		pr_err("%s\n", out->why);
	if (path)
		outfile__close(out);
	return err;
}

static int write_pprof(FILE *f, const struct export_cmd *c)
{
	struct buf b;
	int err;

	buf_init(&b);
	err = pprof__write(&b, c->p, &c->o);
	if (!err && b.len && fwrite(b.data, 1, b.len, f) != b.len)
		err = -EIO;
	buf_free(&b);
	return err;
}

static int export(struct export_cmd *c)
{
	const char *path = to_stdout(c) ? NULL : c->output;
	struct outfile out;
	FILE *f;
	int err = out_open(&out, path, &f);

	if (err) {
		if (err == -ENOMEM)
			pr_err("out of memory\n");
		out_close(&out, path, false);
		return err;
	}
	c->o.pretty = !path && isatty(STDOUT_FILENO);
	if (c->o.format == EXPORT_PPROF)
		err = write_pprof(f, c);
	else if (c->o.format == EXPORT_SVG)
		err = flame__export_svg(f, c->p, &c->o, c->input);
	else
		err = export__text(f, c->p, &c->o);
	if (err == -EIO && path)
		pr_err("writing %s failed: %s\n", path, strerror(errno ? errno : EIO));
	else if (err && err != -EIO)
		pr_err("exporting %s: %s\n", c->input, strerror(-err));
	err = out_close(&out, path, !err) ? -EIO : err;
	return err;
}

int cmd_export(int argc, char **argv)
{
	struct export_cmd c = {
		.input = "lockstat.data",
		.o = { .format = EXPORT_FOLDED, .filter = { .pid = -1 } },
	};
	int err;

	err = parse_args(&c, argc, argv);
	if (err) {
		usage(err > 0 ? stdout : stderr);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (c.o.format == EXPORT_PPROF && to_stdout(&c) && isatty(STDOUT_FILENO)) {
		pr_err("not writing pprof's gzip-compressed binary to a terminal: use -o FILE or redirect standard output\n");
		return EXIT_USAGE;
	}
	log_set_json_errors(c.o.format == EXPORT_JSON && to_stdout(&c));
	err = load(&c);
	if (!err)
		err = export(&c);
	profile__free(c.p);
	return err ? EXIT_FAIL : EXIT_OK;
}
