// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The invariant checker (view/invariants.h): a row that breaks each rule
 * is found, under its kind, and one that breaks none is not; then whole
 * profiles through invariants_check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "format/locktype.h"
#include "view/invariants.h"
#include "fixtures_tables.h"

#define US	1000ULL
#define S	1000000000ULL

/* Waits of 100, 200 and 300 ns: every figure agrees with every other. */
static struct lock_row_val good_row(void)
{
	struct lock_row_val v = { .count = 3, .total_ns = 600, .min_ns = 100, .max_ns = 300 };

	v.hist[6] = 1;	/* [64, 128) */
	v.hist[7] = 1;	/* [128, 256) */
	v.hist[8] = 1;	/* [256, 512) */
	return v;
}

/* Check one row; the errors found, all of kind (or none, kind unused). */
static size_t errors_of(const struct lock_row_val *v, bool exact, uint64_t dur, enum inv_kind kind)
{
	struct inv_report r = { 0 };
	size_t n, i;

	inv_check_row(&r, "lock l", v, exact, dur);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.rows, 1);
	for (i = 0; i < r.n; i++) {
		if (r.v[i].kind != kind)
			fprintf(stderr, "unexpected: %s\n", r.v[i].msg);
		assert_int_equal(r.v[i].kind, kind);
		assert_false(r.v[i].warning);
	}
	n = r.errors;
	assert_int_equal(r.by_kind[kind], n);
	inv_report__free(&r);
	return n;
}

static void test_good_row(void **state)
{
	struct lock_row_val v = good_row();

	(void)state;
	assert_int_equal(errors_of(&v, true, 2 * S, INV_AVG), 0);
	assert_int_equal(errors_of(&v, false, 2 * S, INV_AVG), 0);
	/* No duration (a cut file without END or bucket): nothing to hold the max to. */
	assert_int_equal(errors_of(&v, true, 0, INV_AVG), 0);
	/* A row without waits says nothing. */
	memset(&v, 0, sizeof(v));
	assert_int_equal(errors_of(&v, true, 2 * S, INV_AVG), 0);
}

/* The row under rq.__lock: ~3 ~67.80 us, avg 22.60 us, max 1.26 us; worded as report prints it. */
static void test_avg_above_max(void **state)
{
	struct lock_row_val v = { .count = 3, .total_ns = 67800, .min_ns = 1000, .max_ns = 1260 };
	const char *where = "lock files_struct.file_lock caller alloc_fd+0x36";
	struct inv_report r = { 0 };

	(void)state;
	v.hist[9] = 1;
	v.hist[10] = 2;
	inv_check_row(&r, where, &v, false, 2 * S);
	assert_int_equal(r.errors, 1);
	assert_int_equal(r.v[0].kind, INV_AVG);
	assert_string_equal(r.v[0].msg, "lock files_struct.file_lock caller alloc_fd+0x36: avg 22.60 us > max 1.26 us");
	inv_report__free(&r);
}

static void test_min_above_avg(void **state)
{
	struct lock_row_val v = good_row();

	(void)state;
	v.min_ns = 250;		/* above the average of 200 */
	v.hist[6] = 0;
	v.hist[7] = 3;		/* where a min of 250 ns puts the lowest wait... */
	v.hist[8] = 0;
	v.max_ns = 255;		/* ...and the highest */
	assert_int_equal(errors_of(&v, true, 2 * S, INV_AVG), 1);
}

/* A total below the longest of its waits: a sum that wrapped or lost a term. */
static void test_total_below_max(void **state)
{
	struct lock_row_val v = { .count = 3, .total_ns = 60, .min_ns = 10, .max_ns = 90 };

	(void)state;
	v.hist[3] = 2;		/* [8, 16) */
	v.hist[6] = 1;		/* [64, 128) */
	assert_int_equal(errors_of(&v, true, 2 * S, INV_AVG), 1);
	v.total_ns = 110;	/* 10 + 10 + 90 */
	assert_int_equal(errors_of(&v, true, 2 * S, INV_AVG), 0);
}

