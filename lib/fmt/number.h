/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latencies as people read them, by one rule for every output: a latency
 * is a whole number of nanoseconds (a mean or a standard deviation is
 * rounded half away from zero first, by ntp_report__round_ns, as the JSON
 * gives it), shown in microseconds with a fixed number of decimals, rounded
 * half away from zero on its exact decimal digits: 49555 ns is 49.56 us, never 49.55 for the binary
 * fraction 49.555 is nearest to.
 */
#ifndef NTP_NUMBER_H
#define NTP_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* ns in us with decimals digits (0 to 3) into buf; never "-0.00" */
void ntp_num__us(char *buf, size_t len, int64_t ns, int decimals);
/*
 * ns in a unit of per_unit ns (1, 10, ..., 10^9) with every digit, so
 * exact: 65536 ns in us (1000) is "65.536", in ms "0.065536"
 */
void ntp_num__exact(char *buf, size_t len, int64_t ns, int64_t per_unit);

#endif
