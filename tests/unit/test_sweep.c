// SPDX-License-Identifier: GPL-2.0
/*
 * lib/join/join_sweep.c: the point most intervals share, its count and its
 * region, as a full sort of both ends and one sweep give them (the
 * estimate's grid had that before), on intervals of every shape: ties of
 * equal end points, one crowd among scattered ones, several crowds of one
 * size (the first wins), intervals of one point, ends far from their starts
 * (the region ends in another bucket), keys near 0 and near 2^64.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/join/join_sweep.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* the reference: both ends sorted, one sweep, the first start of the most */
static int64_t reference(const uint64_t *s0, const uint64_t *e0, size_t n, uint64_t *l, uint64_t *r)
{
	uint64_t *s = malloc(n * sizeof(*s)), *e = malloc(n * sizeof(*e));
	int64_t best = 0;
	size_t j = 0;

	memcpy(s, s0, n * sizeof(*s));
	memcpy(e, e0, n * sizeof(*e));
	qsort(s, n, sizeof(*s), cmp_u64);
	qsort(e, n, sizeof(*e), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		while (j < n && e[j] < s[i])
			j++;
		if ((int64_t)(i + 1 - j) > best) {
			best = (int64_t)(i + 1 - j);
			*l = s[i];
			*r = e[j];
		}
	}
	free(s);
	free(e);
	return best;
}

static uint64_t rnd(uint64_t *x)
{
	/* xorshift64* */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

enum shape { SCATTERED, CROWD, TIES, CROWDS, POINTS, FAR, EDGES };

static void fill(enum shape sh, uint64_t *seed, uint64_t *s, uint64_t *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t a, w;

		switch (sh) {
		case SCATTERED:
			a = rnd(seed) >> 1;
			w = rnd(seed) % 1000000;
			break;
		case CROWD:	/* a fifth near one point, the rest anywhere */
			a = i % 5 ? rnd(seed) >> 2 : (1ull << 61) + rnd(seed) % 5000;
			w = i % 5 ? rnd(seed) % 100000 : 4000 + rnd(seed) % 3000;
			break;
		case TIES:	/* few distinct values */
			a = 1000 + rnd(seed) % 8 * 10;
			w = rnd(seed) % 3 * 10;
			break;
		case CROWDS:	/* three crowds of one size far apart: the first wins */
			a = (i % 3 + 1) * (1ull << 50) + rnd(seed) % 100;
			w = 200;
			break;
		case POINTS:
			a = rnd(seed) % 64;
			w = 0;
			break;
		case FAR:	/* ends far from the starts: the region ends in another bucket */
			a = 1000 + rnd(seed) % 100;
			w = 1000000000000ull + rnd(seed) % 1000000;
			break;
		default:	/* the whole key range */
			a = i % 2 ? rnd(seed) % 1000 : UINT64_MAX - 1000 - rnd(seed) % 1000;
			w = rnd(seed) % 1000;
			break;
		}
		s[i] = a;
		e[i] = a + w;
	}
}

static void max_overlap__every_shape__the_full_sweeps(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 17, 255, 4096, 4097, 20000, 65536 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int sh = SCATTERED; sh <= EDGES; sh++) {
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z];
			uint64_t *s = malloc(n * sizeof(*s)), *e = malloc(n * sizeof(*e));
			uint64_t l = 0, r = 0, wl = 0, wr = 0;
			struct ntp_jsweep sw;
			int64_t want, got;

			fill(sh, &seed, s, e, n);
			want = reference(s, e, n, &wl, &wr);
			assert_int_equal(ntp_jsweep__init(&sw, n), 0);
			memcpy(sw.starts, s, n * sizeof(*s));
			memcpy(sw.ends, e, n * sizeof(*e));
			got = ntp_jsweep__max_overlap(&sw, n, &l, &r);
			assert_int_equal(got, want);
			assert_int_equal(l, wl);
			assert_int_equal(r, wr);
			ntp_jsweep__free(&sw);
			free(s);
			free(e);
		}
	}
}

static void max_overlap__none__zero(void **state)
{
	struct ntp_jsweep sw;
	uint64_t l = 7, r = 7;

	(void)state;
	assert_int_equal(ntp_jsweep__init(&sw, 0), 0);
	assert_int_equal(ntp_jsweep__max_overlap(&sw, 0, &l, &r), 0);
	assert_int_equal(l, 7);
	assert_int_equal(r, 7);
	ntp_jsweep__free(&sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(max_overlap__every_shape__the_full_sweeps),
		cmocka_unit_test(max_overlap__none__zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