static void test_count_without_wait(void **state)
{
	struct lock_row_val v = { .total_ns = 500 };

	(void)state;
	assert_int_equal(errors_of(&v, false, 2 * S, INV_COUNT), 1);
	v = good_row();
	v.total_ns = 0;
	assert_int_equal(errors_of(&v, false, 2 * S, INV_COUNT), 1);
}

static void test_hist_sum(void **state)
{
	struct lock_row_val v = good_row();

	(void)state;
	v.hist[7] = 2;		/* four waits in the slots, three counted */
	assert_int_equal(errors_of(&v, true, 2 * S, INV_HIST_SUM), 1);
	/* An estimate's histogram is weighted: no exact sum to hold it to. */
	assert_int_equal(errors_of(&v, false, 2 * S, INV_HIST_SUM), 0);
}

static void test_hist_ends(void **state)
{
	struct lock_row_val v = good_row();

	(void)state;
	v.min_ns = 0;		/* as recorders before 7dd921a wrote a row seen on 2 CPUs */
	assert_int_equal(errors_of(&v, true, 2 * S, INV_HIST_ENDS), 1);
	v = good_row();
	v.max_ns = 600;		/* [512, 1024): the highest slot holds [256, 512) */
	v.total_ns = 900;
	assert_int_equal(errors_of(&v, false, 2 * S, INV_HIST_ENDS), 1);
}

/*
 * A histogram that reaches past the row's max, which is 0: the report's
 * quantiles stay within [min, max] (hist_quantile() clamps), so the row
 * is caught by its histogram's ends and its average, not its p99.
 */
static void test_quantiles(void **state)
{
	struct lock_row_val v = { .count = 2, .total_ns = 2 * 40, .min_ns = 0, .max_ns = 0 };
	struct inv_report r = { 0 };

	(void)state;
	v.hist[5] = 2;
	inv_check_row(&r, "lock l", &v, true, 2 * S);
	assert_int_equal(r.by_kind[INV_QUANTILE], 0);
	assert_true(r.by_kind[INV_HIST_ENDS] >= 1);
	assert_true(r.by_kind[INV_AVG] >= 1);
	inv_report__free(&r);
	/* The report's quantiles of a good row are in order. */
	v = good_row();
	assert_int_equal(errors_of(&v, true, 2 * S, INV_QUANTILE), 0);
}

static void test_longer_than_recording(void **state)
{
	struct lock_row_val v = { .count = 3, .total_ns = 620700000, .min_ns = 384, .max_ns = 620700000 };

	(void)state;
	v.hist[8] = 2;
	v.hist[29] = 1;		/* 620.70 ms: [2^29, 2^30) ns */
	v.total_ns += 2 * 384;
	assert_int_equal(errors_of(&v, true, 2 * S, INV_RECORDING), 0);
	assert_int_equal(errors_of(&v, true, 600000000, INV_RECORDING), 1);
}

/* A wait whose end came before its start: now - start wrapped, 584 years. */
static void test_wrapped(void **state)
{
	struct lock_row_val v = good_row();

	(void)state;
	v.max_ns = (uint64_t)-5;
	v.total_ns = (uint64_t)-10;
	assert_int_equal(errors_of(&v, true, 0, INV_WRAPPED), 2);
	v = good_row();
	v.hist[7] = (uint64_t)-1;
	assert_true(errors_of(&v, false, 2 * S, INV_WRAPPED) >= 1);
}

static size_t hold_errors(const struct hold_val *h, const struct lock_row_val *w, bool exact, enum inv_kind kind)
{
	struct inv_report r = { 0 };
	size_t n;

	inv_check_hold(&r, "lock l", h, w, exact, 2 * S);
	n = r.by_kind[kind];
	assert_int_equal(n, r.errors);
	inv_report__free(&r);
	return n;
}

