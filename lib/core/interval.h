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
 *  - a difference of percentiles: each side of the difference's interval
 *    from the runs' sides that can move it, combined in quadrature (Zou and
 *    Donner's MOVER): an approximation, stated as such, that needs no
 *    resampling and no samples kept.
 */
#ifndef NTP_INTERVAL_H
#define NTP_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the standard normal's 97.5% quantile: the ranks below and Welch's interval beyond 30 df */
#define NTP_Z975 1.959963984540054

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

/*
 * Tests of a change, for compare's verdicts (ntprof-compare(1),
 * SIGNIFICANCE): the two-sided p-value that the runs' statistic is the
 * same, from the same model as the intervals above (Welch's t for the
 * means, the percentiles' intervals as normal ones), NaN when it cannot
 * be computed; and the correction of n such tests for their number.
 */
/* P(|T| >= |t|) of Student's t with df degrees of freedom */
double ntp_interval__t_two_sided(double t, double df);
double ntp_interval__mean_diff_p(size_t n_base, double mean_base, double sd_base, size_t n_new,
				 double mean_new, double sd_new);
double ntp_interval__quantile_diff_p(int64_t v_base, int64_t lo_base, int64_t hi_base,
				     int64_t v_new, int64_t lo_new, int64_t hi_new);
/*
 * reject[i]: test i's null rejected by Benjamini and Hochberg's method: the
 * k smallest p-values for the largest k whose k-th is at most k alpha / n.
 * Of the tests rejected, at most a share alpha are true nulls, expected;
 * and when every null is true the chance of rejecting any is at most
 * alpha.  0, or -1 without memory.
 */
int ntp_interval__bh(const double *p, size_t n, double alpha, bool *reject);

#endif
