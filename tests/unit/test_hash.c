// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling hash (bpf/ntp_hash.h, version 3): host and target must pick
 * the very same commands, on any machine and compiler, so its values are
 * pinned by known answers, and its sampled fraction must be what -s
 * promises, for random commands and for the structured streams of a real
 * queue.
 *
 * Where the known answers come from: an independent Python implementation,
 * written from the definition in bpf/ntp_hash.h (not from this C code), run
 * once with python3:
 *
 *   M = (1 << 64) - 1
 *   K1, K2 = 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9
 *   def h(cid, slba, nlb0):
 *       return ((slba ^ (((cid | (nlb0 << 16)) * K1) & M)) * K2) & M
 *   def limit(n):
 *       return M if n <= 1 else M // n
 *   print(hex(h(0x1234, 0x1000, 7)))   # and so on for each row below
 *
 * The multipliers are published constants: K1 is 2^64 divided by the
 * golden ratio, K2 splitmix64's first multiplier.
 *
 * A change of any value here is a change of which commands are sampled:
 * bump NTP_HASH_VERSION and regenerate the table with the snippet above.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <cmocka.h>

#include "bpf/ntp_hash.h"

static const struct {
	__u16 cid;
	__u64 slba;
	__u16 nlb0;
	__u64 hash;
} kat[] = {
	{ 0x0000, 0x0000000000000000ULL, 0x0000, 0x0000000000000000ULL },
	{ 0x0001, 0x0000000000000000ULL, 0x0000, 0xd67411c46c86742dULL },
	{ 0x0000, 0x0000000000000001ULL, 0x0000, 0xbf58476d1ce4e5b9ULL },
	{ 0x0000, 0x0000000000000000ULL, 0x0001, 0x11c46c86742d0000ULL },
	{ 0x1234, 0x0000000000001000ULL, 0x0007, 0xb9a93502fb115324ULL },
	{ 0xffff, 0xffffffffffffffffULL, 0xffff, 0xaa95562a4fa18e74ULL },
	{ 0x002a, 0x00000000075bcd15ULL, 0x0000, 0x95608756123dd36fULL },
	{ 0x0007, 0x00000000007a1218ULL, 0x00ff, 0x549e83b859ca0173ULL },
	{ 0x8000, 0x0123456789abcdefULL, 0x001f, 0xf59ccd189a991cb7ULL },
	{ 0x0fff, 0x000000001d1a94a2ULL, 0x000f, 0xb305b35f1b8ed0c1ULL },
};

static void hash__version__3(void **state)
{
	/*
	 * the known answers are version 3's; version 2 hashed the command id
	 * and the LBA only, version 1 was splitmix64 twice and a modulo
	 */
	assert_int_equal(NTP_HASH_VERSION, 3);
	assert_int_equal(NTP_HASH_K1, 0x9e3779b97f4a7c15ULL);
	assert_int_equal(NTP_HASH_K2, 0xbf58476d1ce4e5b9ULL);
}

static void cmd_hash__known_answers__match(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		__u64 h = ntp_cmd_hash(kat[i].cid, kat[i].slba, kat[i].nlb0);

		if (h != kat[i].hash)
			fail_msg("ntp_cmd_hash(0x%x, 0x%llx, 0x%x) = 0x%016llx, want 0x%016llx",
				 kat[i].cid, (unsigned long long)kat[i].slba, kat[i].nlb0,
				 (unsigned long long)h, (unsigned long long)kat[i].hash);
	}
}

static void hash_limit__known_answers__match(void **state)
{
	assert_int_equal(ntp_hash_limit(0), ~0ULL);
	assert_int_equal(ntp_hash_limit(1), ~0ULL);
	assert_int_equal(ntp_hash_limit(2), 0x7fffffffffffffffULL);
	assert_int_equal(ntp_hash_limit(100), 0x028f5c28f5c28f5cULL);
	assert_int_equal(ntp_hash_limit(1000), 0x004189374bc6a7efULL);
	assert_int_equal(ntp_hash_limit(1024), 0x003fffffffffffffULL);
	assert_int_equal(ntp_hash_limit(0xffffffffU), 0x0000000100000001ULL);
}

static void hash_sampled__one_in_0_or_1__everything(void **state)
{
	__u64 h;

	for (h = 0; h < 1000; h++) {
		assert_true(ntp_hash_sampled(h * NTP_HASH_K2, ntp_hash_limit(0)));
		assert_true(ntp_hash_sampled(h * NTP_HASH_K2, ntp_hash_limit(1)));
	}
	assert_true(ntp_hash_sampled(~0ULL, ntp_hash_limit(1)));
}

