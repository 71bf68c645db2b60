// SPDX-License-Identifier: GPL-2.0
/*
 * The 95% intervals of lib/core/interval.c against values worked by hand:
 * the order-statistic ranks of a percentile, Student's quantiles, Welch's
 * interval of a difference of means, and the quantile difference.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/core/interval.h"

static void quantile_ranks__median_of_100(void **state)
{
	size_t lo, hi;

	(void)state;
	/* 50 -/+ 1.96 x sqrt(100 x 0.5 x 0.5) = 50 -/+ 9.8: ranks 40 and 60 */
	ntp_interval__quantile_ranks(50, 100, &lo, &hi);
	assert_int_equal(lo, 40);
	assert_int_equal(hi, 60);
	/* clipped to 1..n at the ends */
	ntp_interval__quantile_ranks(99.9, 100, &lo, &hi);
	assert_true(lo >= 99 && hi == 100);
	ntp_interval__quantile_ranks(50, 1, &lo, &hi);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 1);
}

static void t975__table_and_normal(void **state)
{
	(void)state;
	assert_true(fabs(ntp_interval__t975(1) - 12.706) < 1e-9);
	assert_true(fabs(ntp_interval__t975(10) - 2.228) < 1e-9);
	/* between two entries: the wider, never the narrower */
	assert_true(fabs(ntp_interval__t975(10.7) - 2.228) < 1e-9);
	assert_true(fabs(ntp_interval__t975(31) - 1.959963984540054) < 1e-12);
	assert_true(fabs(ntp_interval__t975(0.5) - 12.706) < 1e-9);
}

static void mean_diff__welch_worked_example(void **state)
{
	double lo, hi, se, df;

	(void)state;
	/* n 50 and 50, sd 10 and 20, means 100 and 110 */
	assert_true(ntp_interval__mean_diff(50, 100, 10, 50, 110, 20, &lo, &hi));
	se = sqrt(100.0 / 50 + 400.0 / 50);
	df = pow(se * se, 2) / (pow(100.0 / 50, 2) / 49 + pow(400.0 / 50, 2) / 49);
	assert_true(df > 30);       /* 72.1: the normal quantile */
	assert_true(fabs(lo - (10 - 1.959963984540054 * se)) < 1e-9);
	assert_true(fabs(hi - (10 + 1.959963984540054 * se)) < 1e-9);
	/* small runs: Student's quantile, wider */
	assert_true(ntp_interval__mean_diff(4, 100, 10, 4, 110, 10, &lo, &hi));
	assert_true(fabs((hi - lo) / 2 - 2.447 * sqrt(50.0)) < 1e-9);   /* df 6 */
	/* one command in a run: no interval */
	assert_false(ntp_interval__mean_diff(1, 100, 0, 50, 110, 20, &lo, &hi));
	/* no spread at all: the interval is the delta itself */
	assert_true(ntp_interval__mean_diff(10, 5, 0, 10, 7, 0, &lo, &hi));
	assert_true(lo == 2 && hi == 2);
}

static void quantile_diff__half_widths_in_quadrature(void **state)
{
	double lo, hi;

	(void)state;
	/* symmetric half widths 3 and 4: 5 either side */
	assert_true(ntp_interval__quantile_diff(100, 97, 103, 150, 146, 154, &lo, &hi));
	assert_true(lo == 45 && hi == 55);
}

/*
 * Lopsided intervals (a thinning tail: far above, close below): the
 * difference's lower side from the new run's lower side and the base's
 * upper one, its upper side from the others.
 */
static void quantile_diff__sides_from_the_sides_that_move_it(void **state)
{
	double lo, hi, p_up, p_down;

	(void)state;
	/* base 100 in [97, 112], new 150 in [146, 165]: below sqrt(4^2 + 12^2), above sqrt(15^2 + 3^2) */
	assert_true(ntp_interval__quantile_diff(100, 97, 112, 150, 146, 165, &lo, &hi));
	assert_true(fabs(lo - (50 - sqrt(16 + 144))) < 1e-9);
	assert_true(fabs(hi - (50 + sqrt(225 + 9))) < 1e-9);
	/*
	 * The same distance either way is less sure upwards: a rise could be
	 * the base's wide upper side, a fall only its narrow lower one.
	 */
	p_up = ntp_interval__quantile_diff_p(100, 97, 112, 110, 105, 115);
	p_down = ntp_interval__quantile_diff_p(100, 97, 112, 90, 85, 95);
	assert_true(p_up > p_down);
	assert_true(fabs(p_up - erfc(10 / (sqrt(25 + 144) / 1.959963984540054) / M_SQRT2)) < 1e-12);
	assert_true(fabs(p_down - erfc(10 / (sqrt(25 + 9) / 1.959963984540054) / M_SQRT2)) < 1e-12);
}

