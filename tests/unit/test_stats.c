// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/stats.c against references computed here independently: published
 * nearest-rank examples, and a brute-force definition (the smallest sample
 * with at least p% of the samples at or below it, found by counting, with no
 * sorting and no rank formula) over random sets, sizes on both sides of the
 * switch from qsort to the radix sort, negative values and int64 extremes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/core/stats.h"
#include "xorshift.h"

static void fill(struct ntp_samples *s, const int64_t *v, size_t n)
{
	size_t i;

	ntp_samples__init(s);
	for (i = 0; i < n; i++)
		assert_int_equal(ntp_samples__add(s, v[i]), 0);
}

/*
 * Brute force, in integers: p is given in thousandths of a percent, and v
 * qualifies when count(x <= v) * 100000 >= p_milli * n.
 */
static int64_t brute_percentile(const int64_t *v, size_t n, long p_milli)
{
	int64_t best = 0;
	int found = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		unsigned __int128 le = 0;

		for (j = 0; j < n; j++)
			le += v[j] <= v[i];
		if (le * 100000 >= (unsigned __int128)p_milli * n && (!found || v[i] < best)) {
			best = v[i];
			found = 1;
		}
	}
	return best;
}

static void percentile__empty__zero(void **state)
{
	struct ntp_samples s;
	struct ntp_summary sum;

	ntp_samples__init(&s);
	assert_int_equal(ntp_samples__percentile(&s, 50), 0);
	ntp_samples__summarize(&s, &sum);
	assert_int_equal(sum.n, 0);
	assert_int_equal(sum.min, 0);
	assert_int_equal(sum.max, 0);
	assert_int_equal(sum.pct[2], 0);
	assert_true(sum.mean == 0);
	ntp_samples__free(&s);
}

/* the worked examples of the nearest-rank method (Wikipedia, "Percentile") */
static void percentile__published_examples__match(void **state)
{
	const int64_t a[] = { 15, 20, 35, 40, 50 };
	const int64_t b[] = { 20, 16, 15, 13, 10, 8, 8, 7, 6, 3 };	/* unsorted on purpose */
	struct ntp_samples s;

	fill(&s, a, 5);
	assert_int_equal(ntp_samples__percentile(&s, 5), 15);
	assert_int_equal(ntp_samples__percentile(&s, 30), 20);
	assert_int_equal(ntp_samples__percentile(&s, 40), 20);
	assert_int_equal(ntp_samples__percentile(&s, 50), 35);
	assert_int_equal(ntp_samples__percentile(&s, 100), 50);
	ntp_samples__free(&s);

	fill(&s, b, 10);
	assert_int_equal(ntp_samples__percentile(&s, 25), 7);
	assert_int_equal(ntp_samples__percentile(&s, 50), 8);
	assert_int_equal(ntp_samples__percentile(&s, 75), 15);
	assert_int_equal(ntp_samples__percentile(&s, 100), 20);
	ntp_samples__free(&s);
}

/* p*n/100 that is an integer in decimal but not in binary must not round up */
static void percentile__exact_ranks__no_float_rounding(void **state)
{
	struct ntp_samples s;
	struct ntp_summary sum;
	int64_t i;

	ntp_samples__init(&s);
	for (i = 10000; i >= 1; i--)
		assert_int_equal(ntp_samples__add(&s, i), 0);
	assert_int_equal(ntp_samples__percentile(&s, 99.9), 9990);
	assert_int_equal(ntp_samples__percentile(&s, 99.99), 9999);
	assert_int_equal(ntp_samples__percentile(&s, 0.01), 1);
	assert_int_equal(ntp_samples__percentile(&s, 0.0001), 1);
	assert_int_equal(ntp_samples__percentile(&s, 70), 7000);
	ntp_samples__summarize(&s, &sum);
	assert_int_equal(sum.n, 10000);
	assert_int_equal(sum.min, 1);
	assert_int_equal(sum.max, 10000);
	/* the default list: 50, 90, 99, 99.9 */
	assert_int_equal(sum.pct[0], 5000);
	assert_int_equal(sum.pct[1], 9000);
	assert_int_equal(sum.pct[2], 9900);
	assert_int_equal(sum.pct[3], 9990);
	assert_true(sum.sum == 50005000.0);
	assert_true(sum.mean == 5000.5);

	ntp_samples__reset(&s);
	for (i = 1; i <= 1000; i++)
		assert_int_equal(ntp_samples__add(&s, i), 0);
	assert_int_equal(ntp_samples__percentile(&s, 99.9), 999);
	assert_int_equal(ntp_samples__percentile(&s, 100), 1000);
	ntp_samples__free(&s);
}

