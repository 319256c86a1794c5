// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat report's locks view, lockmeter style: one row per lock, its
 * callers indented below, a TOTAL row; text, JSON and CSV from one
 * description of the columns.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format/family_meta.h"
#include "format/locktype.h"
#include "format/steal.h"
#include "out/head.h"
#include "report.h"

enum {
	L_ROW, L_NAME, L_TYPE, L_CALLER,
	L_CONTENDED, L_WAIT_TOTAL, L_WAIT_AVG, L_WAIT_MAX, L_WAIT_MIN, L_P50, L_P99, L_PCT,
	L_ACQUIRED, L_CON_PCT, L_HOLD_AVG, L_HOLD_MAX, L_UTIL, L_HOLD_TOTAL,
	L_USER, L_ESTIMATED, L_SAMPLED, L_CONT_CI, L_WAIT_CI,
	L_CONT_CI_LO, L_CONT_CI_HI, L_WAIT_CI_LO, L_WAIT_CI_HI,
	L_ACQ_SAMPLED, L_ACQ_CI, L_HOLD_CI, L_ACQ_CI_LO, L_ACQ_CI_HI, L_HOLD_CI_LO, L_HOLD_CI_HI,
	L_MAX_CHECK,
	L__COUNT,
};

/*
 * CSV and JSON carry them all (the hold ones when the profile has hold
 * data), CSV in this order; a CSV line's kind is JSON's nesting. New
 * columns go last, where a script reading CSV by position does not see
 * them move the others.
 */
static const struct out_col lock_cols[L__COUNT] = {
	[L_ROW] = { "row", NULL, COL_STR, 0, false, OUT_NO_JSON },
	[L_NAME] = { "name", "lock / caller", COL_STR, 0, true, OUT_TOP, "lock" },
	[L_TYPE] = { "type", "type", COL_STR, 11, false, OUT_TOP },
	[L_CALLER] = { "symbol", NULL, COL_STR, 0, false, OUT_SUB, "caller" },
	[L_CONTENDED] = { "contended", "contended", COL_U64, 10, false },
	[L_WAIT_TOTAL] = { "wait_total_ns", "total wait", COL_NS, 11, false },
	[L_WAIT_AVG] = { "wait_avg_ns", "avg wait", COL_NS, 10, false },
	[L_WAIT_MAX] = { "wait_max_ns", "max wait", COL_NS, 10, false },
	[L_WAIT_MIN] = { "wait_min_ns", NULL, COL_NS, 0, false },
	[L_P50] = { "p50_ns", "p50", COL_NS, 10, false },
	[L_P99] = { "p99_ns", "p99", COL_NS, 10, false },
	[L_PCT] = { "wait_pct_cpu", "%cpu", COL_PCT, 6, false },
	/* lockmeter's hold columns, when the profile has hold data */
	[L_ACQUIRED] = { "acquired", "acquired", COL_U64, 10, false },
	[L_CON_PCT] = { "con_pct", "CON%", COL_PCT, 6, false },
	[L_HOLD_AVG] = { "hold_avg_ns", "hold avg", COL_NS, 10, false },
	[L_HOLD_MAX] = { "hold_max_ns", "hold max", COL_NS, 10, false },
	[L_UTIL] = { "util_pct", "UTIL%", COL_PCT, 6, false },
	[L_HOLD_TOTAL] = { "hold_total_ns", NULL, COL_NS, 0, false },
	[L_USER] = { "user", NULL, COL_BOOL, 0, false, OUT_TOP },
	/*
	 * A caller of a lock whose stacks were sampled: its figures are
	 * estimates ("~" in text), from the waits that had a stack, with
	 * their 95 % intervals (JSON pairs, CSV a column each).
	 */
	[L_ESTIMATED] = { "estimated", NULL, COL_BOOL, 0, false },
	[L_SAMPLED] = { "sampled", NULL, COL_U64, 0, false },
	[L_CONT_CI] = { "contended_ci95", NULL, COL_NUMS, 0, false, OUT_NO_CSV },
	[L_WAIT_CI] = { "wait_total_ci95_ns", NULL, COL_NUMS, 0, false, OUT_NO_CSV },
	[L_CONT_CI_LO] = { "contended_ci95_lo", NULL, COL_U64, 0, false, OUT_NO_JSON },
	[L_CONT_CI_HI] = { "contended_ci95_hi", NULL, COL_U64, 0, false, OUT_NO_JSON },
	[L_WAIT_CI_LO] = { "wait_total_ci95_lo_ns", NULL, COL_NS, 0, false, OUT_NO_JSON },
	[L_WAIT_CI_HI] = { "wait_total_ci95_hi_ns", NULL, COL_NS, 0, false, OUT_NO_JSON },
	/*
	 * A caller of a lock whose acquisitions' stacks were sampled
	 * (mmap_lock): its acquisitions that carried a stack, and the 95 %
	 * intervals of its acquisitions and hold total ("~" in text).
	 */
	[L_ACQ_SAMPLED] = { "acquired_sampled", NULL, COL_U64, 0, false },
	[L_ACQ_CI] = { "acquired_ci95", NULL, COL_NUMS, 0, false, OUT_NO_CSV },
	[L_HOLD_CI] = { "hold_total_ci95_ns", NULL, COL_NUMS, 0, false, OUT_NO_CSV },
	[L_ACQ_CI_LO] = { "acquired_ci95_lo", NULL, COL_U64, 0, false, OUT_NO_JSON },
	[L_ACQ_CI_HI] = { "acquired_ci95_hi", NULL, COL_U64, 0, false, OUT_NO_JSON },
	[L_HOLD_CI_LO] = { "hold_total_ci95_lo_ns", NULL, COL_NS, 0, false, OUT_NO_JSON },
	[L_HOLD_CI_HI] = { "hold_total_ci95_hi_ns", NULL, COL_NS, 0, false, OUT_NO_JSON },
	/*
	 * A spinning lock's max wait over STEAL_SPIN_LIMIT_NS: what the
	 * recording's steal says of it ("!" before the max in text, and a
	 * footnote); none for every other row.
	 */
	[L_MAX_CHECK] = { "max_wait_check", NULL, COL_STR, 0, false },
};

