// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report: the locks view of a profile, lockmeter style (one row
 * per lock, its callers indented below, a TOTAL row), as text, JSON or CSV.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "format/family_meta.h"
#include "base/json.h"
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
		"                         wait_min, name; hits: samples (default), name\n"
		"  -n, --top N            only the first N locks\n"
		"      --hist             the log2 wait histogram of each lock (text, json)\n"
		"      --stacks           the stacks of each lock (user stacks for u: types;\n"
		"                         text, json)\n"
		"      --lock GLOB        only locks whose name matches\n"
		"      --caller GLOB      only waits from matching callers (e.g. 'alloc_fd*')\n"
		"      --type TYPE        spinlock, rwlock[:R|:W], rwsem[:R|:W], mutex, mutex:spin, ...\n"
		"      --pid PID          only this process or thread (profiles recorded with -t)\n"
		"      --comm GLOB        only tasks whose command matches (locks: profiles recorded with -t)\n"
		"hits view:\n"
		"      --kernel           only samples whose leaf is in the kernel\n"
		"      --user             only samples whose leaf is in user space\n"
		"      --module GLOB      only functions of matching modules or files\n"
		"      --callers FUNC     who calls FUNC, by samples\n"
		"      --callees FUNC     whom FUNC calls, by samples\n"
		"      --lines            one row per source line (file:line) instead of per function\n"
		"tables view:\n"
		"      --table NAME       only this table (needed for json and csv)\n"
		"  -f, --format FMT       text (default), json or csv\n"
		"  -v, --verbose          say more\n"
		"  -q, --quiet            no warnings\n"
		"  -h, --help             this help\n");
}

enum { OPT_HIST = 1000, OPT_STACKS, OPT_LOCK, OPT_CALLER, OPT_TYPE, OPT_PID, OPT_COMM,
       OPT_KERNEL, OPT_USER, OPT_MODULE, OPT_CALLERS, OPT_CALLEES, OPT_LINES,
       OPT_TABLE };

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
	{ "view", required_argument, NULL, 'V' },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "user", no_argument, NULL, OPT_USER },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "callers", required_argument, NULL, OPT_CALLERS },
	{ "callees", required_argument, NULL, OPT_CALLEES },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "table", required_argument, NULL, OPT_TABLE },
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

