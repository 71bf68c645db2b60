/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checked arithmetic on timestamps and latencies: a recording from anywhere
 * may hold any 64-bit value (ntprof-ntp(5), Untrusted recordings), and a
 * signed overflow is undefined in C.  A command whose arithmetic overflows
 * is an impossible command (lib/model/model_groups.h): each helper sets
 * *overflow instead of wrapping, and its result is then 0.
 */
#ifndef NTP_CHECKED_H
#define NTP_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline int64_t ntp_checked__sub(int64_t a, int64_t b, bool *overflow)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r)) {
		*overflow = true;
		return 0;
	}
	return r;
}

static inline int64_t ntp_checked__add(int64_t a, int64_t b, bool *overflow)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r)) {
		*overflow = true;
		return 0;
	}
	return r;
}

/* a - b as a double: exact when it fits in 64 bits, else the nearest the doubles give */
static inline double ntp_checked__diff_d(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return (double)a - (double)b;
	return (double)r;
}

/* the distance from lo up to hi (hi >= lo), which always fits unsigned */
static inline uint64_t ntp_checked__span(int64_t lo, int64_t hi)
{
	return (uint64_t)hi - (uint64_t)lo;
}

#endif