/* at 1 in 2^k, exactly the hashes whose top k bits are zero */
static void hash_sampled__power_of_two__top_bits_zero(void **state)
{
	__u64 lim = ntp_hash_limit(1024);

	assert_true(ntp_hash_sampled(0, lim));
	assert_true(ntp_hash_sampled((1ULL << 54) - 1, lim));
	assert_false(ntp_hash_sampled(1ULL << 54, lim));
	assert_false(ntp_hash_sampled(~0ULL, lim));
}

/* xorshift64*: a fixed-seed source that is not the hash under test */
static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * `sampled` of `n` draws at one_in: fail unless within 5 standard
 * deviations of the binomial mean (a false alarm once in ~3.5 million runs,
 * and the inputs here are fixed, so the result is reproducible anyway).
 */
static void check_fraction(const char *what, unsigned long sampled, unsigned long n,
			   unsigned int one_in)
{
	double p = 1.0 / one_in, mean = n * p, sd = sqrt(n * p * (1 - p));

	if (fabs(sampled - mean) > 5 * sd)
		fail_msg("%s: %lu of %lu sampled at 1/%u, want %.0f +- %.0f",
			 what, sampled, n, one_in, mean, 5 * sd);
}

static int sampled(__u16 cid, __u64 slba, __u16 nlb0, unsigned int one_in)
{
	return ntp_hash_sampled(ntp_cmd_hash(cid, slba, nlb0), ntp_hash_limit(one_in));
}

static void hash_sampled__random_commands_at_100_and_1000__binomial(void **state)
{
	const unsigned long n = 2000000;
	unsigned long i, at100 = 0, at1000 = 0;
	__u64 s = 0x1234567887654321ULL;

	for (i = 0; i < n; i++) {
		__u64 r = rnd(&s), slba = rnd(&s) >> 20;

		at100 += sampled(r >> 48, slba, r & 0xff, 100);
		at1000 += sampled(r >> 48, slba, r & 0xff, 1000);
	}
	check_fraction("random commands", at100, n, 100);
	check_fraction("random commands", at1000, n, 1000);
}

/*
 * What a real queue sends: a sequential 4 KiB read stream (slba += 8,
 * nlb0 = 7) with command ids cycling through a 128-deep tag space, a
 * random 128 KiB write stream, one block read again and again with
 * Linux's command ids (a 4-bit generation counter above a 12-bit tag), and
 * one command id and LBA with every length.  Structured inputs must sample
 * as evenly.
 */
static void hash_sampled__sequential_and_random_io_at_100__binomial(void **state)
{
	const unsigned long n = 1000000;
	unsigned long i, seq = 0, rand_w = 0, reread = 0, lengths = 0;
	__u64 s = 42;

	for (i = 0; i < n; i++) {
		seq += sampled(i % 128, i * 8, 7, 100);
		rand_w += sampled(rnd(&s) & 0x7f, (rnd(&s) % (1ULL << 31)) & ~255ULL, 255, 100);
	}
	for (i = 0; i < 65536; i++)     /* every generation of every tag, once */
		reread += sampled(i, 123456, 0, 100);
	for (i = 0; i < 65536; i++)     /* every block count, one command id and LBA */
		lengths += sampled(17, 123456, i, 100);
	check_fraction("sequential 4k reads", seq, n, 100);
	check_fraction("random 128k writes", rand_w, n, 100);
	check_fraction("one block read again", reread, 65536, 100);
	check_fraction("every length of one command", lengths, 65536, 100);
}

/*
 * A mix of sizes, each size aligned to itself as file systems and
 * databases align them: each size is sampled at the rate asked, not only
 * their sum.
 */
static void hash_sampled__each_size_of_a_mix__binomial(void **state)
{
	static const unsigned int blocks[] = { 1, 8, 16, 32, 64, 256 };
	const unsigned long n = 300000;
	unsigned long i, k, got[6] = {};
	__u64 s = 7;

	for (i = 0; i < n; i++)
		for (k = 0; k < 6; k++)
			got[k] += sampled(rnd(&s) & 0x3ff, (rnd(&s) % (1ULL << 28)) / blocks[k] * blocks[k],
					  blocks[k] - 1, 100);
	for (k = 0; k < 6; k++)
		check_fraction("one size of a mix", got[k], n, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hash__version__3),
		cmocka_unit_test(cmd_hash__known_answers__match),
		cmocka_unit_test(hash_limit__known_answers__match),
		cmocka_unit_test(hash_sampled__one_in_0_or_1__everything),
		cmocka_unit_test(hash_sampled__power_of_two__top_bits_zero),
		cmocka_unit_test(hash_sampled__random_commands_at_100_and_1000__binomial),
		cmocka_unit_test(hash_sampled__sequential_and_random_io_at_100__binomial),
		cmocka_unit_test(hash_sampled__each_size_of_a_mix__binomial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