/* One entry per view: --view NAME selects it, print() shows it. */
static const struct {
	const char *name;
	enum report_view view;
	int (*print)(const struct report *r);	/* NULL: the locks view, here */
} views[] = {
	{ "locks", VIEW_LOCKS, NULL },
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
	case 'V':
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
	pr_err("--sort: unknown key '%s' (wait_total, contended, wait_max, wait_avg, wait_min, name)\n", o->sort_key);
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
	if (r->o.view != VIEW_LOCKS)
		return 0;
	/* User locks always carry their process. */
	if ((r->o.filter.pid >= 0 || r->o.filter.comm) && (!per_task || strcmp(per_task, "1")) &&
	    !profile__table(r->p, "ulocks")) {
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

static size_t shown_locks(const struct report *r)
{
	if (r->o.top_n && r->o.top_n < r->view.nlocks)
		return r->o.top_n;
	return r->view.nlocks;
}

static double pct_cpu(const struct report *r, const struct lock_row_val *v)
{
	return r->cpu_ns > 0 ? 100.0 * v->total_ns / r->cpu_ns : 0;
}

const char *meta_or(const struct profile *p, const char *key, const char *dflt)
{
	const char *v = profile__meta(p, key);

	return v && *v ? v : dflt;
}

/* --- text and CSV ---------------------------------------------------------- */

static const struct out_col text_cols[] = {
	{ "contended", "contended", COL_U64, 10, false },
	{ "wait_total_ns", "total wait", COL_NS, 11, false },
	{ "wait_avg_ns", "avg wait", COL_NS, 10, false },
	{ "wait_max_ns", "max wait", COL_NS, 10, false },
	{ "p50_ns", "p50", COL_NS, 10, false },
	{ "p99_ns", "p99", COL_NS, 10, false },
	{ "wait_pct_cpu", "%cpu", COL_PCT, 6, false },
	{ "type", "type", COL_STR, 11, false },
	{ "name", "lock / caller", COL_STR, 0, true },
};

static const struct out_col csv_cols[] = {
	{ "row", "row", COL_STR, 0, true },
	{ "lock", "lock", COL_STR, 0, true },
	{ "type", "type", COL_STR, 0, true },
	{ "caller", "caller", COL_STR, 0, true },
	{ "contended", "contended", COL_U64, 0, false },
	{ "wait_total_ns", "total wait", COL_NS, 0, false },
	{ "wait_avg_ns", "avg wait", COL_NS, 0, false },
	{ "wait_max_ns", "max wait", COL_NS, 0, false },
	{ "wait_min_ns", "min wait", COL_NS, 0, false },
	{ "p50_ns", "p50", COL_NS, 0, false },
	{ "p99_ns", "p99", COL_NS, 0, false },
	{ "wait_pct_cpu", "%cpu", COL_PCT, 0, false },
	{ "estimated", "estimated", COL_STR, 0, false },
	{ "sampled", "sampled", COL_U64, 0, false },
	{ "contended_ci95_lo", "contended ci95 lo", COL_U64, 0, false },
	{ "contended_ci95_hi", "contended ci95 hi", COL_U64, 0, false },
	{ "wait_total_ci95_lo_ns", "wait ci95 lo", COL_NS, 0, false },
	{ "wait_total_ci95_hi_ns", "wait ci95 hi", COL_NS, 0, false },
};

/* lockmeter's hold columns, shown when the profile has hold data. */
static const struct out_col hold_cols[] = {
	{ "acquired", "acquired", COL_U64, 10, false },
	{ "con_pct", "CON%", COL_PCT, 6, false },
	{ "hold_avg_ns", "hold avg", COL_NS, 10, false },
	{ "hold_max_ns", "hold max", COL_NS, 10, false },
	{ "util_pct", "UTIL%", COL_PCT, 6, false },
};

#define NHOLD_COLS	(sizeof(hold_cols) / sizeof(hold_cols[0]))
#define MAX_LOCK_COLS	24

/* The base columns with the hold ones inserted before column at (text) or at the end. */
static int lock_cols(const struct report *r, const struct out_col *base, int n, int at,
		     struct out_col *out)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (i == at && r->view.has_hold) {
			memcpy(out + k, hold_cols, sizeof(hold_cols));
			k += NHOLD_COLS;
		}
		out[k] = base[i];
		if (at < 0)
			out[k].width = 0;
		k++;
	}
	if (at < 0 && r->view.has_hold) {
		for (i = 0; i < (int)NHOLD_COLS; i++, k++) {
			out[k] = hold_cols[i];
			out[k].width = 0;
		}
	}
	return k;
}

static double util_pct(const struct report *r, const struct hold_val *h)
{
	double d = (double)profile__duration_ns(r->p);

	return h->has_hold && d > 0 ? 100.0 * h->hold_ns / d : NAN;
}

/*
 * The total's hold figures cover only the locks that have them: on the
 * TOTAL row when that is every lock, else "-" there and a row of their own.
 */
static const struct hold_val *total_hold(const struct report *r)
{
	static const struct hold_val none;

	return lock_view__hold_complete(&r->view) ? &r->view.hold_total : &none;
}

static bool partial_hold(const struct report *r)
{
	return r->view.has_hold && !lock_view__hold_complete(&r->view);
}

static void put_hold(struct out_table *t, const struct report *r, const struct lock_row_val *v,
		     const struct hold_val *h)
{
	if (!r->view.has_hold)
		return;
	if (!h->has_hold) {
		int i;

		for (i = 0; i < (int)NHOLD_COLS; i++)
			out_table__none(t);
		return;
	}
	out_table__u64(t, h->acquired);
	out_table__pct(t, hold_con_pct(v, h));
	out_table__ns(t, h->held ? h->hold_ns / h->held : 0);
	out_table__ns(t, h->hold_max_ns);
	out_table__pct(t, util_pct(r, h));
}