/* known values of Student's t: P(|T| >= t) */
static void t_two_sided__known_values(void **state)
{
	(void)state;
	/* t975 quantiles: 0.05 two-sided */
	assert_true(fabs(ntp_interval__t_two_sided(12.706, 1) - 0.05) < 1e-4);
	assert_true(fabs(ntp_interval__t_two_sided(2.228, 10) - 0.05) < 1e-4);
	assert_true(fabs(ntp_interval__t_two_sided(2.042, 30) - 0.05) < 1e-4);
	/* df 1 is Cauchy: P(|T| >= 1) = 1/2 */
	assert_true(fabs(ntp_interval__t_two_sided(1.0, 1) - 0.5) < 1e-9);
	/* large df: the normal's 1.96 */
	assert_true(fabs(ntp_interval__t_two_sided(1.959963984540054, 1e7) - 0.05) < 1e-5);
	assert_true(ntp_interval__t_two_sided(0, 5) == 1.0);
	assert_true(ntp_interval__t_two_sided(INFINITY, 5) == 0.0);
	assert_true(ntp_interval__t_two_sided(-2.228, 10) == ntp_interval__t_two_sided(2.228, 10));
}

/* a p-value below 0.05 exactly when the 95% interval excludes 0, for both kinds */
static void diff_p__agrees_with_the_interval(void **state)
{
	double lo, hi, p;

	(void)state;
	for (double d = 0; d < 4; d += 0.125) {
		assert_true(ntp_interval__mean_diff(50, 100, 3, 60, 100 + d, 4, &lo, &hi));
		p = ntp_interval__mean_diff_p(50, 100, 3, 60, 100 + d, 4);
		/* away from the edge, where t975's table rounds */
		if (fabs(lo) > 0.01 && fabs(hi) > 0.01)
			assert_true((p < 0.05) == (lo > 0 || hi < 0));
	}
	for (int64_t d = 0; d < 20; d++) {
		assert_true(ntp_interval__quantile_diff(100, 97, 103, 100 + d, 96 + d, 104 + d, &lo,
							&hi));
		p = ntp_interval__quantile_diff_p(100, 97, 103, 100 + d, 96 + d, 104 + d);
		if (fabs(lo) > 1e-9 && fabs(hi) > 1e-9)
			assert_true((p < 0.05) == (lo > 0 || hi < 0));
	}
	/* no spread: any change is certain, none is none */
	assert_true(ntp_interval__mean_diff_p(5, 10, 0, 5, 11, 0) == 0.0);
	assert_true(ntp_interval__mean_diff_p(5, 10, 0, 5, 10, 0) == 1.0);
	assert_true(isnan(ntp_interval__mean_diff_p(1, 10, 0, 5, 10, 1)));
}

/* Benjamini-Hochberg: the largest k whose k-th smallest p is at most k alpha / n */
static void bh__step_up(void **state)
{
	const double p[] = { 0.04, 0.001, 0.03, 0.012, 0.5 };
	bool r[5];

	(void)state;
	assert_int_equal(ntp_interval__bh(p, 5, 0.05, r), 0);
	/* 0.001 <= 0.01, 0.012 <= 0.02, 0.03 <= 0.03, 0.04 <= 0.04; 0.5 > 0.05 */
	assert_true(r[0] && r[1] && r[2] && r[3]);
	assert_false(r[4]);
	/* one above its step does not stop the ones below a later k */
	{
		const double q[] = { 0.011, 0.012, 0.013 };

		assert_int_equal(ntp_interval__bh(q, 3, 0.05, r), 0);
		assert_true(r[0] && r[1] && r[2]);
	}
	{
		const double q[] = { 0.02, 0.04, 0.9 };

		assert_int_equal(ntp_interval__bh(q, 3, 0.05, r), 0);
		assert_false(r[0] || r[1] || r[2]);
	}
	assert_int_equal(ntp_interval__bh(p, 1, 0.05, r), 0);
	assert_true(r[0]);
	assert_int_equal(ntp_interval__bh(p, 0, 0.05, r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantile_ranks__median_of_100),
		cmocka_unit_test(t975__table_and_normal),
		cmocka_unit_test(mean_diff__welch_worked_example),
		cmocka_unit_test(quantile_diff__half_widths_in_quadrature),
		cmocka_unit_test(quantile_diff__sides_from_the_sides_that_move_it),
		cmocka_unit_test(t_two_sided__known_values),
		cmocka_unit_test(diff_p__agrees_with_the_interval),
		cmocka_unit_test(bh__step_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
