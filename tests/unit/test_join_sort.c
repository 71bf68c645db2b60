// SPDX-License-Identifier: GPL-2.0
/*
 * lib/join/join_load.c's key sort: (hash, idx) order whatever the hashes
 * (keys alike in their top byte, in their top 32 bits and in all 64, one
 * bucket holding most keys, empty buckets), against qsort.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/join/join_base.h"
#include "tests/unit/xorshift.h"

static uint64_t rnd_state = XORSHIFT_SEED;

static int cmp_ref(const void *pa, const void *pb)
{
	const struct ntp_jkey *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* keys 0..n-1 in idx order, hash(i) by the case; sorted and checked */
static void check(size_t n, uint64_t (*hash)(size_t i))
{
	struct ntp_jkey *ref = malloc((n ? n : 1) * sizeof(*ref));
	struct ntp_jkey *a = malloc((n ? n : 1) * sizeof(*a));
	struct ntp_jkey *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	uint64_t *h = malloc((n ? n : 1) * sizeof(*h));

	assert_non_null(ref);
	assert_non_null(a);
	assert_non_null(tmp);
	assert_non_null(h);
	for (size_t i = 0; i < n; i++)
		h[i] = hash(i);
	for (size_t i = 0; i < n; i++)
		ref[i] = (struct ntp_jkey){ .hash = h[i], .idx = (uint32_t)i, .occ = 7 };
	qsort(ref, n, sizeof(*ref), cmp_ref);
	for (size_t i = 0; i < n; i++)
		a[i] = (struct ntp_jkey){ .hash = h[i], .idx = (uint32_t)i, .occ = 7 };
	ntp_join__sort_keys(a, tmp, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(a[i].hash == ref[i].hash);
		assert_int_equal(a[i].idx, ref[i].idx);
		assert_int_equal(a[i].occ, 7);
	}
	free(ref);
	free(a);
	free(tmp);
	free(h);
}

static uint64_t random_hash(size_t i)
{
	(void)i;
	return xorshift64(&rnd_state);
}

/* 64 keys a top byte, all 256 bytes */
static uint64_t top_byte_shared(size_t i)
{
	return (uint64_t)(i % 256) << 56 | (xorshift64(&rnd_state) >> 8);
}

/* runs alike in the top 32 bits, their low halves in reverse order: the runs' own sort */
static uint64_t top_half_shared(size_t i)
{
	return (uint64_t)(i % 17) << 40 | (uint32_t)(1000000 - i);
}

/* few keys, each many times (a hot key): load order kept within each */
static uint64_t heavy_reuse(size_t i)
{
	static const uint64_t keys[3] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL,
					  0x0123456700000000ULL };

	return keys[i % 3];
}

/* nearly every key in one top byte: one radix bucket holds most keys */
static uint64_t one_bucket(size_t i)
{
	return i % 1000 ? (0x42ULL << 56 | (xorshift64(&rnd_state) >> 8)) : xorshift64(&rnd_state);
}

static void sort__random_hashes__hash_order(void **state)
{
	(void)state;
	check(100000, random_hash);
}

static void sort__shared_top_byte__hash_order(void **state)
{
	(void)state;
	check(50000, top_byte_shared);
}

static void sort__shared_top_half__low_half_sorted_too(void **state)
{
	(void)state;
	check(30000, top_half_shared);
}

static void sort__equal_hashes__load_order_kept(void **state)
{
	(void)state;
	check(30000, heavy_reuse);
}

static void sort__one_bucket_holds_most__hash_order(void **state)
{
	(void)state;
	check(40000, one_bucket);
}

static void sort__tiny__hash_order(void **state)
{
	(void)state;
	for (size_t n = 0; n < 5; n++)
		check(n, random_hash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sort__random_hashes__hash_order),
		cmocka_unit_test(sort__shared_top_byte__hash_order),
		cmocka_unit_test(sort__shared_top_half__low_half_sorted_too),
		cmocka_unit_test(sort__equal_hashes__load_order_kept),
		cmocka_unit_test(sort__one_bucket_holds_most__hash_order),
		cmocka_unit_test(sort__tiny__hash_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
