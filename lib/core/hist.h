/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A latency histogram of log2 buckets, biolatency's view, computed exactly
 * from sorted samples (no estimate: every sample is counted in its bucket).
 *
 * Bucket 0 holds the samples below 1 ns: 0, and the negative values a joined
 * stage can take within the clock estimate's tolerance.  Bucket k >= 1 holds
 * [2^(k-1), 2^k - 1] ns, so bucket 11 is 1024..2047 ns and bucket 63 ends at
 * INT64_MAX.  Bounds are inclusive integers, as the text prints them
 * ("1024 -> 2047"), which needs no value past INT64_MAX for the last bucket.
 *
 * log2 rather than fio's log-linear buckets: the report already has exact
 * percentiles, so the histogram is for the shape of a distribution (one mode
 * or two, a tail), and doubling buckets show that in a dozen lines a stage.
 */
#ifndef NTP_HIST_H
#define NTP_HIST_H

#include <stddef.h>
#include <stdint.h>

#define NTP_HIST_BUCKETS 64

struct ntp_hist {
	uint64_t count[NTP_HIST_BUCKETS];
	int lo, hi;               /* the first and last non-empty bucket; lo > hi when empty */
};

/* the bucket of v */
int ntp_hist__bucket(int64_t v);
/* bucket k's smallest and largest value (inclusive); bucket 0: INT64_MIN .. 0 */
int64_t ntp_hist__lo(int k);
int64_t ntp_hist__hi(int k);
/* counts the n sorted values v[] into h */
void ntp_hist__from_sorted(struct ntp_hist *h, const int64_t *v, size_t n);

#endif