/* approx: count and total are estimates (a caller of a sampled lock). */
static void put_stats(struct out_table *t, const struct report *r, const struct lock_row_val *v, bool csv,
		      bool approx)
{
	if (approx)
		out_table__approx(t);
	out_table__u64(t, v->count);
	if (approx)
		out_table__approx(t);
	out_table__ns(t, v->total_ns);
	out_table__ns(t, row_avg(v));
	out_table__ns(t, v->max_ns);
	if (csv)
		out_table__ns(t, v->count ? v->min_ns : 0);
	out_table__ns(t, hist_quantile(v, 0.50));
	out_table__ns(t, hist_quantile(v, 0.99));
	out_table__pct(t, pct_cpu(r, v));
}

static void put_text_row(struct out_table *t, const struct report *r, int indent,
			 const struct lock_row_val *v, const struct hold_val *h, const char *type,
			 const char *name, bool approx)
{
	out_table__row_begin(t, indent);
	put_stats(t, r, v, false, approx);
	put_hold(t, r, v, h);
	out_table__str(t, type);
	out_table__str(t, name);
	out_table__row_end(t);
}

/* A CSV row: what it is, and for an estimated caller its sample and 95 % intervals. */
struct csv_row {
	const char *kind;
	const char *lock;
	const char *type;
	const char *caller;
	const struct lock_entry *e;	/* the estimated caller's lock, or NULL */
	const struct lock_part *part;
	bool approx;
};

static void put_csv_estimate(struct out_table *t, const struct csv_row *c)
{
	double lo, hi;

	out_table__str(t, c->approx ? "true" : "false");
	if (!c->part || !c->e || !c->e->estimated) {
		int i;

		for (i = 0; i < 5; i++)
			out_table__none(t);
		return;
	}
	out_table__u64(t, c->part->est.sampled);
	lock_part__ci95(c->e, c->part, false, &lo, &hi);
	out_table__u64(t, llround(lo));
	out_table__u64(t, llround(hi));
	lock_part__ci95(c->e, c->part, true, &lo, &hi);
	out_table__ns(t, llround(lo));
	out_table__ns(t, llround(hi));
}

static void put_csv_row(struct out_table *t, const struct report *r, const struct csv_row *c,
			const struct lock_row_val *v, const struct hold_val *h)
{
	out_table__row_begin(t, 0);
	out_table__str(t, c->kind);
	out_table__str(t, c->lock);
	out_table__str(t, c->type);
	out_table__str(t, c->caller);
	put_stats(t, r, v, true, false);
	put_csv_estimate(t, c);
	put_hold(t, r, v, h);
	out_table__row_end(t);
}

/* What the profile says of a family, as one line. */
static const char *family_line(const struct profile *p, const char *family, char *buf, size_t len)
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
		if (strcmp(names[i], "locks") && strcmp(names[i], "sample"))
			memmove(names[kept++], names[i], sizeof(names[0]));
	return kept;
}

void print_header(const struct report *r)
{
	const struct profile *p = r->p;
	char dur[32], line[600], names[32][32];
	struct family_status st;
	size_t i, n;
	bool any = false;

	/* The file's strings (a workload's argv above all) never reach the terminal raw. */
	fmt_ns(dur, sizeof(dur), profile__duration_ns(p));
	fprintf_printable(stdout, "# lockstat report of %s\n", r->o.input);
	fprintf_printable(stdout, "# kernel %s %s, %s CPUs, %s, target %s%s%s\n", meta_or(p, "kernel", "?"),
			  meta_or(p, "arch", ""), meta_or(p, "cpus", "?"), dur, meta_or(p, "target", "?"),
			  *meta_or(p, "command", "") ? ": " : "", meta_or(p, "command", ""));
	fprintf_printable(stdout, "# probes: contention=%s", family_line(p, "locks", line, sizeof(line)));
	fprintf_printable(stdout, " sample=%s", family_line(p, "sample", line, sizeof(line)));
	n = other_families(p, names, 32);
	for (i = 0; i < n; i++) {	/* the other families that were recorded */
		family_meta_read(p, names[i], &st);
		if (st.state != FSTATE_NOT_WANTED)
			fprintf_printable(stdout, " %s=%s", family_legacy_name(names[i]),
					  family_status_line(&st, line, sizeof(line)));
	}
	printf("\n");
	if (*meta_or(p, "metric.value", ""))	/* the workload's own figure (record --metric) */
		fprintf_printable(stdout, "# metric: %s = %s\n", meta_or(p, "metric.name", "metric"),
				  meta_or(p, "metric.value", ""));
	printf("# lost:");
	for (i = 0; i < p->nlost; i++) {
		if (strcmp(p->lost[i].value, "0")) {
			fprintf_printable(stdout, " %s=%s", p->lost[i].key, p->lost[i].value);
			any = true;
		}
	}
	printf("%s\n#\n", any ? "" : " none");
}