/* Text: the figures, the hold ones before the type, the name last (it has no width). */
static const int text_order[] = {
	L_CONTENDED, L_WAIT_TOTAL, L_WAIT_AVG, L_WAIT_MAX, L_P50, L_P99, L_PCT,
	L_ACQUIRED, L_CON_PCT, L_HOLD_AVG, L_HOLD_MAX, L_UTIL, L_TYPE, L_NAME,
};

static bool is_hold_col(int c)
{
	return (c >= L_ACQUIRED && c <= L_HOLD_TOTAL) || (c >= L_ACQ_SAMPLED && c <= L_HOLD_CI_HI);
}

/* The columns of this profile (map[]: their index in cols), and the text's, in its order. */
static int lock_cols_of(const struct report *r, struct out_col *cols, int *text, int *ntext)
{
	int map[L__COUNT], c, i, n = 0;

	for (c = 0; c < L__COUNT; c++) {
		map[c] = -1;
		if (!is_hold_col(c) || r->view.has_hold) {
			map[c] = n;
			cols[n++] = lock_cols[c];
		}
	}
	*ntext = 0;
	for (i = 0; i < (int)(sizeof(text_order) / sizeof(text_order[0])); i++)
		if (map[text_order[i]] >= 0)
			text[(*ntext)++] = map[text_order[i]];
	return n;
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

/* CON%, marked an estimate where its waits or acquisitions are; exact figures as they are. */
static void put_con_pct(struct out_table *t, const struct lock_row_val *v, const struct hold_val *h,
			bool estimate)
{
	if (estimate)
		out_table__approx(t);
	out_table__pct(t, estimate ? hold_con_pct_estimate(v, h) : hold_con_pct(v, h));
}

/*
 * approx: the acquisitions, UTIL% and hold total are estimates (a
 * sampled caller); wait_approx: so is the count of waits.
 */
static void put_hold(struct out_table *t, const struct report *r, const struct lock_row_val *v,
		     const struct hold_val *h, bool approx, bool wait_approx)
{
	int i;

	if (!r->view.has_hold)
		return;
	if (!h->has_hold) {	/* not measured, never "none" */
		for (i = L_ACQUIRED; i <= L_HOLD_TOTAL; i++)
			out_table__none(t);
		return;
	}
	if (approx)
		out_table__approx(t);
	out_table__u64(t, h->acquired);
	put_con_pct(t, v, h, approx || wait_approx);
	out_table__ns(t, h->held ? h->hold_ns / h->held : 0);
	out_table__ns(t, h->hold_max_ns);
	if (approx)
		out_table__approx(t);
	out_table__pct(t, util_pct(r, h));
	if (approx)
		out_table__approx(t);
	out_table__ns(t, h->hold_ns);
}

/* The max wait; "!" before it in text where it needs explaining (print_steal_note()). */
static void put_max(struct out_table *t, const struct report *r, uint32_t flags, uint64_t max_ns)
{
	char text[40];

	if (steal_verdict_of(&r->steal, flags, max_ns) != STEAL_NOT_APPLICABLE) {
		text[0] = '!';
		fmt_ns(text + 1, sizeof(text) - 1, max_ns);
		out_table__text(t, text);
	}
	out_table__ns(t, max_ns);
}

/*
 * From contended to the hold columns, of a lock of these flags (0: a
 * total); approx: count and total are estimates; hold_approx: so are
 * the hold sums.
 */
static void put_values(struct out_table *t, const struct report *r, uint32_t flags, const struct lock_row_val *v,
		       const struct hold_val *h, bool approx, bool hold_approx)
{
	if (approx)
		out_table__approx(t);
	out_table__u64(t, v->count);
	if (approx)
		out_table__approx(t);
	out_table__ns(t, v->total_ns);
	out_table__ns(t, row_avg(v));
	put_max(t, r, flags, v->max_ns);
	out_table__ns(t, v->count ? v->min_ns : 0);
	out_table__ns(t, hist_quantile(v, 0.50));
	out_table__ns(t, hist_quantile(v, 0.99));
	out_table__pct(t, pct_cpu(r, v));
	put_hold(t, r, v, h, hold_approx, approx);
}

/*
 * What was sampled, and the 95 % intervals of a count and a total in ns
 * (JSON pairs, then CSV's _lo and _hi columns, as lock_cols lists them).
 */
static void put_intervals(struct out_table *t, uint64_t sampled, double count[2], double ns[2])
{
	int i;

	out_table__u64(t, sampled);
	for (i = 0; i < 2; i++) {
		count[i] = llround(count[i]);
		ns[i] = llround(ns[i]);
	}
	out_table__nums(t, count, 2);
	out_table__nums(t, ns, 2);
	out_table__u64(t, count[0]);
	out_table__u64(t, count[1]);
	out_table__ns(t, ns[0]);
	out_table__ns(t, ns[1]);
}

/* A caller's sample and the 95 % intervals of its estimates; none where it is exact. */
static void put_estimate(struct out_table *t, const struct lock_entry *e, const struct lock_part *c,
			 bool estimated)
{
	double cont[2], wait[2];
	int i;

	out_table__bool(t, estimated);
	if (!c || !e->estimated) {
		for (i = L_SAMPLED; i <= L_WAIT_CI_HI; i++)
			out_table__none(t);
		return;
	}
	lock_part__ci95(e, c, false, &cont[0], &cont[1]);
	lock_part__ci95(e, c, true, &wait[0], &wait[1]);
	put_intervals(t, c->est.sampled, cont, wait);
}

/* The same for a caller's acquisitions and holds, where only some carried a stack. */
static void put_hold_estimate(struct out_table *t, const struct report *r, const struct lock_entry *e,
			      const struct lock_part *c)
{
	double acq[2], hold[2];
	int i;

	if (!r->view.has_hold)
		return;
	if (!c || !e->hold_estimated) {
		for (i = L_ACQ_SAMPLED; i <= L_HOLD_CI_HI; i++)
			out_table__none(t);
		return;
	}
	lock_part__hold_ci95(e, c, false, &acq[0], &acq[1]);
	lock_part__hold_ci95(e, c, true, &hold[0], &hold[1]);
	put_intervals(t, c->hest.sampled, acq, hold);
}

/*
 * A lock's row (c NULL) or one of its callers' (named caller, or the
 * caller's own name). A lock's own figures are exact, but for a caller
 * filter over a sampled lock (a sum of estimates).
 */
static void put_row(struct out_table *t, const struct report *r, const struct lock_entry *e,
		    const struct lock_part *c, const char *caller)
{
	bool estimated = e->estimated && (c || r->o.filter.caller);
	bool hold_estimated = e->hold_estimated && (c || r->o.filter.caller);

	out_table__row_begin(t, c ? 1 : 0);
	out_table__str(t, c ? "caller" : "lock");
	out_table__str(t, lock_view__str(&r->view, e->name));
	out_table__str(t, lock_type_name(e->flags));
	out_table__str(t, caller ? caller : c ? lock_view__str(&r->view, c->caller) : NULL);
	put_values(t, r, e->flags, c ? &c->v : &e->v, c ? &c->h : &e->h, estimated, hold_estimated);
	out_table__bool(t, lock_type_is_user(e->flags));
	put_estimate(t, e, c, estimated || hold_estimated);
	put_hold_estimate(t, r, e, c);
	out_table__str(t, steal_verdict_key(steal_verdict_of(&r->steal, e->flags, c ? c->v.max_ns : e->v.max_ns)));
	out_table__row_end(t);
}

/* A caller seen acquiring the lock (mmap_lock, hold tables) but never waiting for it. */
static bool holds_only(const struct lock_part *c)
{
	return !c->v.count && c->h.has_hold;
}

/* Adds a holds-only caller's acquisitions and holds, and their estimates' sample, to fold's. */
static void fold_holds(struct lock_part *fold, const struct lock_part *c)
{
	fold->h.has_hold = true;
	fold->h.acquired = sat_add(fold->h.acquired, c->h.acquired);
	fold->h.held = sat_add(fold->h.held, c->h.held);
	fold->h.hold_ns = sat_add(fold->h.hold_ns, c->h.hold_ns);
	if (c->h.hold_max_ns > fold->h.hold_max_ns)
		fold->h.hold_max_ns = c->h.hold_max_ns;
	/* each acquisition sampled on its own: the callers' variances add up */
	fold->hest.sampled += c->hest.sampled;
	fold->hest.sampled_ns += c->hest.sampled_ns;
	fold->hest.var_acquired += c->hest.var_acquired;
	fold->hest.var_hold += c->hest.var_hold;
}

/*
 * A lock's callers. In a ranking by waits, those that only held it (the
 * mmap_lock and hold tables see every acquisition, the waits only the
 * contended ones) are one row after the others, "[holds only: N
 * callers]", their hold figures summed: a row of zero waits for each
 * would say nothing, between the rows that rank. Sorted by a hold
 * figure, each is a row of its own, in its place.
 */
static void put_callers(struct out_table *t, const struct report *r, const struct lock_entry *e)
{
	struct lock_part fold = { .caller = 0 };
	size_t c, n = 0;
	char name[64];
	bool folding;

	for (c = 0; c < e->ncallers; c++)
		n += holds_only(&e->callers[c]);
	folding = n > 1 && !lock_sort_by_hold(r->o.sort);	/* one is its own row: no fewer rows */
	for (c = 0; c < e->ncallers; c++) {
		if (folding && holds_only(&e->callers[c]))
			fold_holds(&fold, &e->callers[c]);
		else
			put_row(t, r, e, &e->callers[c], NULL);
	}
	if (!folding)
		return;
	snprintf(name, sizeof(name), "[holds only: %zu callers]", n);
	put_row(t, r, e, &fold, name);
}

/* Text and CSV: its waits that ended without the lock, a row per errno ("[gave up: EINTR]"). */
static void put_gave_up(struct out_table *t, const struct report *r, const struct lock_entry *e)
{
	static const struct hold_val none;
	char buf[32], name[64];
	const char *err;
	size_t g;

	for (g = 0; g < e->ngave_up; g++) {
		err = lock_errno_name(e->gave_up[g].err, buf, sizeof(buf));
		snprintf(name, sizeof(name), "[gave up: %s]", err);
		out_table__row_begin(t, 1);
		out_table__str(t, "gave_up");
		out_table__str(t, lock_view__str(&r->view, e->name));
		out_table__str(t, lock_type_name(e->flags));
		out_table__text(t, name);
		out_table__str(t, err);
		put_values(t, r, 0, &e->gave_up[g].v, &none, false, false);
		out_table__bool(t, lock_type_is_user(e->flags));
		out_table__bool(t, false);
		out_table__row_end(t);
	}
}

/* One total row: label in text, kind in CSV. */
static void put_total_row(struct out_table *t, const struct report *r, const char *label, const char *kind,
			  const struct lock_row_val *v, const struct hold_val *h)
{
	out_table__total_begin(t, label);
	out_table__str(t, kind);
	out_table__none(t);
	out_table__none(t);
	out_table__none(t);
	put_values(t, r, 0, v, h, r->view.total_estimated, r->view.hold_total_estimated);
	out_table__none(t);
	out_table__bool(t, r->view.total_estimated);
	out_table__row_end(t);
}

/*
 * TOTAL; where only some locks have hold data, its hold columns are "-"
 * and text and CSV add the total of those locks (JSON has each lock's).
 */
static void put_total(struct out_table *t, const struct report *r)
{
	char label[96];

	put_total_row(t, r, "TOTAL", "total", &r->view.total, total_hold(r));
	if (!partial_hold(r) || r->o.format == OUT_JSON)
		return;
	snprintf(label, sizeof(label), "TOTAL of the %zu lock%s with hold data", r->view.nheld,
		 r->view.nheld == 1 ? "" : "s");
	put_total_row(t, r, label, "total_with_hold", &r->view.held_total, &r->view.hold_total);
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

	family_meta_read(r->p, family_name(FAMILY_HOLD), &hold);
	family_meta_read(r->p, family_name(FAMILY_UPROBES), &up);
	family_status_line(&hold, hl, sizeof(hl));
	family_status_line(&up, ul, sizeof(ul));
	out_family_line(r->p, family_name(FAMILY_MMAP_LOCK), ml, sizeof(ml));
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
	       "stack (--stack-rate %s), each counted 1/p times; their avg, max, p50 and p99 are those of "
	       "the sampled waits; each lock's own figures count every wait\n#\n",
	       sampled, waits, profile__meta_or(r->p, "stack_rate", "?"));
}

