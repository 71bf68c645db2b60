/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 95% confidence intervals: of a percentile of one set of samples, and of
 * the difference between two runs' means or percentiles, for compare to
 * tell a change from noise (ntprof-compare(1), SIGNIFICANCE).
 *
 *  - a percentile: distribution-free, from the order statistics.  The
 *    number of samples at or below the true p-quantile is binomial
 *    (n, p/100); the ranks n p -/+ 1.96 sqrt(n p (1 - p)), rounded outwards
 *    and clipped to 1..n, bound a 95% interval (its normal approximation).
 *  - a difference of means: Welch's t interval, with the Welch-Satterthwaite
 *    degrees of freedom (the runs' variances may differ).
 *  - a difference of percentiles: each run's interval taken as a normal one
 *    of its half width, combined in quadrature: an approximation, stated as
 *    such, that needs no resampling and no samples kept.
 */
#ifndef NTP_INTERVAL_H
#define NTP_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

/* the ranks (from 1) of a 95% interval of the p-th percentile of n sorted samples */
void ntp_interval__quantile_ranks(double p, size_t n, size_t *lo, size_t *hi);

/* the 97.5% quantile of Student's t with df degrees of freedom (1.96 beyond 30) */
double ntp_interval__t975(double df);

/*
 * new - base of the means, as a 95% interval [*lo, *hi] (ns); 0 when it
 * cannot be computed (fewer than two samples in a run).
 */
int ntp_interval__mean_diff(size_t n_base, double mean_base, double sd_base, size_t n_new,
			    double mean_new, double sd_new, double *lo, double *hi);

/* the same for a percentile, from each run's value and interval */
int ntp_interval__quantile_diff(int64_t v_base, int64_t lo_base, int64_t hi_base, int64_t v_new,
				int64_t lo_new, int64_t hi_new, double *lo, double *hi);

#endif