static void test_hold(void **state)
{
	struct hold_val h = { .has_hold = true, .acquired = 10, .held = 10, .hold_ns = 5000, .hold_max_ns = 900 };
	struct lock_row_val w = good_row();

	(void)state;
	assert_int_equal(hold_errors(&h, &w, true, INV_HOLD), 0);
	h.held = 11;		/* more releases than acquisitions */
	h.hold_ns = 5500;
	assert_int_equal(hold_errors(&h, &w, true, INV_HOLD), 1);
	/* An estimated caller's acquisitions and releases are separate shares: no such rule. */
	assert_int_equal(hold_errors(&h, &w, false, INV_HOLD), 0);
	h.held = 10;
	h.hold_ns = 5000;
	w.count = 11;		/* CON% above 100 */
	assert_int_equal(hold_errors(&h, &w, true, INV_HOLD), 1);
	w.count = 3;
	h.hold_max_ns = 400;	/* hold avg 500 ns */
	assert_int_equal(hold_errors(&h, &w, true, INV_AVG), 1);
	h.hold_max_ns = 3 * S;
	h.hold_ns = 3 * S + 1000;
	assert_int_equal(hold_errors(&h, &w, true, INV_RECORDING), 1);
	/* Not measured: nothing to check. */
	h.has_hold = false;
	assert_int_equal(hold_errors(&h, &w, true, INV_RECORDING), 0);
}

/*
 * An estimated lock of 100 waits, 100 us, and two callers of 40 and 60
 * estimated waits, 40 and 60 us: each +- 1.96 standard errors of 10.
 */
struct est_lock {
	struct lock_entry e;
	struct lock_part c[2];
};

static void est_lock(struct est_lock *l, uint64_t count0, uint64_t count1)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	l->e.estimated = true;
	l->e.v.count = 100;
	l->e.v.total_ns = 100 * US;
	l->e.all.count = l->e.v.count;	/* the lock's exact figures, whatever the caller filter */
	l->e.all.wait_ns = l->e.v.total_ns;
	l->e.sum_var.unknown = true;	/* the callers' own intervals: test_callers_sum_var has the other */
	l->e.callers = l->c;
	l->e.ncallers = 2;
	l->c[0].v.count = count0;
	l->c[1].v.count = count1;
	for (i = 0; i < 2; i++) {
		l->c[i].v.total_ns = l->c[i].v.count * US;
		l->c[i].est.sampled = l->c[i].v.count / 8;
		l->c[i].est.sampled_ns = l->c[i].est.sampled * US;
		l->c[i].est.var_count = 100;
		l->c[i].est.var_wait = 100.0 * US * US;
	}
}

static void test_callers_within(void **state)
{
	struct inv_report r = { 0 };
	struct est_lock l;

	(void)state;
	est_lock(&l, 40, 60);
	inv_check_callers(&r, "lock l", &l.e);
	inv_check_estimate(&r, "lock l caller a", &l.e, &l.c[0]);
	inv_check_estimate(&r, "lock l caller b", &l.e, &l.c[1]);
	inv_settle_intervals(&r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.intervals, 2);
	assert_int_equal(r.missed, 0);
	inv_report__free(&r);
}

/*
 * The callers' 40 + 20 waits: 60, the lock's 100 outside 60 +- 2 x 19.6.
 * Once in a few locks it is chance (a warning); in every lock, a bias.
 */
static void test_callers_outside(void **state)
{
	struct inv_report r = { 0 };
	struct est_lock l;
	int i;

	(void)state;
	est_lock(&l, 40, 20);
	inv_check_callers(&r, "lock l", &l.e);
	inv_settle_intervals(&r);
	assert_int_equal(r.intervals, 2);
	assert_int_equal(r.missed, 2);	/* count and wait */
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.warnings, 2);
	assert_non_null(strstr(r.v[0].msg, "lock l: callers' contended ~60, lock 100: outside"));
	inv_report__free(&r);

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 40; i++) {	/* 40 locks, 80 tests: 78 fine, 2 missed: 5 % allows it */
		est_lock(&l, 40, i < 1 ? 20 : 60);
		inv_check_callers(&r, "lock l", &l.e);
	}
	inv_settle_intervals(&r);
	assert_int_equal(r.missed, 2);
	assert_int_equal(r.errors, 0);
	inv_report__free(&r);

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 10; i++) {	/* 10 locks, 20 tests, 10 missed: no chance does that */
		est_lock(&l, 40, i < 5 ? 20 : 60);
		inv_check_callers(&r, "lock l", &l.e);
	}
	inv_settle_intervals(&r);
	assert_int_equal(r.missed, 10);
	assert_int_equal(r.errors, 10);
	assert_int_equal(r.by_kind[INV_INTERVAL], 10);
	assert_int_equal(r.warnings, 0);
	inv_report__free(&r);
}

