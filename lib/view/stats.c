// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Tests for lockstat diff, from libm alone. The incomplete beta function
 * is the continued fraction of Numerical Recipes (Lentz's method), which
 * gives both the t distribution and exact binomial tails; each tail is
 * computed directly, never as 1 - (1 - p), so that tiny p-values keep
 * their digits.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "view/stats.h"

#define BETA_EPS	1e-15
/* Lentz needs O(sqrt(max(a, b))) steps: enough for counts up to ~1e12. */
#define BETA_MAXIT	2000000

double stats_mean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	return n ? s / n : 0;
}

double stats_sd(const double *x, size_t n)
{
	double m = stats_mean(x, n), s = 0;
	size_t i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (n - 1));
}

static double not_tiny(double v)
{
	const double fpmin = DBL_MIN / DBL_EPSILON;

	return fabs(v) < fpmin ? fpmin : v;
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double betacf(double a, double b, double x)
{
	double c = 1, d = 1 / not_tiny(1 - (a + b) * x / (a + 1)), h = d, aa, del;
	long m;

	for (m = 1; m <= BETA_MAXIT; m++) {
		aa = m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m));
		d = 1 / not_tiny(1 + aa * d);
		c = not_tiny(1 + aa / c);
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m));
		d = 1 / not_tiny(1 + aa * d);
		c = not_tiny(1 + aa / c);
		del = d * c;
		h *= del;
		if (fabs(del - 1) < BETA_EPS)
			break;
	}
	return h;
}

/*
 * I_x(a, b) in *lower and 1 - I_x(a, b) in *upper: the one the continued
 * fraction converges for is computed, the other is its complement, and
 * the computed one is the smaller tail, the one whose digits matter.
 */
static void betai_tails(double a, double b, double x, double *lower, double *upper)
{
	double front;

	if (x <= 0 || x >= 1) {
		*lower = x <= 0 ? 0 : 1;
		*upper = 1 - *lower;
		return;
	}
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2)) {
		*lower = front * betacf(a, b, x) / a;
		*upper = 1 - *lower;
	} else {
		*upper = front * betacf(b, a, 1 - x) / b;
		*lower = 1 - *upper;
	}
}

double stats_betai(double a, double b, double x)
{
	double lower, upper;

	betai_tails(a, b, x, &lower, &upper);
	return lower;
}

