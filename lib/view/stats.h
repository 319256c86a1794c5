/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_STATS_H
#define __LOCKSTAT_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The statistics of lockstat diff: is the change between the runs of a
 * baseline and the runs of a patched kernel more than noise? Everything is
 * computed here from libm, without a statistics library: the t
 * distribution and the binomial tails through the regularized incomplete
 * beta function, Mann-Whitney's exact distribution by counting.
 * Every p-value is two-sided. The method is documented in lockstat-diff(1).
 */

/* Mean, and the sample standard deviation (n - 1); 0 for n < 2. */
double stats_mean(const double *x, size_t n);
double stats_sd(const double *x, size_t n);

/* The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double stats_betai(double a, double b, double x);

/* P(|T| >= |t|) for Student's t with df > 0 degrees of freedom. */
double stats_t_p2(double t, double df);

/*
 * The t such that P(|T| >= t) = p2 (0 < p2 <= 1): the half-width of a
 * two-sided (1 - p2) interval in standard errors. NAN for bad input.
 */
double stats_t_quantile2(double p2, double df);

/*
 * Welch's unequal-variance t-test from the two sides' means, variances
 * and sizes (n >= 2 each): t, the Welch-Satterthwaite degrees of freedom
 * and the two-sided p. Both variances 0: p is 1 when the means are equal,
 * else 0 (there is no noise to hide the difference).
 */
struct welch {
	double t;
	double df;
	double p;
};

void stats_welch_moments(double m1, double v1, size_t n1, double m2, double v2, size_t n2,
			 struct welch *w);
int stats_welch(const double *x, size_t nx, const double *y, size_t ny, struct welch *w);

/*
 * Mann-Whitney U test (Wilcoxon rank-sum) of x against y: U of x and the
 * two-sided p. Exact when there are no ties and both sides hold at most
 * STATS_MWU_EXACT_MAX values, as R's wilcox.test does; otherwise the
 * normal approximation with the tie and continuity corrections.
 */
#define STATS_MWU_EXACT_MAX	30

int stats_mwu(const double *x, size_t nx, const double *y, size_t ny, double *u, double *p);
/* The smallest two-sided p the exact test can give for these sizes. */
double stats_mwu_min_p(size_t nx, size_t ny);

/* P(X <= k) and P(X >= k) for X ~ Binomial(n, p), exact. */
double stats_binom_cdf(uint64_t k, uint64_t n, double p);
double stats_binom_sf(uint64_t k, uint64_t n, double p);

/*
 * Are two Poisson counts c1 (over exposure t1) and c2 (over t2) from the
 * same rate? Conditioned on c1 + c2, c1 is Binomial(c1 + c2, t1 / (t1 + t2))
 * under that hypothesis: the exact two-sided p by doubling the smaller
 * tail (capped at 1). 1 when both counts are 0.
 */
double stats_poisson2(uint64_t c1, double t1, uint64_t c2, double t2);

/*
 * Adjust n p-values for multiple comparisons, into q (which may be p):
 * Holm's step-down (controls the chance of any false positive) or
 * Benjamini-Hochberg's step-up (controls the expected share of false
 * positives among the rows marked). NaN entries are not tests: they are
 * left out of n and stay NaN. 0 or -ENOMEM.
 */
enum stats_adjust { ADJUST_NONE, ADJUST_BH, ADJUST_HOLM };

int stats_adjust(const double *p, double *q, size_t n, enum stats_adjust how);

#endif