/*
 * A lock of 4 waits, 2 of which carried a stack at p = 1 (first waits on
 * their CPUs) and 2 not, drawn at p = 1/64: the callers' own intervals
 * are 2..2 (no variance in what was sampled), which the lock's exact 4
 * misses; the sum's own interval, over every wait's chance (2 * 63 of
 * variance), holds it. With the chance of those 2 at p = 1/2 (variance
 * 2), 4 is still inside 2 +- 2.8; a lock of 40 is not.
 */
static void test_callers_sum_var(void **state)
{
	struct inv_report r = { 0 };
	struct est_lock l;

	(void)state;
	est_lock(&l, 1, 1);
	l.e.v.count = l.e.all.count = 4;
	l.e.v.total_ns = l.e.all.wait_ns = 4 * US;
	l.c[0].est.var_count = l.c[1].est.var_count = 0;
	l.c[0].est.var_wait = l.c[1].est.var_wait = 0;
	l.c[0].est.sampled = l.c[1].est.sampled = 1;
	l.c[0].est.sampled_ns = l.c[1].est.sampled_ns = US;
	inv_check_callers(&r, "lock l", &l.e);
	assert_int_equal(r.missed, 2);	/* the old rule: the callers' intervals summed */
	inv_report__free(&r);

	memset(&r, 0, sizeof(r));
	l.e.sum_var = (struct lock_sum_var){ .count = 2 * 63, .wait = 2 * 63.0 * US * US };
	inv_check_callers(&r, "lock l", &l.e);
	assert_int_equal(r.missed, 0);
	assert_int_equal(r.intervals, 2);
	inv_report__free(&r);

	memset(&r, 0, sizeof(r));
	l.e.sum_var = (struct lock_sum_var){ .count = 2, .wait = 2.0 * US * US };
	inv_check_callers(&r, "lock l", &l.e);
	assert_int_equal(r.missed, 0);
	l.e.v.count = l.e.all.count = 40;
	inv_check_callers(&r, "lock l", &l.e);
	assert_int_equal(r.missed, 1);
	assert_non_null(strstr(r.v[0].msg, "outside their sum's 95 % interval"));
	inv_report__free(&r);
}

/* What no chance explains: more sampled waits than the lock had, an estimate outside its own interval. */
static void test_callers_impossible(void **state)
{
	struct inv_report r = { 0 };
	struct est_lock l;

	(void)state;
	est_lock(&l, 40, 60);
	l.c[1].est.sampled = 70;	/* with the other's 5: 75 sampled... */
	l.c[0].est.sampled = 31;	/* ...now 101 of a lock of 100 */
	inv_check_callers(&r, "lock l", &l.e);
	assert_int_equal(r.by_kind[INV_INTERVAL], 1);
	assert_non_null(strstr(r.v[0].msg, "sampled contended 101 > the lock's 100"));
	inv_report__free(&r);

	/* A total scaled below what its sampled waits alone took (scale_part_waits, issue 25). */
	memset(&r, 0, sizeof(r));
	est_lock(&l, 40, 60);
	l.c[0].v.total_ns = 2 * US;	/* its 5 sampled waits took 5 us */
	inv_check_estimate(&r, "lock l caller a", &l.e, &l.c[0]);
	assert_int_equal(r.errors, 1);
	assert_string_equal(r.v[0].msg, "lock l caller a: total wait ~2.00 us outside its 95 % interval 5.00 us..21.60 us");
	inv_report__free(&r);
}

/* Whole profiles: one lock, two callers, three stacks; written, read, checked. */
static struct profile *rows_profile(struct cont_row *rows, size_t n)
{
	const struct cont_row *buckets[1] = { rows };
	struct profile *p = fx_written(buckets, &n, 1, 2 * S);

	assert_non_null(p);
	return p;
}