/* Where callers' hold figures are estimates: how many acquisitions carried a stack. */
static void print_hold_estimate_note(const struct report *r)
{
	uint64_t sampled = 0, acquired = 0;
	size_t i;

	for (i = 0; i < r->view.nlocks; i++) {
		const struct lock_entry *e = &r->view.locks[i];

		if (!e->hold_estimated)
			continue;
		acquired += e->h.acquired;
		sampled += e->hold_sampled;
	}
	if (!acquired)
		return;
	printf("# callers' acquisitions and holds: \"~\" marks sums of 1/p per acquisition, "
	       "estimated from the %" PRIu64 " of %" PRIu64 " mmap_lock acquisitions that carried a stack; "
	       "their hold avg and max are those of the sampled holds\n#\n",
	       sampled, acquired);
}

/* Uprobes detached over their budget measured the start of the run only. */
static void print_uprobes_note(const struct report *r)
{
	if (lock_view__uprobes_detached(r->p))
		printf("# user locks: uprobes detached over their budget (record --event-budget, --force): "
		       "their acquisitions and holds cover the start of the run only\n#\n");
}

/*
 * Text, under the table: each lock whose max wait got a "!", and what
 * the recording's steal says of it. The row is as measured; this says
 * whether the host can have made it so.
 */
static void print_steal_note(const struct report *r)
{
	char max[32], name[256], why[400];
	enum steal_verdict v;
	bool first = true;
	size_t i;

	for (i = 0; i < shown_locks(r); i++) {
		const struct lock_entry *e = &r->view.locks[i];

		v = steal_verdict_of(&r->steal, e->flags, e->v.max_ns);
		if (v == STEAL_NOT_APPLICABLE)
			continue;
		if (first)
			printf("#\n# \"!\" before a max wait: above %llu ms on a spinning lock, longer than a spin "
			       "lasts unless the host takes the CPU away (steal) from the waiter or the holder\n",
			       STEAL_SPIN_LIMIT_NS / 1000000);
		first = false;
		fmt_ns(max, sizeof(max), e->v.max_ns);
		fmt_printable(name, sizeof(name), lock_view__str(&r->view, e->name));
		printf("#   %s: max %s above %llu ms on a spinning lock: %s\n", name, max,
		       STEAL_SPIN_LIMIT_NS / 1000000, out_steal_verdict(&r->steal, v, why, sizeof(why)));
	}
}

