// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/hist.c (over bpf/ntp_hist.h) and the standard deviation of
 * lib/core/stats.c, against references computed here independently: each
 * bucket's bounds from the definition (octaves cut in equal parts), the
 * counts at every resolution by testing every sample against every
 * bucket's bounds (no binary search, no bit tricks), and the standard deviation by
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

/* bucket k's bounds at s bits, by the definition: 0 below 1 ns, 1..2^s-1 each, then 2^s an octave */
static void reference_bounds(int k, int s, int64_t *lo, int64_t *hi)
{
	int per = 1 << s, octave, part;
	uint64_t width, base;

	if (k == 0) {
		*lo = INT64_MIN;
		*hi = 0;
		return;
	}
	if (k < per) {
		*lo = *hi = k;
		return;
	}
	octave = k / per + s - 1;            /* the octave [2^octave, 2^(octave+1)) */
	part = k % per;
	width = (1ULL << octave) / (uint64_t)per;
	base = 1ULL << octave;
	*lo = (int64_t)(base + (uint64_t)part * width);
	*hi = (int64_t)(base + (uint64_t)(part + 1) * width - 1);
}

static void bucket__bounds__octaves_cut_in_equal_parts(void **state)
{
	(void)state;
	for (int s = 0; s <= NTP_HIST_SUB_BITS; s++) {
		int nb = NTP_HIST_NBUCKETS(s);

		assert_int_equal(ntp_hist__bucket(INT64_MIN, s), 0);
		assert_int_equal(ntp_hist__bucket(-1, s), 0);
		assert_int_equal(ntp_hist__bucket(0, s), 0);
		assert_int_equal(ntp_hist__bucket(1, s), 1);
		assert_int_equal(ntp_hist__bucket(INT64_MAX, s), nb - 1);
		assert_true(ntp_hist__lo(0, s) == INT64_MIN);
		assert_int_equal(ntp_hist__hi(0, s), 0);
		assert_true(ntp_hist__hi(nb - 1, s) == INT64_MAX);
		for (int k = 1; k < nb; k++) {
			int64_t lo, hi;

			reference_bounds(k, s, &lo, &hi);
			assert_true(ntp_hist__lo(k, s) == lo);
			assert_true(ntp_hist__hi(k, s) == hi);
			/* contiguous: each bucket starts one past the previous one's end */
			assert_true(ntp_hist__lo(k, s) == ntp_hist__hi(k - 1, s) + 1);
			assert_int_equal(ntp_hist__bucket(lo, s), k);
			assert_int_equal(ntp_hist__bucket(hi, s), k);
		}
	}
	/* log2 at 0 bits: biolatency's [2^(k-1), 2^k - 1] */
	assert_int_equal(ntp_hist__bucket(1023, 0), 10);
	assert_int_equal(ntp_hist__bucket(1024, 0), 11);
	/* 8 an octave: 1024..1151 is one bucket, 1152 the next */
	assert_int_equal(ntp_hist__bucket(1151, 3), ntp_hist__bucket(1024, 3));
	assert_int_equal(ntp_hist__bucket(1152, 3), ntp_hist__bucket(1024, 3) + 1);
}

/* the shared header's loop-free log2 against the compiler's */
static void log2__every_bit__as_clz(void **state)
{
	(void)state;
	for (int b = 0; b < 64; b++) {
		uint64_t v = 1ULL << b;

		assert_int_equal(ntp_hist_log2(v), b);
		assert_int_equal(ntp_hist_log2(v | (v - 1)), b);
		assert_int_equal(ntp_hist_log2(v | 1), b);
	}
	srandom(3);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = ((uint64_t)random() << 33) ^ ((uint64_t)random() << 2) ^ (uint64_t)random();

		v >>= random() % 64;
		if (v)
			assert_int_equal(ntp_hist_log2(v), 63 - __builtin_clzll(v));
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* at every resolution, each bucket's count by comparing every sample with its bounds */
static void from_sorted__random__matches_brute_force(void **state)
{
	static const size_t sizes[] = { 1, 2, 7, 100, 1000, 5000 };
	int64_t *v = malloc(5000 * sizeof(*v));

	(void)state;
	assert_non_null(v);
	srandom(14);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		for (int round = 0; round < 3; round++) {
			size_t n = sizes[z];
			struct ntp_hist h;

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
			assert_int_equal(ntp_hist__from_sorted(&h, v, n), 0);
			for (int s = 0; s <= NTP_HIST_SUB_BITS; s++) {
				int first = -1, last = -1, lo, hi;
				uint64_t total = 0;

				for (int k = 0; k < NTP_HIST_NBUCKETS(s); k++) {
					uint64_t want = 0, got = ntp_hist__count(&h, k, s);

					for (size_t i = 0; i < n; i++)
						want += v[i] >= ntp_hist__lo(k, s) && v[i] <= ntp_hist__hi(k, s);
					if (got != want)
						fail_msg("n=%zu round %d bits %d bucket %d: got %llu want %llu",
							 n, round, s, k, (unsigned long long)got,
							 (unsigned long long)want);
					total += got;
					if (want && first < 0)
						first = k;
					if (want)
						last = k;
				}
				assert_int_equal(total, n);
				ntp_hist__range(&h, s, &lo, &hi);
				assert_int_equal(lo, first);
				assert_int_equal(hi, last);
			}
			ntp_hist__free(&h);
		}
	}
	free(v);
}

static void from_sorted__empty__no_bucket(void **state)
{
	struct ntp_hist h;
	struct ntp_samples s;
	struct ntp_summary sum;
	int lo, hi;

	(void)state;
	assert_int_equal(ntp_hist__from_sorted(&h, NULL, 0), 0);
	assert_true(h.lo > h.hi);
	ntp_hist__range(&h, 2, &lo, &hi);
	assert_true(lo > hi);
	assert_int_equal(ntp_hist__count(&h, 5, 2), 0);
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
	/* log2: 2 -> [2,3], 4 4 4 5 5 7 -> [4,7], 9 -> [8,15] */
	assert_int_equal(ntp_hist__count(sum.hist, 2, 0), 1);
	assert_int_equal(ntp_hist__count(sum.hist, 3, 0), 6);
	assert_int_equal(ntp_hist__count(sum.hist, 4, 0), 1);
	for (int k = 0; k < NTP_HIST_NBUCKETS(NTP_HIST_SUB_BITS); k++)
		total += ntp_hist__count(sum.hist, k, NTP_HIST_SUB_BITS);
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
	assert_int_equal(ntp_hist__count(sum.hist, ntp_hist__bucket(123456, 2), 2), 1);
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
		cmocka_unit_test(bucket__bounds__octaves_cut_in_equal_parts),
		cmocka_unit_test(log2__every_bit__as_clz),
		cmocka_unit_test(from_sorted__random__matches_brute_force),
		cmocka_unit_test(from_sorted__empty__no_bucket),
		cmocka_unit_test(summarize__stddev__textbook_example),
		cmocka_unit_test(summarize__stddev__one_sample_is_zero),
		cmocka_unit_test(summarize__stddev__large_offset_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
