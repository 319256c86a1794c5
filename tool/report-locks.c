// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report's locks view, lockmeter style: one row per lock, its
 * callers indented below, a TOTAL row; as text, JSON or CSV.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "format/family_meta.h"
#include "format/locktype.h"
#include "out/head.h"
#include "report.h"

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
 * CON% of a row; for the total, only the waits of the locks whose
 * acquisitions were counted: the others have no denominator.
 */
static double con_pct(const struct report *r, const struct lock_row_val *v, const struct hold_val *h)
{
	struct lock_row_val held = { 0 };
	size_t i;

	if (h != &r->view.hold_total)
		return hold_con_pct(v, h);
	for (i = 0; i < r->view.nlocks; i++)
		if (r->view.locks[i].h.has_hold)
			held.count += r->view.locks[i].v.count;
	return hold_con_pct(&held, h);
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
	out_table__pct(t, con_pct(r, v, h));
	out_table__ns(t, h->held ? h->hold_ns / h->held : 0);
	out_table__ns(t, h->hold_max_ns);
	out_table__pct(t, util_pct(r, h));
}

static void put_stats(struct out_table *t, const struct report *r, const struct lock_row_val *v, bool csv)
{
	out_table__u64(t, v->count);
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
			 const char *name)
{
	out_table__row_begin(t, indent);
	put_stats(t, r, v, false);
	put_hold(t, r, v, h);
	out_table__str(t, type);
	out_table__str(t, name);
	out_table__row_end(t);
}

static void put_csv_row(struct out_table *t, const struct report *r, const char *kind,
			const char *lock, const char *type, const char *caller,
			const struct lock_row_val *v, const struct hold_val *h)
{
	out_table__row_begin(t, 0);
	out_table__str(t, kind);
	out_table__str(t, lock);
	out_table__str(t, type);
	out_table__str(t, caller);
	put_stats(t, r, v, true);
	put_hold(t, r, v, h);
	out_table__row_end(t);
}

/* What the profile says of a family, as one line. */
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
		printf("      stack: %" PRIu64 " contended, %s waited\n", s->v.count, total);
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
	out_family_line(r->p, "mmap_lock", ml, sizeof(ml));
	if (r->view.has_hold)
		printf("# hold columns: mmap_lock from its tracepoints (%s); other locks: hold=%s%s%s%s\n#\n",
		       ml, hl, hold.state == FSTATE_ATTACHED ? "" : " (\"-\": not measured; record --hold)",
		       up.state == FSTATE_ATTACHED ? "; user locks: uprobes=" : "",
		       up.state == FSTATE_ATTACHED ? ul : "");
	else
		printf("# acquisitions, CON%%, hold times, UTIL%%: not measured (mmap_lock=%s, hold=%s)\n#\n",
		       ml, hl);
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

static void print_text(const struct report *r)
{
	struct out_col cols[MAX_LOCK_COLS];
	struct out_table *t;
	size_t i, c;
	int n;

	out_head__text(stdout, r->p, r->o.input);
	print_hold_note(r);
	print_uprobes_note(r);
	n = lock_cols(r, text_cols, sizeof(text_cols) / sizeof(text_cols[0]), 7, cols);
	t = out_table__new(stdout, OUT_TEXT, cols, n);
	for (i = 0; t && i < shown_locks(r); i++) {
		const struct lock_entry *e = &r->view.locks[i];

		put_text_row(t, r, 0, &e->v, &e->h, lock_type_name(e->flags), lock_view__str(&r->view, e->name));
		for (c = 0; c < e->ncallers; c++)
			put_text_row(t, r, 1, &e->callers[c].v, &e->callers[c].h, "",
				     lock_view__str(&r->view, e->callers[c].caller));
		fflush(stdout);
		if (r->o.hist)
			print_hist(&e->v);
		if (r->o.stacks)
			print_stacks(r, e);
	}
	if (t) {
		out_table__separator(t);
		put_text_row(t, r, 0, &r->view.total, &r->view.hold_total, "", "TOTAL");
		out_table__free(t);
	}
}

static void print_csv(const struct report *r)
{
	struct out_col cols[MAX_LOCK_COLS];
	struct out_table *t;
	size_t i, c;
	int n = lock_cols(r, csv_cols, sizeof(csv_cols) / sizeof(csv_cols[0]), -1, cols);

	t = out_table__new(stdout, OUT_CSV, cols, n);
	for (i = 0; t && i < shown_locks(r); i++) {
		const struct lock_entry *e = &r->view.locks[i];
		const char *name = lock_view__str(&r->view, e->name), *type = lock_type_name(e->flags);

		put_csv_row(t, r, "lock", name, type, "", &e->v, &e->h);
		for (c = 0; c < e->ncallers; c++)
			put_csv_row(t, r, "caller", name, type, lock_view__str(&r->view, e->callers[c].caller),
				    &e->callers[c].v, &e->callers[c].h);
	}
	if (t) {
		put_csv_row(t, r, "total", "", "", "", &r->view.total, &r->view.hold_total);
		out_table__free(t);
	}
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
		jw_double_field(jw, "con_pct", con_pct(r, v, h));
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

static void json_lock(struct json_writer *jw, const struct report *r, const struct lock_entry *e)
{
	size_t c;

	jw_start_object(jw);
	jw_string_field(jw, "name", lock_view__str(&r->view, e->name));
	jw_string_field(jw, "type", lock_type_name(e->flags));
	jw_bool_field(jw, "user", lock_type_is_user(e->flags));
	json_stats(jw, r, &e->v);
	json_hold(jw, r, &e->v, &e->h);
	jw_name(jw, "callers");
	jw_start_array(jw);
	for (c = 0; c < e->ncallers; c++) {
		jw_start_object(jw);
		jw_string_field(jw, "symbol", lock_view__str(&r->view, e->callers[c].caller));
		json_stats(jw, r, &e->callers[c].v);
		json_hold(jw, r, &e->callers[c].v, &e->callers[c].h);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	if (r->o.hist)
		json_hist(jw, &e->v);
	if (r->o.stacks)
		json_stacks(jw, r, e);
	jw_end_object(jw);
}

static void print_json(const struct report *r)
{
	struct json_writer *jw = jw_new(stdout, isatty(STDOUT_FILENO));
	size_t i;

	if (!jw)
		return;
	jw_start_object(jw);
	out_head__json(jw, r->p, r->o.input);
	out_lost__json(jw, r->p);
	jw_name(jw, "locks");
	jw_start_array(jw);
	for (i = 0; i < shown_locks(r); i++)
		json_lock(jw, r, &r->view.locks[i]);
	jw_end_array(jw);
	jw_name(jw, "total");
	jw_start_object(jw);
	json_hold(jw, r, &r->view.total, &r->view.hold_total);
	json_stats(jw, r, &r->view.total);
	jw_end_object(jw);
	jw_end_object(jw);
	jw_free(jw);
}

int print_locks(const struct report *r)
{
	if (r->o.format == OUT_JSON)
		print_json(r);
	else if (r->o.format == OUT_CSV)
		print_csv(r);
	else
		print_text(r);
	return 0;
}