static void json_hist(struct json_writer *jw, const struct lock_row_val *v)
{
	int i;

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

static void json_gave_up(struct json_writer *jw, const struct lock_entry *e)
{
	char err[32];
	size_t g;

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

/* --hist and --stacks: lines under the lock's in text, members of its object in JSON. */
static void put_details(struct out_table *t, const struct report *r, const struct lock_entry *e)
{
	struct json_writer *jw;

	if (r->o.format == OUT_TEXT) {
		if (r->o.hist)
			print_hist(&e->v);
		if (r->o.stacks)
			print_stacks(r, e);
		return;
	}
	if ((jw = out_table__extra(t, "gave_up")))
		json_gave_up(jw, e);
	if (r->o.hist && (jw = out_table__extra(t, "hist")))
		json_hist(jw, &e->v);
	if (r->o.stacks && (jw = out_table__extra(t, "stacks")))
		json_stacks(jw, r, e);
}

static void print_rows(struct out_doc *d, const struct report *r)
{
	struct out_col cols[L__COUNT];
	struct out_table *t;
	int text[L__COUNT], ntext, n = lock_cols_of(r, cols, text, &ntext);
	size_t i;

	t = out_doc__table(d, "locks", cols, n);
	if (!t)
		return;
	out_table__text_order(t, text, ntext);
	out_table__set_children(t, "callers");
	for (i = 0; i < shown_locks(r); i++) {
		const struct lock_entry *e = &r->view.locks[i];

		put_row(t, r, e, NULL, NULL);
		put_callers(t, r, e);
		if (r->o.format != OUT_JSON)
			put_gave_up(t, r, e);
		put_details(t, r, e);
	}
	put_total(t, r);
	out_table__free(t);
}

int print_locks(const struct report *r)
{
	struct out_doc *d = report__doc(r);

	if (!d)
		return -ENOMEM;
	if (r->o.format == OUT_TEXT) {
		print_hold_note(r);
		print_estimate_note(r);
		print_hold_estimate_note(r);
		print_uprobes_note(r);
	}
	print_rows(d, r);
	out_doc__free(d);
	if (r->o.format == OUT_TEXT)
		print_steal_note(r);
	return 0;
}
