// SPDX-License-Identifier: GPL-2.0
/* The table of statistics (lib/core/stat_table.h): one definition, self-consistent. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/core/stat_table.h"

/* a percentile's minimum n is the binomial's normal rule, n >= 5 / min(p, 1 - p) */
static void stat_table__percentile_min_n__binomial_rule(void **state)
{
	int percentiles = 0;

	for (int st = 0; st < NTP_NSTATS; st++) {
		double p = ntp_stats[st].pct / 100.0;

		if (p <= 0)
			continue;
		percentiles++;
		assert_int_equal(ntp_stats[st].min_n,
				 (uint64_t)ceil(5.0 / (p < 0.5 ? p : 1.0 - p) - 1e-9));
	}
	assert_int_equal(percentiles, 4);
	assert_int_equal(ntp_stats[NTP_STAT_PCT + 2].min_n, 500);
	assert_int_equal(ntp_stats[NTP_STAT_PCT + 3].min_n, 5000);
	/* a variance needs two commands */
	assert_int_equal(ntp_stats[NTP_STAT_MEAN].min_n, 2);
	assert_int_equal(ntp_stats[NTP_STAT_STDDEV].min_n, 2);
}

static void stat_table__names_and_keys__unique_and_found(void **state)
{
	for (int a = 0; a < NTP_NSTATS; a++) {
		const struct ntp_stat_desc *d = &ntp_stats[a];

		if (!d->uses)		/* a percentile slot past the list */
			continue;
		assert_non_null(d->name);
		assert_non_null(d->key);
		assert_non_null(d->title);
		assert_non_null(d->unit);
		assert_int_equal(ntp_stat__find(d->name, strlen(d->name), d->uses), a);
		assert_int_equal(ntp_stat__find(d->key, strlen(d->key), d->uses), a);
		for (int b = a + 1; b < NTP_NSTATS; b++) {
			if (!ntp_stats[b].uses)
				continue;
			assert_string_not_equal(d->name, ntp_stats[b].name);
			assert_string_not_equal(d->key, ntp_stats[b].key);
		}
	}
	/* a use that does not take it does not find it */
	assert_int_equal(ntp_stat__find("stddev", 6, NTP_STAT_SORT), -1);
	assert_int_equal(ntp_stat__find("max", 3, NTP_STAT_CHANGE), -1);
	/* a prefix is not a name */
	assert_int_equal(ntp_stat__find("p99.9", 3, NTP_STAT_FIELD), NTP_STAT_PCT + 2);
	assert_int_equal(ntp_stat__find("p9", 2, NTP_STAT_FIELD), -1);
}

static void stat_table__list__names_in_order_with_or(void **state)
{
	char buf[128];

	ntp_stat__list(NTP_STAT_CHANGE, buf, sizeof(buf));
	assert_string_equal(buf, "mean, p50, p90, p99 or p99.9");
	ntp_stat__list(NTP_STAT_SORT, buf, sizeof(buf));
	assert_string_equal(buf, "n, min, mean, p50, p90, p99, p99.9, max or share");
	assert_string_equal(ntp_stat__suggest("p99.8", NTP_STAT_CHANGE), "p99.9");
}

/* an option's .values: the names of its use, in the table's order */
static void stat_table__names__those_of_the_use_in_order(void **state)
{
	const char *const *sort = ntp_stat__names(NTP_STAT_SORT);
	const char *const *change = ntp_stat__names(NTP_STAT_CHANGE);
	const char *const *field = ntp_stat__names(NTP_STAT_FIELD);
	int k = 0;

	(void)state;
	assert_string_equal(change[0], "mean");
	assert_string_equal(change[4], "p99.9");
	assert_null(change[5]);
	for (int st = 0; st < NTP_NSTATS; st++)
		if (ntp_stats[st].uses & NTP_STAT_SORT)
			assert_string_equal(sort[k++], ntp_stats[st].name);
	assert_null(sort[k]);
	for (k = 0; field[k]; k++)
		;
	/* every statistic but the empty percentile slots */
	assert_int_equal(k, NTP_NSTATS - (NTP_PCT_MAX - 4));
	assert_null(ntp_stat__names(1u << 3));
}

static void stat_table__of_summary__each_statistic(void **state)
{
	const struct ntp_summary s = { .n = 7, .min = 1, .max = 9, .mean = 4.5, .stddev = 2.49,
				       .pct = { 4, 8, 9, 9 } };

	assert_int_equal(ntp_stat__of(&s, NTP_STAT_N), 7);
	assert_int_equal(ntp_stat__of(&s, NTP_STAT_MIN), 1);
	assert_int_equal(ntp_stat__of(&s, NTP_STAT_MEAN), 5);    /* rounded half away from 0 */
	assert_int_equal(ntp_stat__of(&s, NTP_STAT_STDDEV), 2);
	assert_int_equal(ntp_stat__of(&s, NTP_STAT_PCT + 1), 8);
	assert_int_equal(ntp_stat__of(&s, NTP_STAT_MAX), 9);
}

