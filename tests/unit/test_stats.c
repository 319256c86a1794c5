// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib/view/stats: known inputs, known p-values. The references were computed
 * with mpmath at 50 digits (betainc, and sums of exact binomial terms),
 * and agree with R's t.test, wilcox.test and binom.test.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "view/stats.h"

/* Relative error within rel, or both tiny. */
static void near(double got, double want, double rel)
{
	if (fabs(got - want) <= rel * fabs(want) || fabs(got - want) < 1e-300)
		return;
	fail_msg("got %.17g, want %.17g (relative error %.3g > %.3g)", got, want,
		 fabs(got - want) / fabs(want), rel);
}

static void test_mean_sd(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

	(void)state;
	near(stats_mean(x, 8), 5, 1e-15);
	near(stats_sd(x, 8), sqrt(32.0 / 7), 1e-15);
	assert_true(stats_sd(x, 1) == 0);
	assert_true(stats_mean(x, 0) == 0);
}

static void test_betai(void **state)
{
	(void)state;
	near(stats_betai(2, 3, 0.4), 0.5248, 1e-13);
	near(stats_betai(0.5, 0.5, 0.2), 0.29516723530086654835, 1e-13);
	assert_true(stats_betai(2, 3, 0) == 0);
	assert_true(stats_betai(2, 3, 1) == 1);
}

static void test_t(void **state)
{
	(void)state;
	near(stats_t_p2(2, 10), 0.073388034770740365618, 1e-12);
	near(stats_t_p2(-2, 10), 0.073388034770740365618, 1e-12);
	near(stats_t_p2(35, 2), 0.00081532830514295854278, 1e-12);
	/* Far in the tail the digits survive: no 1 - (1 - p). */
	near(stats_t_p2(50, 30), 1.8715417659222712596e-30, 1e-9);
	assert_true(stats_t_p2(0, 5) == 1);
	assert_true(stats_t_p2(INFINITY, 5) == 0);
	/* The quantiles of a 95 % interval (R: qt(0.975, df)). */
	near(stats_t_quantile2(0.05, 10), 2.2281388519649385, 1e-9);
	near(stats_t_quantile2(0.05, 4), 2.7764451051977987, 1e-9);
	near(stats_t_quantile2(0.05, 1), 12.706204736174707, 1e-8);
	assert_true(isnan(stats_t_quantile2(0, 4)));
}

static void test_welch(void **state)
{
	static const double a[] = { 19.1, 20.3, 18.7, 21.0, 19.9 }, b[] = { 22.4, 23.1, 21.8, 24.0 };
	static const double c[] = { 1, 2, 3, 4, 5 }, d[] = { 2, 4, 6, 8, 10 };
	static const double z1[] = { 3, 3 }, z2[] = { 5, 5 };
	struct welch w;

	(void)state;
	assert_int_equal(stats_welch(a, 5, b, 4, &w), 0);
	near(w.t, -4.8194805647291722590, 1e-12);
	near(w.df, 6.4818929352387313531, 1e-12);
	near(w.p, 0.0023795787747551479298, 1e-10);
	assert_int_equal(stats_welch(c, 5, d, 5, &w), 0);
	near(w.t, -1.8973665961010275992, 1e-12);
	near(w.df, 5.8823529411764705882, 1e-12);
	near(w.p, 0.10753119493062724041, 1e-10);
	/* No spread at all: equal means are no change, others are certain. */
	assert_int_equal(stats_welch(z1, 2, z1, 2, &w), 0);
	assert_true(w.p == 1);
	assert_int_equal(stats_welch(z1, 2, z2, 2, &w), 0);
	assert_true(w.p == 0);
	assert_int_equal(stats_welch(a, 1, b, 4, &w), -EINVAL);
}