double stats_t_p2(double t, double df)
{
	if (isnan(t) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0;
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

/*
 * Bisection on stats_t_p2, which falls as t grows: 200 halvings of
 * [0, 1e6] are far below a double's precision, and no special function
 * beyond the one the tests already trust is needed.
 */
double stats_t_quantile2(double p2, double df)
{
	double lo = 0, hi = 1e6, mid;
	int i;

	if (!(p2 > 0 && p2 <= 1) || !(df > 0))
		return NAN;
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (stats_t_p2(mid, df) > p2)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void stats_welch_moments(double m1, double v1, size_t n1, double m2, double v2, size_t n2,
			 struct welch *w)
{
	double s1 = v1 / n1, s2 = v2 / n2, se2 = s1 + s2;

	if (se2 <= 0) {
		w->t = m1 == m2 ? 0 : (m1 > m2 ? INFINITY : -INFINITY);
		w->df = n1 + n2 - 2;
		w->p = m1 == m2 ? 1 : 0;
		return;
	}
	w->t = (m1 - m2) / sqrt(se2);
	w->df = se2 * se2 / (s1 * s1 / (n1 - 1) + s2 * s2 / (n2 - 1));
	w->p = stats_t_p2(w->t, w->df);
}

int stats_welch(const double *x, size_t nx, const double *y, size_t ny, struct welch *w)
{
	double sx = stats_sd(x, nx), sy = stats_sd(y, ny);

	if (nx < 2 || ny < 2)
		return -EINVAL;
	stats_welch_moments(stats_mean(x, nx), sx * sx, nx, stats_mean(y, ny), sy * sy, ny, w);
	return 0;
}

/* --- Mann-Whitney ------------------------------------------------------------ */

struct ranked {
	double v;
	bool from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

/*
 * U of x from mid-ranks; *tie_sum gets sum(t^3 - t) over the groups of
 * tied values, for the variance correction.
 */
static double mwu_u(struct ranked *r, size_t nx, size_t n, double *tie_sum)
{
	double rank_sum = 0;
	size_t i = 0, j, k;

	qsort(r, n, sizeof(*r), cmp_ranked);
	*tie_sum = 0;
	while (i < n) {
		for (j = i; j + 1 < n && r[j + 1].v == r[i].v; j++)
			;
		for (k = i; k <= j; k++)
			if (r[k].from_x)
				rank_sum += (i + j) / 2.0 + 1;	/* mid-rank, 1-based */
		*tie_sum += pow(j - i + 1, 3) - (j - i + 1);
		i = j + 1;
	}
	return rank_sum - nx * (nx + 1) / 2.0;
}

/*
 * Exact P(U <= u) for sizes nx, ny without ties: the share of the
 * C(nx + ny, nx) ways to pick x's ranks whose rank sum is small enough,
 * counted by subset sums (doubles: C(60, 30) ~ 1.2e17 stays exact enough).
 */
static double mwu_exact_cdf(double u, size_t nx, size_t ny)
{
	size_t n = nx + ny, smax = n * (n + 1) / 2, r, c, s;
	double *ways = calloc((nx + 1) * (smax + 1), sizeof(double)), total = 0, below = 0;
	double limit = u + nx * (nx + 1) / 2.0;

	if (!ways)
		return NAN;
	ways[0] = 1;
	for (r = 1; r <= n; r++)	/* add rank r to the subsets */
		for (c = (r < nx ? r : nx); c >= 1; c--)
			for (s = smax; s >= r; s--)
				ways[c * (smax + 1) + s] += ways[(c - 1) * (smax + 1) + s - r];
	for (s = 0; s <= smax; s++) {
		total += ways[nx * (smax + 1) + s];
		if (s <= limit + 1e-9)
			below += ways[nx * (smax + 1) + s];
	}
	free(ways);
	return below / total;
}

static double mwu_exact_p(double u, size_t nx, size_t ny)
{
	double p;

	/* R's rule: the tail on the side of u, P(U >= u) = 1 - P(U <= u - 1). */
	if (u > nx * ny / 2.0)
		p = 1 - mwu_exact_cdf(u - 1, nx, ny);
	else
		p = mwu_exact_cdf(u, nx, ny);
	return fmin(1, 2 * p);
}

static double mwu_normal_p(double u, size_t nx, size_t ny, double tie_sum)
{
	double n = nx + ny, z = u - nx * ny / 2.0;
	double sigma = sqrt(nx * ny / 12.0 * ((n + 1) - tie_sum / (n * (n - 1))));

	if (sigma <= 0)
		return 1;
	z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sigma;
	return fmin(1, erfc(fabs(z) / M_SQRT2));
}

int stats_mwu(const double *x, size_t nx, const double *y, size_t ny, double *u, double *p)
{
	struct ranked *r;
	double tie_sum;
	size_t i;

	if (!nx || !ny)
		return -EINVAL;
	r = calloc(nx + ny, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < nx; i++)
		r[i] = (struct ranked){ x[i], true };
	for (i = 0; i < ny; i++)
		r[nx + i] = (struct ranked){ y[i], false };
	*u = mwu_u(r, nx, nx + ny, &tie_sum);
	free(r);
	if (!tie_sum && nx <= STATS_MWU_EXACT_MAX && ny <= STATS_MWU_EXACT_MAX)
		*p = mwu_exact_p(*u, nx, ny);
	else
		*p = mwu_normal_p(*u, nx, ny, tie_sum);
	return isnan(*p) ? -ENOMEM : 0;
}

double stats_mwu_min_p(size_t nx, size_t ny)
{
	double ways = 1;
	size_t i;

	for (i = 1; i <= nx; i++)	/* C(nx + ny, nx) */
		ways = ways * (ny + i) / i;
	return fmin(1, 2 / ways);
}

/* --- counts ------------------------------------------------------------------ */

double stats_binom_cdf(uint64_t k, uint64_t n, double p)
{
	double lower, upper;

	if (k >= n)
		return 1;
	if (p <= 0 || p >= 1)
		return p <= 0 ? 1 : 0;
	/* P(X <= k) = I_{1-p}(n - k, k + 1) */
	betai_tails((double)(n - k), (double)k + 1, 1 - p, &lower, &upper);
	return lower;
}

double stats_binom_sf(uint64_t k, uint64_t n, double p)
{
	double lower, upper;

	if (!k)
		return 1;
	if (k > n)
		return 0;
	if (p <= 0 || p >= 1)
		return p <= 0 ? 0 : 1;
	/* P(X >= k) = I_p(k, n - k + 1) */
	betai_tails((double)k, (double)(n - k) + 1, p, &lower, &upper);
	return lower;
}

double stats_poisson2(uint64_t c1, double t1, uint64_t c2, double t2)
{
	uint64_t n = c1 + c2;
	double p0, lo, hi;

	if (!n || t1 <= 0 || t2 <= 0)
		return 1;
	p0 = t1 / (t1 + t2);
	lo = stats_binom_cdf(c1, n, p0);
	hi = stats_binom_sf(c1, n, p0);
	return fmin(1, 2 * fmin(lo, hi));
}

/* --- multiple comparisons ------------------------------------------------------ */

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

int stats_adjust(const double *p, double *q, size_t n, enum stats_adjust how)
{
	struct pidx *s = calloc(n ? n : 1, sizeof(*s));
	size_t m = 0, i;
	double run;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	if (how == ADJUST_BH) {
		for (i = m, run = 1; i-- > 0;) {	/* step up: q_i = min over j >= i */
			run = fmin(run, s[i].p * m / (i + 1));
			s[i].p = run;
		}
	} else if (how == ADJUST_HOLM) {
		for (i = 0, run = 0; i < m; i++) {	/* step down: q_i = max over j <= i */
			run = fmax(run, fmin(1, s[i].p * (m - i)));
			s[i].p = run;
		}
	}
	for (i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	for (i = 0; i < m; i++)
		q[s[i].i] = s[i].p;
	free(s);
	return 0;
}
