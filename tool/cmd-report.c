// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report: its options, the profile loaded once, and the view
 * asked for printed by its own file (report-<view>.c, through report.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "format/locktype.h"
#include "base/log.h"
#include "out/output.h"
#include "format/profile.h"
#include "view/view_locks.h"
#include "report.h"


static void usage(FILE *f)
{
	print_usage(f, "report",
		"usage: lockstat report [OPTIONS]\n"
		"\n"
		"  -i, --input FILE       profile to read (default lockstat.data; - standard input)\n"
		"  -V, --view VIEW        locks (default), hits (the sampled functions),\n"
		"                         tables (the counter tables as recorded), fd (per\n"
		"                         process: fd table sharing, fd syscalls, fget, file_lock)\n"
		"                         or pagecache (per file and process: pages, hit ratio)\n"
		"  -k, --sort KEY         locks: wait_total (default), contended, wait_max, wait_avg,\n"
		"                         wait_min, name, acquired, hold_total, hold_max;\n"
		"                         hits: samples (default), name\n"
		"  -n, --top N            only the first N locks\n"
		"      --hist             the log2 wait histogram of each lock (text, json)\n"
		"      --stacks           the stacks of each lock (user stacks for u: types;\n"
		"                         text, json)\n"
		"      --lock GLOB        only locks whose name matches (a word without * matches inside)\n"
		"      --caller GLOB      only waits from matching callers (e.g. alloc_fd)\n"
		"      --type TYPE        spinlock, rwlock[:R|:W], rwsem[:R|:W], mutex, mutex:spin, ...\n"
		"      --pid PID          only this process or thread (profiles recorded with -t)\n"
		"      --comm GLOB        only tasks whose command matches (locks: profiles recorded with -t)\n"
		"      --fold-arrays      one row per array of locks: table[3] and table[7] are table[]\n"
		"hits view:\n"
		"      --kernel           only samples whose leaf is in the kernel\n"
		"      --user             only samples whose leaf is in user space\n"
		"      --module GLOB      only functions of matching modules or files\n"
		"      --callers FUNC     who calls FUNC, by samples\n"
		"      --callees FUNC     whom FUNC calls, by samples\n"
		"      --lines            one row per source line (file:line) instead of per function\n"
		"tables view:\n"
		"      --table NAME       only this table (needed for json and csv)\n"
		"      --cost             the cost ledger: what the probes, lockstat and the\n"
		"                         workload used, and the overhead (text, json)\n"
		"  -f, --format FMT       text (default), json or csv\n"
		"  -v, --verbose          say more\n"
		"  -q, --quiet            no warnings\n"
		"  -h, --help             this help\n");
}

enum { OPT_HIST = 1000, OPT_STACKS, OPT_LOCK, OPT_CALLER, OPT_TYPE, OPT_PID, OPT_COMM,
       OPT_KERNEL, OPT_USER, OPT_MODULE, OPT_CALLERS, OPT_CALLEES, OPT_LINES,
       OPT_TABLE, OPT_FOLD_ARRAYS, OPT_COST };

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "sort", required_argument, NULL, 'k' },
	{ "top", required_argument, NULL, 'n' },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "lock", required_argument, NULL, OPT_LOCK },
	{ "caller", required_argument, NULL, OPT_CALLER },
	{ "type", required_argument, NULL, OPT_TYPE },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "fold-arrays", no_argument, NULL, OPT_FOLD_ARRAYS },
	{ "view", required_argument, NULL, 'V' },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "user", no_argument, NULL, OPT_USER },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "callers", required_argument, NULL, OPT_CALLERS },
	{ "callees", required_argument, NULL, OPT_CALLEES },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "cost", no_argument, NULL, OPT_COST },
	{ "format", required_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_type(const char *s)
{
	if (lock_type_known(s))
		return 0;
	pr_err("--type: unknown lock type '%s' (see lockstat-report(1))\n", s);
	return -EINVAL;
}

struct out_doc *report__doc(const struct report *r)
{
	struct out_doc *d = out_doc__new(stdout, r->o.format, isatty(STDOUT_FILENO));

	if (d)
		out_head(d, r->p, r->o.input);
	return d;
}

/* One entry per view: --view NAME selects it, print() shows it. */
static const struct {
	const char *name;
	enum report_view view;
	int (*print)(const struct report *r);
} views[] = {
	{ "locks", VIEW_LOCKS, print_locks },
	{ "hits", VIEW_HITS, print_hits },
	{ "tables", VIEW_TABLES, print_tables },
	{ "fd", VIEW_FD, print_fd },
	{ "pagecache", VIEW_PAGECACHE, print_pagecache },
};

#define NVIEWS	(sizeof(views) / sizeof(views[0]))

static int parse_view(struct report_opts *o, const char *arg)
{
	char names[128];
	size_t i, used = 0;

	for (i = 0; i < NVIEWS; i++) {
		if (!strcmp(arg, views[i].name)) {
			o->view = views[i].view;
			return 0;
		}
		used += snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", views[i].name);
	}
	pr_err("--view: '%s' is not one of %s\n", arg, names);
	return -EINVAL;
}

static int parse_one(struct report_opts *o, int opt, const char *arg)
{
	unsigned long v;

	switch (opt) {
	case 'i': return parse_path("--input", arg, &o->input);
	case OPT_HIST: o->hist = true; return 0;
	case OPT_STACKS: o->stacks = true; return 0;
	case OPT_LOCK: o->filter.lock = arg; return 0;
	case OPT_CALLER: o->filter.caller = arg; return 0;
	case OPT_FOLD_ARRAYS: o->filter.fold_arrays = true; return 0;
	case OPT_COMM: o->filter.comm = o->hits.comm = arg; return 0;
	case OPT_KERNEL: o->hits.kernel_only = true; return 0;
	case OPT_USER: o->hits.user_only = true; return 0;
	case OPT_MODULE: o->hits.module = arg; return 0;
	case OPT_CALLERS:
	case OPT_CALLEES:
		if (o->graph_func) {
			pr_err("--callers and --callees: one of them, once\n");
			return -EINVAL;
		}
		o->graph_func = arg;
		o->graph_callers = opt == OPT_CALLERS;
		return 0;
	case OPT_LINES: o->lines = true; return 0;
	case OPT_TABLE: o->table = arg; return 0;
	case OPT_COST:
		if (o->view_given) {
			pr_err("--cost and --view: one of them\n");
			return -EINVAL;
		}
		o->view = VIEW_COST;
		return 0;
	case 'V':
		if (o->view == VIEW_COST) {
			pr_err("--cost and --view: one of them\n");
			return -EINVAL;
		}
		o->view_given = true;
		return parse_view(o, arg);
	case 'v': log_verbosity++; return 0;
	case 'q': log_verbosity = -1; return 0;
	case OPT_TYPE:
		o->filter.type = arg;
		return parse_type(arg);
	case 'n':
		return parse_ulong("--top", arg, 0, ULONG_MAX, &o->top_n);
	case OPT_PID:
		if (parse_ulong("--pid", arg, 0, INT_MAX, &v))
			return -EINVAL;
		o->filter.pid = o->hits.pid = v;
		return 0;
	case 'k':
		o->sort_key = arg;	/* checked once the view is known */
		return 0;
	case 'f':
		if (!out_format_parse(arg, &o->format))
			return 0;
		pr_err("--format: '%s' is not text, json or csv\n", arg);
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Options of one view given to the other are errors, not silently ignored. */
static int check_view_options(struct report_opts *o)
{
	bool hits_opt = o->hits.kernel_only || o->hits.user_only || o->hits.module || o->graph_func || o->lines;
	bool locks_opt = o->hist || o->stacks || o->filter.lock || o->filter.caller || o->filter.type;

	if (o->view != VIEW_HITS && hits_opt) {
		pr_err("--kernel, --user, --module, --callers, --callees and --lines need --view hits\n");
		return -EINVAL;
	}
	if (o->table && o->view != VIEW_TABLES) {
		pr_err("--table needs --view tables\n");
		return -EINVAL;
	}
	if (o->view != VIEW_LOCKS && locks_opt) {
		pr_err("--hist, --stacks, --lock, --caller and --type belong to the locks view\n");
		return -EINVAL;
	}
	if (o->hits.kernel_only && o->hits.user_only) {
		pr_err("--kernel and --user exclude each other\n");
		return -EINVAL;
	}
	if ((o->hist || o->stacks) && o->format == OUT_CSV) {
		pr_err("--hist and --stacks have no CSV form: use -f text or -f json\n");
		return -EINVAL;
	}
	if (o->view == VIEW_COST && (o->sort_key || o->top_n || o->filter.pid >= 0 || o->filter.comm ||
				     o->filter.fold_arrays)) {
		pr_err("--cost takes none of --sort, --top, --pid, --comm and --fold-arrays\n");
		return -EINVAL;
	}
	if (o->view == VIEW_COST && o->format == OUT_CSV) {
		pr_err("--cost has no CSV form: use -f text or -f json\n");
		return -EINVAL;
	}
	if (!o->sort_key)
		return 0;
	if (o->view == VIEW_HITS) {
		if (!strcmp(o->sort_key, "samples") || !strcmp(o->sort_key, "name")) {
			o->hits_sort = strcmp(o->sort_key, "name") ? HITS_SORT_SAMPLES : HITS_SORT_NAME;
			return 0;
		}
		pr_err("--sort: unknown key '%s' for hits (samples, name)\n", o->sort_key);
		return -EINVAL;
	}
	if (!lock_sort_parse(o->sort_key, &o->sort))
		return 0;
	pr_err("--sort: unknown key '%s' (wait_total, contended, wait_max, wait_avg, wait_min, name, acquired, hold_total, hold_max)\n", o->sort_key);
	return -EINVAL;
}

static int parse_args(struct report_opts *o, int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "i:k:n:f:V:vqh", long_opts)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || parse_one(o, opt, optarg))
			return -EINVAL;
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (the profile is given with -i)\n", argv[optind]);
		return -EINVAL;
	}
	return check_view_options(o);
}

