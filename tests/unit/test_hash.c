// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling hash (bpf/ntp_hash.h): host and target must pick the very
 * same commands, on any machine and compiler, so its values are pinned by
 * known answers, and its sampled fraction must be what -s promises.
 *
 * Where the known answers come from: an independent Python implementation,
 * written from the definition in bpf/ntp_hash.h (not from this C code), run
 * once with python3:
 *
 *   M = (1 << 64) - 1
 *   def mix(z):
 *       z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
 *       z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
 *       return z ^ (z >> 31)
 *   def h(cid, slba, nlb0):
 *       return mix(slba ^ mix(((cid << 16) | nlb0) ^ 0x9e3779b97f4a7c15))
 *   print(hex(h(0x1234, 0x1000, 7)))   # and so on for each row below
 *
 * ntp_mix64 is also checked against splitmix64's published output for seed
 * 0 (0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f: the
 * finaliser of gamma, 2*gamma and 3*gamma), which owes nothing to either.
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
	{ 0x0000, 0x0000000000000000ULL, 0x0000, 0x48218226ff3cd4bfULL },
	{ 0x0001, 0x0000000000000000ULL, 0x0000, 0xc47404cb72ac03b0ULL },
	{ 0x0000, 0x0000000000000001ULL, 0x0000, 0x9e0160293a33aaf7ULL },
	{ 0x1234, 0x0000000000001000ULL, 0x0007, 0xfcf6e8547438f4e9ULL },
	{ 0xffff, 0xffffffffffffffffULL, 0xffff, 0x3db69760cb7f0dd2ULL },
	{ 0x002a, 0x00000000075bcd15ULL, 0x00ff, 0xfe0ead55c96beb0dULL },
	{ 0x0007, 0x00000000007a1218ULL, 0x001f, 0x9f3874a54562c57fULL },
	{ 0x8000, 0x0123456789abcdefULL, 0x007f, 0xa0d18cd369e2da53ULL },
	{ 0x0000, 0x0000000000000000ULL, 0x0001, 0x445018e305810b78ULL },
};

static void mix64__splitmix64_seed0__published_outputs(void **state)
{
	const __u64 gamma = 0x9e3779b97f4a7c15ULL;

	assert_int_equal(ntp_mix64(gamma), 0xe220a8397b1dcdafULL);
	assert_int_equal(ntp_mix64(2 * gamma), 0x6e789e6aa1b965f4ULL);
	assert_int_equal(ntp_mix64(3 * gamma), 0x06c45d188009454fULL);
	assert_int_equal(ntp_mix64(0), 0);
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

static void hash_sampled__one_in_0_or_1__everything(void **state)
{
	__u64 h;

	for (h = 0; h < 1000; h++) {
		assert_true(ntp_hash_sampled(ntp_mix64(h), 0));
		assert_true(ntp_hash_sampled(ntp_mix64(h), 1));
	}
	assert_true(ntp_hash_sampled(2000, 1000));
	assert_false(ntp_hash_sampled(2001, 1000));
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

static void hash_sampled__random_commands_at_100__binomial(void **state)
{
	const unsigned long n = 2000000;
	unsigned long i, sampled = 0;
	__u64 s = 0x1234567887654321ULL;

	for (i = 0; i < n; i++) {
		__u64 r = rnd(&s);

		sampled += ntp_hash_sampled(ntp_cmd_hash(r >> 48, rnd(&s) >> 20,
							 r & 0xff), 100);
	}
	check_fraction("random commands", sampled, n, 100);
}

/*
 * What a real queue sends: a sequential 4 KiB read stream (slba += 8,
 * nlb0 = 7) with command ids cycling through a 128-deep tag space, and a
 * random 128 KiB write stream.  Structured inputs must sample as evenly.
 */
static void hash_sampled__sequential_and_random_io_at_100__binomial(void **state)
{
	const unsigned long n = 1000000;
	unsigned long i, seq = 0, rand_w = 0;
	__u64 s = 42;

	for (i = 0; i < n; i++) {
		seq += ntp_hash_sampled(ntp_cmd_hash(i % 128, i * 8, 7), 100);
		rand_w += ntp_hash_sampled(ntp_cmd_hash(rnd(&s) & 0x7f,
							(rnd(&s) % (1ULL << 31)) & ~255ULL, 255), 100);
	}
	check_fraction("sequential 4k reads", seq, n, 100);
	check_fraction("random 128k writes", rand_w, n, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mix64__splitmix64_seed0__published_outputs),
		cmocka_unit_test(cmd_hash__known_answers__match),
		cmocka_unit_test(hash_sampled__one_in_0_or_1__everything),
		cmocka_unit_test(hash_sampled__random_commands_at_100__binomial),
		cmocka_unit_test(hash_sampled__sequential_and_random_io_at_100__binomial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
