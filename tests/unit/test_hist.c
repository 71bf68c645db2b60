// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/hist.c and the standard deviation of lib/core/stats.c, against
 * references computed here independently: each bucket's bounds checked as
 * powers of two, the counts by testing every sample against every bucket's
 * bounds (no binary search, no bit tricks), and the standard deviation by
 * its textbook definition over values small enough to be exact in doubles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "lib/core/hist.h"
#include "lib/core/stats.h"

static void bucket__bounds__powers_of_two(void **state)
{
	(void)state;
	assert_int_equal(ntp_hist__bucket(INT64_MIN), 0);
	assert_int_equal(ntp_hist__bucket(-1), 0);
	assert_int_equal(ntp_hist__bucket(0), 0);
	assert_int_equal(ntp_hist__bucket(1), 1);
	assert_int_equal(ntp_hist__bucket(2), 2);
	assert_int_equal(ntp_hist__bucket(3), 2);
	assert_int_equal(ntp_hist__bucket(1023), 10);
	assert_int_equal(ntp_hist__bucket(1024), 11);
	assert_int_equal(ntp_hist__bucket(2047), 11);
	assert_int_equal(ntp_hist__bucket(INT64_MAX), 63);
	assert_true(ntp_hist__lo(0) == INT64_MIN);
	assert_int_equal(ntp_hist__hi(0), 0);
	assert_true(ntp_hist__hi(63) == INT64_MAX);
	for (int k = 1; k < NTP_HIST_BUCKETS; k++) {
		double lo = ldexp(1.0, k - 1);

		assert_true((double)ntp_hist__lo(k) == lo);
		/* contiguous: each bucket starts one past the previous one's end */
		assert_true(ntp_hist__lo(k) == ntp_hist__hi(k - 1) + 1);
		assert_int_equal(ntp_hist__bucket(ntp_hist__lo(k)), k);
		assert_int_equal(ntp_hist__bucket(ntp_hist__hi(k)), k);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* counts by comparing every sample with every bucket's bounds */
static void brute_counts(const int64_t *v, size_t n, uint64_t *count)
{
	for (int k = 0; k < NTP_HIST_BUCKETS; k++) {
		count[k] = 0;
		for (size_t i = 0; i < n; i++)
			count[k] += v[i] >= ntp_hist__lo(k) && v[i] <= ntp_hist__hi(k);
	}
}

static void from_sorted__random__matches_brute_force(void **state)
{
	static const size_t sizes[] = { 1, 2, 7, 100, 1000, 20000 };
	int64_t *v = malloc(20000 * sizeof(*v));
	uint64_t want[NTP_HIST_BUCKETS];

	(void)state;
	assert_non_null(v);
	srandom(14);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		for (int round = 0; round < 3; round++) {
			size_t n = sizes[z];
			struct ntp_hist h;
			uint64_t total = 0;
			int first = -1, last = -1;

			for (size_t i = 0; i < n; i++) {
				/* round 0: latencies; 1: around zero; 2: the whole int64 range */
				if (round == 0)
					v[i] = random() % 5000000;
				else if (round == 1)
					v[i] = random() % 64 - 32;
				else
					v[i] = (int64_t)(((uint64_t)random() << 33) ^ ((uint64_t)random() << 2) ^
							 (uint64_t)random());
			}
			if (round == 2 && n > 2) {
				v[0] = INT64_MIN;
				v[1] = INT64_MAX;
			}
			qsort(v, n, sizeof(*v), cmp_i64);
			ntp_hist__from_sorted(&h, v, n);
			brute_counts(v, n, want);
			for (int k = 0; k < NTP_HIST_BUCKETS; k++) {
				if (h.count[k] != want[k])
					fail_msg("n=%zu round %d bucket %d: got %llu want %llu", n, round,
						 k, (unsigned long long)h.count[k],
						 (unsigned long long)want[k]);
				total += h.count[k];
				if (want[k] && first < 0)
					first = k;
				if (want[k])
					last = k;
			}
			assert_int_equal(total, n);
			assert_int_equal(h.lo, first);
			assert_int_equal(h.hi, last);
		}
	}
	free(v);
}

static void from_sorted__empty__no_bucket(void **state)
{
	struct ntp_hist h;
	struct ntp_samples s;
	struct ntp_summary sum;

	(void)state;
	ntp_hist__from_sorted(&h, NULL, 0);
	assert_true(h.lo > h.hi);
	for (int k = 0; k < NTP_HIST_BUCKETS; k++)
		assert_int_equal(h.count[k], 0);
	ntp_samples__init(&s);
	ntp_samples__summarize(&s, &sum);
	assert_null(sum.hist);          /* only when asked for */
	assert_int_equal(ntp_samples__histogram(&s, &sum), 0);
	assert_true(sum.hist->lo > sum.hist->hi);
	assert_true(sum.stddev == 0.0);
	ntp_summary__free(&sum);
	assert_null(sum.hist);
}

static void fill(struct ntp_samples *s, const int64_t *v, size_t n)
{
	ntp_samples__init(s);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ntp_samples__add(s, v[i]), 0);
}

