/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A latency histogram, computed exactly from sorted samples (every sample
 * counted in its bucket, no estimate), in the buckets bpf/ntp_hist.h
 * defines for every part of ntprof: log-linear, counted at the finest
 * resolution (NTP_HIST_SUB_BITS: 8 buckets an octave) and read at any
 * coarser one (4, 2 or 1 an octave, the last biolatency's log2 buckets),
 * whose buckets are the fine ones merged.  The report has exact
 * percentiles; the histogram is for the shape of a distribution: one mode
 * or two, a tail.
 *
 * Only the range from the first non-empty fine bucket to the last is
 * kept: a summary's histogram costs what its spread needs.
 */
#ifndef NTP_HIST_H
#define NTP_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>        /* __u64, __s64 for bpf/ntp_hist.h */

#include "bpf/ntp_hist.h"

struct ntp_hist {
	int lo, hi;               /* the first and last non-empty fine bucket; lo > hi: empty */
	uint64_t *count;          /* count[k - lo] of fine bucket k in [lo, hi] */
};

/* the bucket of v at s sub-bucket bits (0 to NTP_HIST_SUB_BITS) */
int ntp_hist__bucket(int64_t v, int s);
/* bucket k's smallest and largest value at s bits (inclusive); bucket 0: INT64_MIN .. 0 */
int64_t ntp_hist__lo(int k, int s);
int64_t ntp_hist__hi(int k, int s);
/* counts the n sorted values v[] into h; 0 or -ENOMEM (h empty) */
int ntp_hist__from_sorted(struct ntp_hist *h, const int64_t *v, size_t n);
void ntp_hist__free(struct ntp_hist *h);
/* the first and last non-empty bucket at s bits; lo > hi when h is empty */
void ntp_hist__range(const struct ntp_hist *h, int s, int *lo, int *hi);
/* the commands in bucket k at s bits: the fine buckets it merges */
uint64_t ntp_hist__count(const struct ntp_hist *h, int k, int s);

#endif