static void summarize__random_sets__match_brute_force(void **state)
{
	static const long p_milli[] = { 1, 1000, 25000, 50000, 90000, 99000, 99900, 99999, 100000 };
	static const size_t sizes[] = { 1, 2, 3, 7, 100, 511, 512, 513, 1000, 3001 };
	int64_t *v = malloc(3001 * sizeof(*v));
	unsigned int seed = 1;
	size_t k, i, j;

	assert_non_null(v);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (int round = 0; round < 4; round++) {
			size_t n = sizes[k];
			struct ntp_samples s;
			struct ntp_summary sum;
			int64_t mn = INT64_MAX, mx = INT64_MIN;
			double total = 0;

			for (i = 0; i < n; i++) {
				int64_t x = (int64_t)rand_r(&seed) << 31 | rand_r(&seed);

				switch (round) {
				case 0:		/* latencies: small, many duplicates */
					x = x % 50;
					break;
				case 1:		/* ns latencies, 5 significant bytes */
					x = x % 100000000000LL;
					break;
				case 2:		/* negative too */
					x = x % 2000001 - 1000000;
					break;
				default:	/* the whole range, extremes included */
					x = (int64_t)((uint64_t)x << 2 ^ (uint64_t)rand_r(&seed) << 33);
					if (i == 0)
						x = INT64_MIN;
					if (i == 1)
						x = INT64_MAX;
				}
				v[i] = x;
				mn = x < mn ? x : mn;
				mx = x > mx ? x : mx;
				total += (double)x;
			}
			fill(&s, v, n);
			for (j = 0; j < sizeof(p_milli) / sizeof(p_milli[0]); j++) {
				int64_t want = brute_percentile(v, n, p_milli[j]);
				int64_t got = ntp_samples__percentile(&s, p_milli[j] / 1000.0);

				if (got != want)
					fail_msg("n=%zu round %d p=%.3f: got %lld want %lld", n, round,
						 p_milli[j] / 1000.0, (long long)got, (long long)want);
			}
			ntp_samples__summarize(&s, &sum);
			assert_int_equal(sum.n, n);
			assert_int_equal(sum.min, mn);
			assert_int_equal(sum.max, mx);
			assert_int_equal(sum.pct[0], brute_percentile(v, n, 50000));
			assert_int_equal(sum.pct[1], brute_percentile(v, n, 90000));
			assert_int_equal(sum.pct[2], brute_percentile(v, n, 99000));
			assert_int_equal(sum.pct[3], brute_percentile(v, n, 99900));
			if (round < 3)	/* exact sums; round 3 overflows doubles' precision anyway */
				assert_true(sum.sum == total && sum.mean == total / n);
			/* sorted ascending, and a permutation of the input (same sum) */
			for (i = 1; i < n; i++)
				assert_true(s.v[i - 1] <= s.v[i]);
			ntp_samples__free(&s);
		}
	}
	free(v);
}

/*
 * Millions of samples through the radix sort: check each percentile by
 * counting (one pass each), the way a reader would verify it by hand.
 */
static void percentile__five_million__rank_by_counting(void **state)
{
	const size_t n = 5000000;
	static const double ps[] = { 50, 90, 99, 99.9 };
	struct ntp_samples s;
	unsigned int seed = 7;
	int64_t *copy = malloc(n * sizeof(*copy));
	size_t i, j;

	assert_non_null(copy);
	ntp_samples__init(&s);
	for (i = 0; i < n; i++) {
		/* a long-tailed latency: 20 us base plus rare multi-ms outliers */
		int64_t x = 20000 + rand_r(&seed) % 5000;

		if (rand_r(&seed) % 1000 == 0)
			x += (int64_t)(rand_r(&seed) % 5000) * 1000;
		copy[i] = x;
		assert_int_equal(ntp_samples__add(&s, x), 0);
	}
	for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
		int64_t v = ntp_samples__percentile(&s, ps[j]);
		size_t le = 0, lt = 0;

		for (i = 0; i < n; i++) {
			le += copy[i] <= v;
			lt += copy[i] < v;
		}
		/* at least p% at or below v, and fewer than p% strictly below */
		assert_true((double)le * 100 >= ps[j] * n);
		assert_true((double)lt * 100 < ps[j] * n);
	}
	free(copy);
	ntp_samples__free(&s);
}