/* --- loading ------------------------------------------------------------- */

static void warn_if_partial(const struct report *r)
{
	if (r->p->stop == WALK_TRUNCATED || r->p->stop == WALK_BAD_CRC)
		pr_warn("%s: %s at byte %" PRIu64 ", recovered %.2f s of data\n", r->o.input,
			r->p->stop == WALK_TRUNCATED ? "truncated" : "damaged chunk",
			r->p->stop_offset, profile__duration_ns(r->p) / 1e9);
	else if (!r->p->has_end)
		pr_warn("%s: no END chunk (recording was killed?), recovered %.2f s of data\n",
			r->o.input, profile__duration_ns(r->p) / 1e9);
}

static int load(struct report *r)
{
	char why[256] = "";
	const char *cpus, *per_task;
	int err;

	err = profile__read(r->o.input, &r->p, why, sizeof(why));
	if (err) {
		pr_err("%s: %s\n", r->o.input, why[0] ? why : strerror(-err));
		return err;
	}
	warn_if_partial(r);
	per_task = profile__meta(r->p, "per_task");
	cpus = profile__meta(r->p, "cpus");
	r->cpu_ns = (double)profile__duration_ns(r->p) * (cpus ? atoi(cpus) : 1);
	steal_meta_read(r->p, &r->steal);
	if (r->o.view != VIEW_LOCKS)
		return 0;
	/* User locks always carry their process. */
	if ((r->o.filter.pid >= 0 || r->o.filter.comm) && (!per_task || strcmp(per_task, "1")) &&
	    !profile__ltable(r->p, TBL_ULOCKS)) {
		pr_err("--pid and --comm need a profile recorded with -t (per task) or -e ulocks\n");
		return -EINVAL;
	}
	err = lock_view__build(&r->view, r->p, &r->o.filter);
	if (err) {
		pr_err("building the lock table: %s\n", strerror(-err));
		return err;
	}
	lock_view__sort(&r->view, r->o.sort);
	return 0;
}

static int print_view(struct report *r)
{
	size_t i;

	if (r->o.view == VIEW_COST)
		return print_cost(r);
	for (i = 0; i < NVIEWS; i++)
		if (views[i].view == r->o.view)
			return views[i].print(r);
	return -EINVAL;
}

int cmd_report(int argc, char **argv)
{
	struct report r = {
		.o = { .input = "lockstat.data", .format = OUT_TEXT, .filter = { .pid = -1 },
		       .hits = { .pid = -1 } },
	};
	int err;

	err = parse_args(&r.o, argc, argv);
	if (err) {
		usage(err > 0 ? stdout : stderr);
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	}
	log_set_json_errors(r.o.format == OUT_JSON);
	err = load(&r);
	if (!err)
		err = print_view(&r);
	lock_view__free(&r.view);
	profile__free(r.p);
	return err ? EXIT_FAIL : EXIT_OK;
}