static void print_hist(const struct lock_row_val *v)
{
	uint64_t peak = 0;
	int i, lo = LS_HIST_SLOTS, hi = -1;

	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (!v->hist[i])
			continue;
		lo = i < lo ? i : lo;
		hi = i;
		peak = v->hist[i] > peak ? v->hist[i] : peak;
	}
	printf("%28s %10s  %s\n", "wait (ns)", "count", "distribution");
	for (i = lo; i <= hi; i++) {
		int bar = peak ? (int)(40 * v->hist[i] / peak) : 0;

		printf("%12llu -> %-12llu %10" PRIu64 "  |%-40.*s|\n", i ? 1ULL << i : 0ULL,
		       (1ULL << (i + 1)) - 1, v->hist[i], bar, "****************************************");
	}
}

static void print_stacks(const struct report *r, const struct lock_entry *e)
{
	char sym[256], total[32];
	size_t i, f;

	for (i = 0; i < e->nstacks; i++) {
		const struct lock_part *s = &e->stacks[i];
		const struct stack *st = profile__stack(r->p, s->stack_id);

		fmt_ns(total, sizeof(total), s->v.total_ns);
		printf("      stack: %s%" PRIu64 " contended, %s%s waited\n", e->estimated ? "~" : "", s->v.count,
		       e->estimated ? "~" : "", total);
		if (!st) {
			printf("          [stack not captured]\n");
			continue;
		}
		for (f = 0; f < st->nframes; f++) {
			lock_view__frame(&r->view, s, st->frames[f], sym, sizeof(sym));
			printf("          %s\n", sym);
		}
	}
}

/* Why hold columns are missing, or what measured them. */
static void print_hold_note(const struct report *r)
{
	struct family_status hold, up;
	char hl[600], ul[600], ml[600];

	family_meta_read(r->p, "hold", &hold);
	family_meta_read(r->p, "uprobes", &up);
	family_status_line(&hold, hl, sizeof(hl));
	family_status_line(&up, ul, sizeof(ul));
	family_line(r->p, "mmap_lock", ml, sizeof(ml));
	if (r->view.has_hold)
		printf("# hold columns: mmap_lock from its tracepoints (%s); other locks: hold=%s%s%s%s\n#\n",
		       ml, hl, hold.state == FSTATE_ATTACHED ? "" : " (\"-\": not measured; record --hold)",
		       up.state == FSTATE_ATTACHED ? "; user locks: uprobes=" : "",
		       up.state == FSTATE_ATTACHED ? ul : "");
	else
		printf("# acquisitions, CON%%, hold times, UTIL%%: not measured (mmap_lock=%s, hold=%s)\n#\n",
		       ml, hl);
}

/* Where callers are estimates: how many waits carried a stack. */
static void print_estimate_note(const struct report *r)
{
	uint64_t sampled = 0, waits = 0;
	size_t i, c;

	for (i = 0; i < r->view.nlocks; i++) {
		const struct lock_entry *e = &r->view.locks[i];

		if (!e->estimated)
			continue;
		waits += e->v.count;
		for (c = 0; c < e->ncallers; c++)
			sampled += e->callers[c].est.sampled;
	}
	if (!waits)
		return;
	printf("# callers: \"~\" marks estimates from the %" PRIu64 " of %" PRIu64 " waits that carried a "
	       "stack (--stack-rate %s); each lock's own figures count every wait\n#\n",
	       sampled, waits, meta_or(r->p, "stack_rate", "?"));
}