static void add__after_percentile__resorts(void **state)
{
	struct ntp_samples s;

	ntp_samples__init(&s);
	assert_int_equal(ntp_samples__add(&s, 5), 0);
	assert_int_equal(ntp_samples__add(&s, 3), 0);
	assert_int_equal(ntp_samples__percentile(&s, 100), 5);
	assert_int_equal(ntp_samples__add(&s, 1), 0);
	assert_int_equal(ntp_samples__percentile(&s, 1), 1);
	assert_int_equal(ntp_samples__add(&s, 9), 0);
	assert_int_equal(ntp_samples__percentile(&s, 100), 9);
	ntp_samples__reset(&s);
	assert_int_equal(s.n, 0);
	assert_true(s.cap > 0);		/* reset keeps the memory */
	assert_int_equal(ntp_samples__percentile(&s, 50), 0);
	assert_int_equal(ntp_samples__add(&s, -4), 0);
	assert_int_equal(ntp_samples__percentile(&s, 50), -4);
	ntp_samples__free(&s);
	assert_null(s.v);
	assert_int_equal(s.n, 0);
}

/*
 * Summaries made at once on threads, largest first, are the ones made one
 * by one: sets of sizes from empty to past the radix sort's and the
 * threads' thresholds, histograms included, each back in its own summary.
 */
static void summarize_all__threads__same_as_one_by_one(void **state)
{
	enum { SETS = 13 };
	static const size_t sizes[SETS] = { 0, 1, 7, 511, 512, 4096, 100000, 250000, 3, 600000,
					    99999, 2, 300001 };
	struct ntp_samples a[SETS], b[SETS];
	struct ntp_summary sa[SETS], sb[SETS];
	struct ntp_summary_job jobs[SETS];
	unsigned int seed = 7;

	(void)state;
	for (int k = 0; k < SETS; k++) {
		ntp_samples__init(&a[k]);
		ntp_samples__init(&b[k]);
		for (size_t i = 0; i < sizes[k]; i++) {
			int64_t v = (int64_t)(rand_r(&seed) % 1000000) - (k == 4 ? 500000 : 0);

			assert_int_equal(ntp_samples__add(&a[k], v), 0);
			assert_int_equal(ntp_samples__add(&b[k], v), 0);
		}
		ntp_samples__summarize(&a[k], &sa[k]);
		assert_int_equal(ntp_samples__histogram(&a[k], &sa[k]), 0);
		jobs[k] = (struct ntp_summary_job){ &b[k], &sb[k] };
	}
	assert_int_equal(ntp_samples__summarize_all(jobs, SETS, true), 0);
	for (int k = 0; k < SETS; k++) {
		assert_int_equal(sb[k].n, sizes[k]);
		assert_int_equal(sb[k].hist->lo, sa[k].hist->lo);
		assert_int_equal(sb[k].hist->hi, sa[k].hist->hi);
		assert_memory_equal(sb[k].hist->count, sa[k].hist->count,
				    (size_t)(sa[k].hist->hi - sa[k].hist->lo + 1) *
				    sizeof(*sa[k].hist->count));
		ntp_summary__free(&sa[k]);
		ntp_summary__free(&sb[k]);
		assert_memory_equal(&sb[k], &sa[k], sizeof(sa[k]));
		ntp_samples__free(&a[k]);
		ntp_samples__free(&b[k]);
	}
}