static void test_mwu(void **state)
{
	static const double x[] = { 1.1, 2.3, 3.5 }, y[] = { 4.2, 5.0, 6.1, 7.7 };
	static const double tx[] = { 1, 2, 2, 3, 4 }, ty[] = { 2, 3, 5, 6, 6 };
	static const double mx[] = { 0.8, 3.1, 4.4, 2.0 }, my[] = { 1.5, 2.2, 3.9, 5.2, 6.0 };
	double u, p;

	(void)state;
	/* Complete separation, no ties: exact, 2 / C(7, 3). */
	assert_int_equal(stats_mwu(x, 3, y, 4, &u, &p), 0);
	assert_true(u == 0);
	near(p, 2.0 / 35, 1e-13);
	assert_int_equal(stats_mwu(y, 4, x, 3, &u, &p), 0);
	assert_true(u == 12);
	near(p, 2.0 / 35, 1e-13);
	near(stats_mwu_min_p(3, 4), 2.0 / 35, 1e-13);
	near(stats_mwu_min_p(5, 5), 2.0 / 252, 1e-13);
	/* Interleaved, exact: U = 6 of 20, p = 2 * 26 / 126 (R's wilcox.test agrees). */
	assert_int_equal(stats_mwu(mx, 4, my, 5, &u, &p), 0);
	assert_true(u == 6);
	near(p, 52.0 / 126, 1e-13);
	/* Ties: the normal approximation with tie and continuity corrections. */
	assert_int_equal(stats_mwu(tx, 5, ty, 5, &u, &p), 0);
	assert_true(u == 4.5);
	near(p, 0.11049202405566803208, 1e-9);
}

static void test_binomial(void **state)
{
	(void)state;
	near(stats_binom_cdf(3, 10, 0.5), 0.171875, 1e-13);
	near(stats_binom_sf(8, 10, 0.5), 0.0546875, 1e-13);
	assert_true(stats_binom_cdf(10, 10, 0.3) == 1);
	assert_true(stats_binom_sf(0, 10, 0.3) == 1);
	/* Millions of events: the continued fraction still converges, exactly. */
	near(stats_binom_cdf(1000000, 2001500, 0.5), 0.14467336285619051676, 1e-8);
	near(stats_binom_sf(3000000, 5990000, 0.5), 0.000021992749321541256, 1e-7);
}

static void test_poisson2(void **state)
{
	(void)state;
	/* 10 against 0 over equal time: 2 * 0.5^10. */
	near(stats_poisson2(10, 1, 0, 1), 2.0 / 1024, 1e-13);
	near(stats_poisson2(0, 1, 10, 1), 2.0 / 1024, 1e-13);
	/* 4 against 0 is not enough at 0.05. */
	near(stats_poisson2(4, 1, 0, 1), 0.125, 1e-13);
	/* Exposures differ: the rates are compared, not the counts. */
	near(stats_poisson2(15, 2, 5, 1), 0.59442778722010234208, 1e-10);
	near(stats_poisson2(120, 1.5, 60, 1), 0.078033271999107974384, 1e-9);
	assert_true(stats_poisson2(0, 1, 0, 1) == 1);
	assert_true(stats_poisson2(100, 1, 100, 1) == 1);
}

static void test_adjust(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	static const double bh[] = { 0.02, 0.04, 0.04, 0.02 }, holm[] = { 0.03, 0.06, 0.06, 0.02 };
	double q[4], withnan[3] = { 0.01, NAN, 0.02 };
	int i;

	(void)state;
	assert_int_equal(stats_adjust(p, q, 4, ADJUST_BH), 0);
	for (i = 0; i < 4; i++)
		near(q[i], bh[i], 1e-13);
	assert_int_equal(stats_adjust(p, q, 4, ADJUST_HOLM), 0);
	for (i = 0; i < 4; i++)
		near(q[i], holm[i], 1e-13);
	assert_int_equal(stats_adjust(p, q, 4, ADJUST_NONE), 0);
	for (i = 0; i < 4; i++)
		near(q[i], p[i], 1e-15);
	/* Not a test: left out of n, in place. */
	assert_int_equal(stats_adjust(withnan, withnan, 3, ADJUST_BH), 0);
	near(withnan[0], 0.02, 1e-13);
	assert_true(isnan(withnan[1]));
	near(withnan[2], 0.02, 1e-13);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_sd),
		cmocka_unit_test(test_betai),
		cmocka_unit_test(test_t),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mwu),
		cmocka_unit_test(test_binomial),
		cmocka_unit_test(test_poisson2),
		cmocka_unit_test(test_adjust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