/* {2,4,4,4,5,5,7,9}: mean 5, squares about it 32; sample variance 32/7 */
static void summarize__stddev__textbook_example(void **state)
{
	static const int64_t v[] = { 9, 4, 2, 4, 5, 7, 4, 5 };
	struct ntp_samples s;
	struct ntp_summary sum;
	uint64_t total = 0;

	(void)state;
	fill(&s, v, 8);
	ntp_samples__summarize(&s, &sum);
	assert_int_equal(ntp_samples__histogram(&s, &sum), 0);
	assert_true(fabs(sum.stddev - sqrt(32.0 / 7.0)) < 1e-12);
	/* 2 -> [2,3], 4 4 4 5 5 7 -> [4,7], 9 -> [8,15] */
	assert_int_equal(sum.hist->lo, 2);
	assert_int_equal(sum.hist->hi, 4);
	assert_int_equal(sum.hist->count[2], 1);
	assert_int_equal(sum.hist->count[3], 6);
	assert_int_equal(sum.hist->count[4], 1);
	for (int k = 0; k < NTP_HIST_BUCKETS; k++)
		total += sum.hist->count[k];
	assert_int_equal(total, sum.n);
	ntp_summary__free(&sum);
	ntp_samples__free(&s);
}

static void summarize__stddev__one_sample_is_zero(void **state)
{
	static const int64_t v[] = { 123456 };
	struct ntp_samples s;
	struct ntp_summary sum;

	(void)state;
	fill(&s, v, 1);
	ntp_samples__summarize(&s, &sum);
	assert_int_equal(ntp_samples__histogram(&s, &sum), 0);
	assert_true(sum.stddev == 0.0);
	assert_int_equal(sum.hist->count[ntp_hist__bucket(123456)], 1);
	ntp_summary__free(&sum);
	ntp_samples__free(&s);
}

/*
 * Latencies far from zero with a small spread: a one-pass sum of squares
 * would cancel to noise here; the definition, in integers, is exact.
 */
static void summarize__stddev__large_offset_exact(void **state)
{
	const size_t n = 10000;
	const int64_t base = 1000000000000000LL;	/* 1e15 ns */
	struct ntp_samples s;
	struct ntp_summary sum;
	int64_t *v = malloc(n * sizeof(*v));
	__int128 tot = 0, sq = 0;
	double want;

	(void)state;
	assert_non_null(v);
	srandom(7);
	for (size_t i = 0; i < n; i++) {
		v[i] = base + random() % 1000;
		tot += v[i];
	}
	/* n^2 variance x (n - 1) = sum of (n v - tot)^2, all integers */
	for (size_t i = 0; i < n; i++) {
		__int128 d = (__int128)n * v[i] - tot;

		sq += d * d;
	}
	want = sqrt((double)sq / ((double)n * (double)n * (double)(n - 1)));
	fill(&s, v, n);
	ntp_samples__summarize(&s, &sum);
	assert_true(fabs(sum.stddev - want) < 1e-6 * want);
	ntp_samples__free(&s);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bucket__bounds__powers_of_two),
		cmocka_unit_test(from_sorted__random__matches_brute_force),
		cmocka_unit_test(from_sorted__empty__no_bucket),
		cmocka_unit_test(summarize__stddev__textbook_example),
		cmocka_unit_test(summarize__stddev__one_sample_is_zero),
		cmocka_unit_test(summarize__stddev__large_offset_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