/* a percentile is shown from the n whose nearest rank falls below the last command */
static void stat_table__min_shown__rank_below_the_maximum(void **state)
{
	static const double p[] = { 50, 90, 99, 99.9, 99.99, 12.5 };

	(void)state;
	assert_int_equal(ntp_stat__pct_min_shown(50), 2);
	assert_int_equal(ntp_stat__pct_min_shown(99), 100);
	assert_int_equal(ntp_stat__pct_min_shown(99.9), 1000);
	assert_int_equal(ntp_stat__pct_min_shown(99.99), 10000);
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		uint64_t m = ntp_stat__pct_min_shown(p[i]);

		/* nearest rank ceil(p n): n itself below m, below n from m on */
		assert_true(ceil(p[i] / 100 * (double)(m - 1) - 1e-9) >= (double)(m - 1));
		assert_true(ceil(p[i] / 100 * (double)m - 1e-9) < (double)m);
	}
}

/* --percentiles: sorted, repeats dropped, names and keys from the digits given */
static void stat_table__set_percentiles__list_and_errors(void **state)
{
	char why[160], list[NTP_PCT_LIST_MAX];

	(void)state;
	assert_int_equal(ntp_stat__set_percentiles("99.99,50,95:99,95", why, sizeof(why)), 0);
	ntp_stat__percentile_list(list, sizeof(list));
	assert_string_equal(list, "50,95,99,99.99");
	assert_string_equal(ntp_stats[NTP_STAT_PCT + 3].name, "p99.99");
	assert_string_equal(ntp_stats[NTP_STAT_PCT + 3].key, "p99_99");
	assert_int_equal(ntp_stats[NTP_STAT_PCT + 3].min_shown, 10000);
	assert_int_equal(ntp_stats[NTP_STAT_PCT + 3].min_n, 50000);
	assert_int_equal(ntp_stats[NTP_STAT_PCT + 1].min_n, 100);
	assert_int_equal(ntp_stats[NTP_STAT_PCT + 4].uses, 0);
	assert_int_equal(ntp_stat__find("p95", 3, NTP_STAT_CHANGE), NTP_STAT_PCT + 1);
	assert_int_equal(ntp_stat__find("p90", 3, NTP_STAT_FIELD), -1);
	assert_int_equal(ntp_stat__percentile(99), NTP_STAT_PCT + 2);
	assert_int_equal(ntp_stat__tail(), NTP_STAT_PCT + 2);
	assert_int_equal(ntp_summary__npercentiles(), 4);

	/* without 99 the tail is the highest listed */
	assert_int_equal(ntp_stat__set_percentiles("50,99.9", why, sizeof(why)), 0);
	assert_int_equal(ntp_stat__tail(), NTP_STAT_PCT + 1);
	assert_int_equal(ntp_stat__set_percentiles("99.900", why, sizeof(why)), 0);
	assert_string_equal(ntp_stats[NTP_STAT_PCT].name, "p99.9");

	/* refused, the list kept */
	assert_int_equal(ntp_stat__set_percentiles("100", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "below 100"));
	assert_int_equal(ntp_stat__set_percentiles("0", why, sizeof(why)), -1);
	assert_int_equal(ntp_stat__set_percentiles("99.99999", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "4 decimals"));
	assert_int_equal(ntp_stat__set_percentiles("50,,99", why, sizeof(why)), -1);
	assert_int_equal(ntp_stat__set_percentiles("p99", why, sizeof(why)), -1);
	assert_int_equal(ntp_stat__set_percentiles("1,2,3,4,5,6,7,8,9", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 8"));
	ntp_stat__percentile_list(list, sizeof(list));
	assert_string_equal(list, "99.9");

	/* back to the default for the other tests */
	assert_int_equal(ntp_stat__set_percentiles("50,90,99,99.9", why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stat_table__percentile_min_n__binomial_rule),
		cmocka_unit_test(stat_table__names_and_keys__unique_and_found),
		cmocka_unit_test(stat_table__list__names_in_order_with_or),
		cmocka_unit_test(stat_table__names__those_of_the_use_in_order),
		cmocka_unit_test(stat_table__of_summary__each_statistic),
		cmocka_unit_test(stat_table__min_shown__rank_below_the_maximum),
		cmocka_unit_test(stat_table__set_percentiles__list_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
