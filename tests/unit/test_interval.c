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
	/* half widths 3 and 4: 5 */
	assert_true(ntp_interval__quantile_diff(100, 97, 103, 150, 146, 154, &lo, &hi));
	assert_true(lo == 45 && hi == 55);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantile_ranks__median_of_100),
		cmocka_unit_test(t975__table_and_normal),
		cmocka_unit_test(mean_diff__welch_worked_example),
		cmocka_unit_test(quantile_diff__half_widths_in_quadrature),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