/* a merge of two readers' samples: every sample once, in either direction, sorted or not */
static void append__either_way__the_union(void **state)
{
	static const size_t sizes[][2] = { { 0, 0 }, { 0, 5 }, { 5, 0 }, { 3, 700 }, { 700, 3 },
					   { 1000, 1000 } };

	(void)state;
	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		struct ntp_samples a, b, all;
		struct ntp_summary sa, sall;
		unsigned int seed = (unsigned int)c;

		ntp_samples__init(&a);
		ntp_samples__init(&b);
		ntp_samples__init(&all);
		for (int side = 0; side < 2; side++) {
			for (size_t i = 0; i < sizes[c][side]; i++) {
				/* one side ascending (sorted), the other random */
				int64_t v = side ? (int64_t)(rand_r(&seed) % 5000) : (int64_t)i * 3;

				assert_int_equal(ntp_samples__add(side ? &b : &a, v), 0);
				assert_int_equal(ntp_samples__add(&all, v), 0);
			}
		}
		assert_int_equal(ntp_samples__append(&a, &b), 0);
		assert_int_equal(b.n, 0);
		assert_null(b.v);
		assert_int_equal(a.n, sizes[c][0] + sizes[c][1]);
		ntp_samples__summarize(&a, &sa);
		ntp_samples__summarize(&all, &sall);
		assert_memory_equal(&sa, &sall, sizeof(sa));
		ntp_samples__free(&a);
		ntp_samples__free(&all);
	}
}

/* a summary holds the list it was made with: its percentiles and their intervals */
static void summarize__own_list__its_percentiles(void **state)
{
	static const double list[] = { 5, 95, 99.99 };
	static const double dflt[] = { NTP_PCT_DEFAULT };
	struct ntp_samples s;
	struct ntp_summary sum;

	(void)state;
	ntp_samples__init(&s);
	for (int64_t v = 20000; v >= 1; v--)
		assert_int_equal(ntp_samples__add(&s, v), 0);
	ntp_summary__set_percentiles(list, 3);
	assert_int_equal(ntp_summary__npercentiles(), 3);
	assert_true(ntp_summary__percentile(2) == 99.99);
	ntp_samples__summarize(&s, &sum);
	assert_int_equal(sum.pct[0], 1000);
	assert_int_equal(sum.pct[1], 19000);
	assert_int_equal(sum.pct[2], 19998);
	for (int i = 0; i < 3; i++)
		assert_true(sum.p_lo[i] <= sum.pct[i] && sum.pct[i] <= sum.p_hi[i]);
	ntp_summary__set_percentiles(dflt, sizeof(dflt) / sizeof(dflt[0]));
	ntp_samples__free(&s);
}

/*
 * ntp_stats__percentile_of: the sorted percentile of the same values, the
 * values left in their order; with many repeats (the three-way partition)
 * and with few distinct values
 */
static void percentile_of__random_sets__same_as_sorted(void **state)
{
	uint64_t x = XORSHIFT_SEED;
	const double ps[] = { 0.01, 1, 25, 50, 90, 99, 99.9, 100 };
	const size_t sizes[] = { 1, 2, 3, 10, 101, 5000 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (int spread = 0; spread < 2; spread++) {
			size_t n = sizes[k];
			int64_t *v = malloc(n * sizeof(*v)), *keep = malloc(n * sizeof(*v));
			struct ntp_samples s = { 0 };

			assert_non_null(v);
			assert_non_null(keep);
			for (size_t i = 0; i < n; i++) {
				v[i] = (int64_t)(xorshift64(&x) % (spread ? 1000000 : 4)) - 2;
				keep[i] = v[i];
				assert_int_equal(ntp_samples__add(&s, v[i]), 0);
			}
			for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
				int err = 0;

				assert_int_equal(ntp_stats__percentile_of(v, n, ps[i], &err),
						 ntp_samples__percentile(&s, ps[i]));
				assert_int_equal(err, 0);
			}
			assert_memory_equal(v, keep, n * sizeof(*v));
			ntp_samples__free(&s);
			free(v);
			free(keep);
		}
	}
	assert_int_equal(ntp_stats__percentile_of(NULL, 0, 50, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(percentile__empty__zero),
		cmocka_unit_test(percentile__published_examples__match),
		cmocka_unit_test(percentile__exact_ranks__no_float_rounding),
		cmocka_unit_test(summarize__random_sets__match_brute_force),
		cmocka_unit_test(percentile__five_million__rank_by_counting),
		cmocka_unit_test(add__after_percentile__resorts),
		cmocka_unit_test(summarize_all__threads__same_as_one_by_one),
		cmocka_unit_test(append__either_way__the_union),
		cmocka_unit_test(summarize__own_list__its_percentiles),
		cmocka_unit_test(percentile_of__random_sets__same_as_sorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
