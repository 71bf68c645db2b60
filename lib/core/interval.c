// SPDX-License-Identifier: GPL-2.0
/* 95% confidence intervals (lib/core/interval.h). */
#include <math.h>

#include "lib/core/interval.h"

#define Z975 1.959963984540054

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

int ntp_interval__quantile_diff(int64_t v_base, int64_t lo_base, int64_t hi_base, int64_t v_new,
				int64_t lo_new, int64_t hi_new, double *lo, double *hi)
{
	double hb = ((double)hi_base - (double)lo_base) / 2.0;
	double hn = ((double)hi_new - (double)lo_new) / 2.0;
	double d = (double)v_new - (double)v_base, half = sqrt(hb * hb + hn * hn);

	*lo = d - half;
	*hi = d + half;
	return 1;
}