/* Uprobes detached over their budget measured the start of the run only. */
static void print_uprobes_note(const struct report *r)
{
	const struct ptable *t = profile__table(r->p, "ulocks.uprobes");
	int dc = ptable__col(t, "detached");
	const uint64_t *row;
	size_t it = 0;

	while (t && dc >= 0 && (row = htab_next(&t->rows, &it, NULL))) {
		if (row[dc]) {
			printf("# user locks: uprobes detached over their budget (record --event-budget, --force): "
			       "their acquisitions and holds cover the start of the run only\n#\n");
			return;
		}
	}
}

/* Its waits that ended without the lock, one row per errno: "[gave up: EINTR]". */
static void put_gave_up_rows(struct out_table *t, const struct report *r, const struct lock_entry *e)
{
	static const struct hold_val none;
	char err[32], name[64];
	size_t g;

	for (g = 0; g < e->ngave_up; g++) {
		snprintf(name, sizeof(name), "[gave up: %s]", lock_errno_name(e->gave_up[g].err, err, sizeof(err)));
		put_text_row(t, r, 1, &e->gave_up[g].v, &none, "", name, false);
	}
}

static void put_text_lock(struct out_table *t, const struct report *r, const struct lock_entry *e)
{
	size_t c;

	put_text_row(t, r, 0, &e->v, &e->h, lock_type_name(e->flags), lock_view__str(&r->view, e->name),
		     r->o.filter.caller && e->estimated);
	for (c = 0; c < e->ncallers; c++)
		put_text_row(t, r, 1, &e->callers[c].v, &e->callers[c].h, "",
			     lock_view__str(&r->view, e->callers[c].caller), e->estimated);
	put_gave_up_rows(t, r, e);
}

/* TOTAL, and where only some locks have hold data, their own total. */
static void put_text_totals(struct out_table *t, const struct report *r)
{
	char name[96];

	out_table__separator(t);
	put_text_row(t, r, 0, &r->view.total, total_hold(r), "", "TOTAL", r->view.total_estimated);
	if (!partial_hold(r))
		return;
	snprintf(name, sizeof(name), "TOTAL of the %zu lock%s with hold data", r->view.nheld,
		 r->view.nheld == 1 ? "" : "s");
	put_text_row(t, r, 0, &r->view.held_total, &r->view.hold_total, "", name, r->view.total_estimated);
}

static void print_text(const struct report *r)
{
	struct out_col cols[MAX_LOCK_COLS];
	struct out_table *t;
	size_t i;
	int n;

	print_header(r);
	print_hold_note(r);
	print_estimate_note(r);
	print_uprobes_note(r);
	n = lock_cols(r, text_cols, sizeof(text_cols) / sizeof(text_cols[0]), 7, cols);
	t = out_table__new(stdout, OUT_TEXT, cols, n);
	for (i = 0; t && i < shown_locks(r); i++) {
		const struct lock_entry *e = &r->view.locks[i];

		put_text_lock(t, r, e);
		fflush(stdout);
		if (r->o.hist)
			print_hist(&e->v);
		if (r->o.stacks)
			print_stacks(r, e);
	}
	if (t) {
		put_text_totals(t, r);
		out_table__free(t);
	}
}

