/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' pseudo-random numbers: Marsaglia's xorshift64, the same
 * sequence on every run from the same seed, so a failure repeats.
 */
#ifndef NTP_TEST_XORSHIFT_H
#define NTP_TEST_XORSHIFT_H

#include <stdint.h>

#define XORSHIFT_SEED 88172645463325252ULL

static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