static void test_profile(void **state)
{
	struct cont_row rows[3];
	struct inv_report r;
	struct profile *p;
	size_t i;

	(void)state;
	rows[0] = fx_row(FX_TASKLIST_LOCK, 1, LCB_F_SPIN, 0, 1, 100, 100, 100);
	rows[0].val.hist[6] = 1;
	rows[1] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN, 0, 5, 50, 10, 10);
	rows[1].val.hist[3] = 5;
	rows[2] = fx_row(FX_TASKLIST_LOCK, 3, LCB_F_SPIN, 0, 2, 500, 200, 300);
	rows[2].val.hist[7] = 1;
	rows[2].val.hist[8] = 1;
	p = rows_profile(rows, 3);
	assert_int_equal(invariants_check(p, &r), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.rows, 1 + 2 + 3 + 1);	/* lock, callers, stacks, TOTAL */
	inv_report__free(&r);
	profile__free(p);

	/* Its third stack's max past its histogram: the stack, its caller, the lock, the total. */
	rows[2].val.max_ns = 3000;
	rows[2].val.total_ns = 3200;
	p = rows_profile(rows, 3);
	assert_int_equal(invariants_check(p, &r), 0);
	assert_int_equal(r.errors, 4);
	assert_int_equal(r.by_kind[INV_HIST_ENDS], 4);
	for (i = 0; i < r.n; i++)
		assert_non_null(strstr(r.v[i].msg, "highest histogram slot [2^8, 2^9) ns does not hold max 3.00 us"));
	assert_string_equal(r.v[0].msg, "lock tasklist_lock: highest histogram slot [2^8, 2^9) ns does not hold max 3.00 us");
	inv_report__free(&r);
	profile__free(p);
}

static bool has_msg(const struct inv_report *r, const char *msg)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].msg, msg))
			return true;
	return false;
}

/*
 * A counter table's count, total and max columns (the fd family's fget
 * timings): by its keys, an average above its max, a call longer than
 * the recording, a count without time; a row that agrees says nothing.
 */
static const struct tcol timing_cols[] = {
	{ "pid", TCOL_KEY }, { "calls", TCOL_SUM }, { "time_ns", TCOL_SUM }, { "max_ns", TCOL_MAX },
};

static const struct tschema timing_schema = { "test.timing", 4, timing_cols };

static void fill_timing(struct pwriter *w, void *ctx)
{
	uint64_t v[] = {
		1, 3, 300, 150,			/* agrees */
		2, 2, 1000, 100,		/* avg 500 ns > max 100 ns */
		3, 1, 6 * S, 6 * S,		/* 6 s in a recording of 5 */
		4, 5, 0, 0,			/* calls without time */
	};

	(void)ctx;
	fxt_table(w, &timing_schema, v, 4);
}

static void test_table(void **state)
{
	struct pwriter_opts o = { 0 };
	struct inv_report r;
	struct profile *p;

	(void)state;
	p = fxt_profile(o, fill_timing, NULL);
	assert_int_equal(invariants_check(p, &r), 0);
	assert_int_equal(r.rows, 4);
	assert_int_equal(r.errors, 3);
	assert_int_equal(r.by_kind[INV_AVG], 1);
	assert_int_equal(r.by_kind[INV_RECORDING], 1);
	assert_int_equal(r.by_kind[INV_COUNT], 1);
	assert_true(has_msg(&r, "table test.timing pid=2: avg 500 ns > max 100 ns"));
	assert_true(has_msg(&r, "table test.timing pid=3: max_ns 6.00 s > the recording's 5.00 s"));
	assert_true(has_msg(&r, "table test.timing pid=4: calls 5 with time_ns 0 ns"));
	inv_report__free(&r);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_row),
		cmocka_unit_test(test_avg_above_max),
		cmocka_unit_test(test_min_above_avg),
		cmocka_unit_test(test_total_below_max),
		cmocka_unit_test(test_count_without_wait),
		cmocka_unit_test(test_hist_sum),
		cmocka_unit_test(test_hist_ends),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_longer_than_recording),
		cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_callers_within),
		cmocka_unit_test(test_callers_outside),
		cmocka_unit_test(test_callers_impossible),
		cmocka_unit_test(test_callers_sum_var),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