static void put_csv_lock(struct out_table *t, const struct report *r, const struct lock_entry *e)
{
	const char *name = lock_view__str(&r->view, e->name), *type = lock_type_name(e->flags);
	struct csv_row row = { "lock", name, type, "", NULL, NULL, r->o.filter.caller && e->estimated };
	char err[32];
	size_t c;

	put_csv_row(t, r, &row, &e->v, &e->h);
	for (c = 0; c < e->ncallers; c++) {
		row = (struct csv_row){ "caller", name, type, lock_view__str(&r->view, e->callers[c].caller),
					e, &e->callers[c], e->estimated };
		put_csv_row(t, r, &row, &e->callers[c].v, &e->callers[c].h);
	}
	for (c = 0; c < e->ngave_up; c++) {
		static const struct hold_val none;

		row = (struct csv_row){ "gave_up", name, type,
					lock_errno_name(e->gave_up[c].err, err, sizeof(err)), NULL, NULL, false };
		put_csv_row(t, r, &row, &e->gave_up[c].v, &none);
	}
}

static void print_csv(const struct report *r)
{
	struct out_col cols[MAX_LOCK_COLS];
	struct out_table *t;
	size_t i;
	int n = lock_cols(r, csv_cols, sizeof(csv_cols) / sizeof(csv_cols[0]), -1, cols);
	struct csv_row total = { "total", "", "", "", NULL, NULL, r->view.total_estimated };

	t = out_table__new(stdout, OUT_CSV, cols, n);
	for (i = 0; t && i < shown_locks(r); i++)
		put_csv_lock(t, r, &r->view.locks[i]);
	if (!t)
		return;
	put_csv_row(t, r, &total, &r->view.total, total_hold(r));
	if (partial_hold(r)) {
		total.kind = "total_with_hold";
		put_csv_row(t, r, &total, &r->view.held_total, &r->view.hold_total);
	}
	out_table__free(t);
}

/* --- JSON -------------------------------------------------------------------- */

static void json_stats(struct json_writer *jw, const struct report *r, const struct lock_row_val *v)
{
	jw_u64_field(jw, "contended", v->count);
	jw_u64_field(jw, "wait_total_ns", v->total_ns);
	jw_u64_field(jw, "wait_avg_ns", row_avg(v));
	jw_u64_field(jw, "wait_max_ns", v->max_ns);
	jw_u64_field(jw, "wait_min_ns", v->count ? v->min_ns : 0);
	jw_u64_field(jw, "p50_ns", hist_quantile(v, 0.50));
	jw_u64_field(jw, "p99_ns", hist_quantile(v, 0.99));
	jw_double_field(jw, "wait_pct_cpu", pct_cpu(r, v));
}

/* Every family the profile names, as recorded, each as one line. */
static void json_probes(struct json_writer *jw, const struct profile *p)
{
	char line[600], names[32][32];
	size_t i, n = other_families(p, names, 32);

	jw_start_object(jw);
	jw_string_field(jw, "contention", family_line(p, "locks", line, sizeof(line)));
	jw_string_field(jw, "sample", family_line(p, "sample", line, sizeof(line)));
	for (i = 0; i < n; i++)
		jw_string_field(jw, family_legacy_name(names[i]), family_line(p, names[i], line, sizeof(line)));
	jw_end_object(jw);
}

void json_meta(struct json_writer *jw, const struct report *r)
{
	const struct profile *p = r->p;

	jw_name(jw, "meta");
	jw_start_object(jw);
	jw_string_field(jw, "file", r->o.input);
	jw_string_field(jw, "kernel", meta_or(p, "kernel", ""));
	jw_string_field(jw, "arch", meta_or(p, "arch", ""));
	jw_u64_field(jw, "cpus", strtoull(meta_or(p, "cpus", "0"), NULL, 10));
	jw_u64_field(jw, "duration_ns", profile__duration_ns(p));
	jw_string_field(jw, "command", meta_or(p, "command", ""));
	jw_string_field(jw, "target", meta_or(p, "target", ""));
	jw_string_field(jw, "start_time", meta_or(p, "start_time", ""));
	jw_bool_field(jw, "per_task", !strcmp(meta_or(p, "per_task", "0"), "1"));
	jw_u64_field(jw, "stack_rate", strtoull(meta_or(p, "stack_rate", "0"), NULL, 10));
	jw_bool_field(jw, "complete", p->has_end && p->stop == WALK_EOF);
	if (p->has_end)
		jw_i64_field(jw, "exit_status", p->end_exit_status);
	jw_name(jw, "metric");	/* the workload's own figure (record --metric), or null */
	if (*meta_or(p, "metric.value", "")) {
		jw_start_object(jw);
		jw_string_field(jw, "name", meta_or(p, "metric.name", "metric"));
		jw_double_field(jw, "value", strtod(meta_or(p, "metric.value", ""), NULL));
		jw_end_object(jw);
	} else {
		jw_null(jw);
	}
	jw_name(jw, "probes");
	json_probes(jw, p);
	jw_end_object(jw);
}

