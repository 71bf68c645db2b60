// SPDX-License-Identifier: GPL-2.0
/* 95% confidence intervals (lib/core/interval.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/core/interval.h"

#define Z975 NTP_Z975

void ntp_interval__quantile_ranks(double p, size_t n, size_t *lo, size_t *hi)
{
	double q = p / 100.0, mid = (double)n * q, half = Z975 * sqrt((double)n * q * (1.0 - q));
	double l = floor(mid - half), h = ceil(mid + half);

	*lo = l < 1 ? 1 : l > (double)n ? n : (size_t)l;
	*hi = h < 1 ? 1 : h > (double)n ? n : (size_t)h;
}

/* Student's t, 97.5% quantile, for 1..30 degrees of freedom */
static const double t975[31] = {
	0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double ntp_interval__t975(double df)
{
	int k;

	if (!(df >= 1))
		return t975[1];
	if (df > 30)
		return Z975;
	/* the table's entry at or below df: a little wider, never narrower */
	k = (int)floor(df);
	return t975[k];
}

int ntp_interval__mean_diff(size_t n_base, double mean_base, double sd_base, size_t n_new,
			    double mean_new, double sd_new, double *lo, double *hi)
{
	double vb, vn, se2, df, d = mean_new - mean_base, half;

	if (n_base < 2 || n_new < 2)
		return 0;
	vb = sd_base * sd_base / (double)n_base;
	vn = sd_new * sd_new / (double)n_new;
	se2 = vb + vn;
	if (se2 > 0)
		df = se2 * se2 / (vb * vb / (double)(n_base - 1) + vn * vn / (double)(n_new - 1));
	else
		df = (double)(n_base + n_new - 2);
	half = ntp_interval__t975(df) * sqrt(se2);
	*lo = d - half;
	*hi = d + half;
	return 1;
}

/*
 * The sides of the difference's interval from the sides of the runs'
 * (Zou and Donner's MOVER): the difference can only be lower than seen
 * by the new run being lower or the base higher, so its lower side takes
 * the new run's lower side and the base's upper one, and the other way.
 * A percentile's interval is lopsided where the tail thins out; its
 * mean half width would make the thin side too narrow.
 */
static void quantile_sides(int64_t v_base, int64_t lo_base, int64_t hi_base, int64_t v_new,
			   int64_t lo_new, int64_t hi_new, double *below, double *above)
{
	double nb = (double)v_new - (double)lo_new, bh = (double)hi_base - (double)v_base;
	double nh = (double)hi_new - (double)v_new, bl = (double)v_base - (double)lo_base;

	*below = sqrt(nb * nb + bh * bh);
	*above = sqrt(nh * nh + bl * bl);
}

int ntp_interval__quantile_diff(int64_t v_base, int64_t lo_base, int64_t hi_base, int64_t v_new,
				int64_t lo_new, int64_t hi_new, double *lo, double *hi)
{
	double d = (double)v_new - (double)v_base, below, above;

	quantile_sides(v_base, lo_base, hi_base, v_new, lo_new, hi_new, &below, &above);
	*lo = d - below;
	*hi = d + above;
	return 1;
}

/*
 * The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (modified Lentz), with the symmetry I_x(a, b) = 1 - I_1-x(b, a)
 * where the fraction converges slowly.
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, delta;

		num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = fabs(d) < tiny ? tiny : d;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = fabs(d) < tiny ? tiny : d;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < eps)
			break;
	}
	return h;
}

static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_fraction(a, b, x) / a;
	return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double ntp_interval__t_two_sided(double t, double df)
{
	if (isnan(t))
		return 1.0;
	if (isinf(t))
		return 0.0;
	if (!(df > 0))
		return 1.0;
	/* P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
	return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

/* the Welch-Satterthwaite degrees of freedom and the standard error of a difference of means */
static void welch(size_t n_base, double sd_base, size_t n_new, double sd_new, double *se,
		  double *df)
{
	double vb = sd_base * sd_base / (double)n_base, vn = sd_new * sd_new / (double)n_new;
	double se2 = vb + vn;

	*se = sqrt(se2);
	if (se2 > 0)
		*df = se2 * se2 / (vb * vb / (double)(n_base - 1) + vn * vn / (double)(n_new - 1));
	else
		*df = (double)(n_base + n_new - 2);
}

double ntp_interval__mean_diff_p(size_t n_base, double mean_base, double sd_base, size_t n_new,
				 double mean_new, double sd_new)
{
	double se, df, d = mean_new - mean_base;

	if (n_base < 2 || n_new < 2)
		return NAN;
	welch(n_base, sd_base, n_new, sd_new, &se, &df);
	if (se == 0)
		return d == 0 ? 1.0 : 0.0;
	return ntp_interval__t_two_sided(d / se, df);
}

double ntp_interval__quantile_diff_p(int64_t v_base, int64_t lo_base, int64_t hi_base,
				     int64_t v_new, int64_t lo_new, int64_t hi_new)
{
	double d = (double)v_new - (double)v_base, below, above, sd;

	quantile_sides(v_base, lo_base, hi_base, v_new, lo_new, hi_new, &below, &above);
	/* a rise is judged by how far the difference could be below what was seen */
	sd = (d >= 0 ? below : above) / Z975;
	if (sd == 0)
		return d == 0 ? 1.0 : 0.0;
	return erfc(fabs(d) / sd / M_SQRT2);
}

/* p[] by index, ascending */
static const double *sort_p;

static int p_cmp(const void *a, const void *b)
{
	double x = sort_p[*(const size_t *)a], y = sort_p[*(const size_t *)b];

	return x < y ? -1 : x > y ? 1 : 0;
}

int ntp_interval__bh(const double *p, size_t n, double alpha, bool *reject)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), last = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		reject[i] = false;
	}
	sort_p = p;
	qsort(order, n, sizeof(*order), p_cmp);
	sort_p = NULL;
	/* the largest k with the k-th smallest p at most k alpha / n: it and all below */
	for (size_t k = 1; k <= n; k++)
		if (p[order[k - 1]] <= (double)k * alpha / (double)n)
			last = k;
	for (size_t k = 0; k < last; k++)
		reject[order[k]] = true;
	free(order);
	return 0;
}
