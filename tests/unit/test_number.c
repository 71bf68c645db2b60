// SPDX-License-Identifier: GPL-2.0
/* The one rounding rule of every output's latencies (lib/fmt/number.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/fmt/number.h"

static void check(int64_t ns, int decimals, const char *want)
{
	char buf[64];

	ntp_num__us(buf, sizeof(buf), ns, decimals);
	assert_string_equal(buf, want);
}

static void us__half_away_from_zero_on_decimal_digits(void **state)
{
	(void)state;
	/* 49.555 is below its binary neighbour: printf's %.2f gives 49.55 */
	check(49555, 2, "49.56");
	check(49554, 2, "49.55");
	check(-49555, 2, "-49.56");
	check(1005, 2, "1.01");
	check(1004, 2, "1.00");
	check(999995, 2, "1000.00");
	check(7321, 3, "7.321");
	check(-7321, 3, "-7.321");
	check(1500, 0, "2");
	check(-1499, 0, "-1");
	check(INT64_MAX, 2, "9223372036854775.81");
	check(INT64_MIN, 2, "-9223372036854775.81");
}

static void us__never_minus_zero(void **state)
{
	(void)state;
	check(-4, 2, "0.00");
	check(0, 2, "0.00");
	check(-1, 3, "-0.001");
	check(-499, 0, "0");
}

static void exact__every_digit_of_the_unit(void **state)
{
	char buf[64];

	(void)state;
	ntp_num__exact(buf, sizeof(buf), 65536, 1000);
	assert_string_equal(buf, "65.536");
	ntp_num__exact(buf, sizeof(buf), 65536, 1000000);
	assert_string_equal(buf, "0.065536");
	ntp_num__exact(buf, sizeof(buf), 65536, 1);
	assert_string_equal(buf, "65536");
	ntp_num__exact(buf, sizeof(buf), -1500, 1000);
	assert_string_equal(buf, "-1.500");
	ntp_num__exact(buf, sizeof(buf), INT64_MAX, 1000);
	assert_string_equal(buf, "9223372036854775.807");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(us__half_away_from_zero_on_decimal_digits),
		cmocka_unit_test(us__never_minus_zero),
		cmocka_unit_test(exact__every_digit_of_the_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