void json_lost(struct json_writer *jw, const struct profile *p)
{
	size_t i;

	jw_name(jw, "lost");
	jw_start_object(jw);
	for (i = 0; i < p->nlost; i++)
		jw_u64_field(jw, p->lost[i].key, strtoull(p->lost[i].value, NULL, 10));
	jw_end_object(jw);
}

/* null where not measured, absent when the profile has no hold data at all. */
static void json_hold(struct json_writer *jw, const struct report *r, const struct lock_row_val *v,
		      const struct hold_val *h)
{
	if (!r->view.has_hold)
		return;
	if (!h->has_hold) {
		jw_null_field(jw, "acquired");
		jw_null_field(jw, "con_pct");
		jw_null_field(jw, "hold_avg_ns");
		jw_null_field(jw, "hold_max_ns");
		jw_null_field(jw, "util_pct");
		return;
	}
	jw_u64_field(jw, "acquired", h->acquired);
	if (h->acquired)
		jw_double_field(jw, "con_pct", hold_con_pct(v, h));
	else
		jw_null_field(jw, "con_pct");
	jw_u64_field(jw, "hold_total_ns", h->hold_ns);
	jw_u64_field(jw, "hold_avg_ns", h->held ? h->hold_ns / h->held : 0);
	jw_u64_field(jw, "hold_max_ns", h->hold_max_ns);
	jw_double_field(jw, "util_pct", util_pct(r, h));
}

static void json_hist(struct json_writer *jw, const struct lock_row_val *v)
{
	int i;

	jw_name(jw, "hist");
	jw_start_array(jw);
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (!v->hist[i])
			continue;
		jw_start_object(jw);
		jw_u64_field(jw, "from_ns", i ? 1ULL << i : 0);
		if (i == LS_HIST_SLOTS - 1)
			jw_null_field(jw, "to_ns");	/* the last slot holds every longer wait */
		else
			jw_u64_field(jw, "to_ns", (1ULL << (i + 1)) - 1);
		jw_u64_field(jw, "count", v->hist[i]);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_stacks(struct json_writer *jw, const struct report *r, const struct lock_entry *e)
{
	char sym[256];
	size_t i, f;

	jw_name(jw, "stacks");
	jw_start_array(jw);
	for (i = 0; i < e->nstacks; i++) {
		const struct stack *st = profile__stack(r->p, e->stacks[i].stack_id);

		jw_start_object(jw);
		jw_string_field(jw, "caller", lock_view__str(&r->view, e->stacks[i].caller));
		jw_bool_field(jw, "estimated", e->estimated);
		jw_u64_field(jw, "contended", e->stacks[i].v.count);
		jw_u64_field(jw, "wait_total_ns", e->stacks[i].v.total_ns);
		jw_name(jw, "frames");
		jw_start_array(jw);
		for (f = 0; st && f < st->nframes; f++) {
			lock_view__frame(&r->view, &e->stacks[i], st->frames[f], sym, sizeof(sym));
			jw_string(jw, sym);
		}
		jw_end_array(jw);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_pair(struct json_writer *jw, const char *name, double lo, double hi)
{
	jw_name(jw, name);
	jw_start_array(jw);
	jw_u64(jw, llround(lo));
	jw_u64(jw, llround(hi));
	jw_end_array(jw);
}

/* An estimated caller: its sample and the 95 % intervals of its estimates. */
static void json_estimate(struct json_writer *jw, const struct lock_entry *e, const struct lock_part *c)
{
	double lo, hi;

	jw_bool_field(jw, "estimated", e->estimated);
	if (!e->estimated)
		return;
	jw_u64_field(jw, "sampled", c->est.sampled);
	lock_part__ci95(e, c, false, &lo, &hi);
	json_pair(jw, "contended_ci95", lo, hi);
	lock_part__ci95(e, c, true, &lo, &hi);
	json_pair(jw, "wait_total_ci95_ns", lo, hi);
}

static void json_gave_up(struct json_writer *jw, const struct lock_entry *e)
{
	char err[32];
	size_t g;

	jw_name(jw, "gave_up");
	jw_start_array(jw);
	for (g = 0; g < e->ngave_up; g++) {
		const struct lock_row_val *v = &e->gave_up[g].v;

		jw_start_object(jw);
		jw_string_field(jw, "error", lock_errno_name(e->gave_up[g].err, err, sizeof(err)));
		jw_u64_field(jw, "errno", e->gave_up[g].err);
		jw_u64_field(jw, "waits", v->count);
		jw_u64_field(jw, "wait_total_ns", v->total_ns);
		jw_u64_field(jw, "wait_max_ns", v->max_ns);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void json_lock(struct json_writer *jw, const struct report *r, const struct lock_entry *e)
{
	size_t c;

	jw_start_object(jw);
	jw_string_field(jw, "name", lock_view__str(&r->view, e->name));
	jw_string_field(jw, "type", lock_type_name(e->flags));
	jw_bool_field(jw, "user", lock_type_is_user(e->flags));
	jw_bool_field(jw, "estimated", r->o.filter.caller && e->estimated);
	json_stats(jw, r, &e->v);
	json_hold(jw, r, &e->v, &e->h);
	jw_name(jw, "callers");
	jw_start_array(jw);
	for (c = 0; c < e->ncallers; c++) {
		jw_start_object(jw);
		jw_string_field(jw, "symbol", lock_view__str(&r->view, e->callers[c].caller));
		json_estimate(jw, e, &e->callers[c]);
		json_stats(jw, r, &e->callers[c].v);
		json_hold(jw, r, &e->callers[c].v, &e->callers[c].h);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	json_gave_up(jw, e);
	if (r->o.hist)
		json_hist(jw, &e->v);
	if (r->o.stacks)
		json_stacks(jw, r, e);
	jw_end_object(jw);
}

/* total, and where only some locks have hold data, total_with_hold for them. */
static void json_totals(struct json_writer *jw, const struct report *r)
{
	jw_name(jw, "total");
	jw_start_object(jw);
	jw_bool_field(jw, "estimated", r->view.total_estimated);
	json_hold(jw, r, &r->view.total, total_hold(r));
	json_stats(jw, r, &r->view.total);
	jw_end_object(jw);
	if (!partial_hold(r))
		return;
	jw_name(jw, "total_with_hold");
	jw_start_object(jw);
	jw_u64_field(jw, "locks", r->view.nheld);
	json_hold(jw, r, &r->view.held_total, &r->view.hold_total);
	json_stats(jw, r, &r->view.held_total);
	jw_end_object(jw);
}

static void print_json(const struct report *r)
{
	struct json_writer *jw = jw_new(stdout, isatty(STDOUT_FILENO));
	size_t i;

	if (!jw)
		return;
	jw_start_object(jw);
	json_meta(jw, r);
	json_lost(jw, r->p);
	jw_name(jw, "locks");
	jw_start_array(jw);
	for (i = 0; i < shown_locks(r); i++)
		json_lock(jw, r, &r->view.locks[i]);
	jw_end_array(jw);
	json_totals(jw, r);
	jw_end_object(jw);
	jw_free(jw);
}

static int print_view(struct report *r)
{
	size_t i;

	for (i = 0; i < NVIEWS; i++)
		if (views[i].view == r->o.view && views[i].print)
			return views[i].print(r);
	if (r->o.format == OUT_JSON)
		print_json(r);
	else if (r->o.format == OUT_CSV)
		print_csv(r);
	else
		print_text(r);
	return 0;
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
