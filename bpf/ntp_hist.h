/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency histogram's buckets (ntprof-design(7), HISTOGRAMS), shared
 * by user space (report's --histogram) and the BPF side, as the sampling
 * hash is, so that whatever counts latencies counts them into the same
 * buckets.  Log-linear, as fio's and HdrHistogram's: each octave [2^m,
 * 2^(m+1)) of nanoseconds is cut into 2^s equal buckets, s the
 * sub-bucket bits, so a bucket is at most 1/2^s of its lower bound wide
 * whatever the latency.  s = 0 is the log2 histogram of biolatency; the
 * finest, NTP_HIST_SUB_BITS, is what is counted, and a coarser s is the
 * same buckets merged by 2^(NTP_HIST_SUB_BITS - s): the bounds of a coarse
 * bucket are bounds of fine ones.
 *
 * Bucket 0 holds every value below 1 ns (0, and the negative values a
 * joined stage can take within the clock estimate's tolerance); the values
 * 1 to 2^s - 1 have a bucket each; from 2^s on, value v with highest bit m
 * is in bucket (m - s + 1) 2^s + the s bits below its highest.  Bounds are
 * inclusive integers; the last bucket ends at the largest positive 64-bit
 * value.
 *
 * Loop-free, with no count-leading-zeros instruction (BPF has none): the
 * verifier takes it in any program.
 */
#ifndef NTP_HIST_BUCKETS_H
#define NTP_HIST_BUCKETS_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* buckets an octave: 8, each at most 12.5% of its lower bound wide */
#define NTP_HIST_SUB_BITS 3
/* the buckets of s sub-bucket bits: every positive 64-bit value (highest bit 62) */
#define NTP_HIST_NBUCKETS(s) ((62 - (s) + 2) << (s))

/* the index of v's highest set bit; v > 0 */
static __always_inline int ntp_hist_log2(__u64 v)
{
	int m = 0;

	if (v >> 32) {
		v >>= 32;
		m += 32;
	}
	if (v >> 16) {
		v >>= 16;
		m += 16;
	}
	if (v >> 8) {
		v >>= 8;
		m += 8;
	}
	if (v >> 4) {
		v >>= 4;
		m += 4;
	}
	if (v >> 2) {
		v >>= 2;
		m += 2;
	}
	if (v >> 1)
		m += 1;
	return m;
}

/* the bucket of the latency v (ns; below 1: bucket 0) at s sub-bucket bits */
static __always_inline int ntp_hist_bucket(__s64 v, int s)
{
	int m;

	if (v < (1LL << s))
		return v < 1 ? 0 : (int)v;
	m = ntp_hist_log2((__u64)v);
	return ((m - s + 1) << s) + (int)(((__u64)v >> (m - s)) & ((1ULL << s) - 1));
}

/* bucket k's smallest value (k >= 1) at s sub-bucket bits */
static __always_inline __s64 ntp_hist_bucket_lo(int k, int s)
{
	int m;

	if (k < (1 << s))
		return k;
	m = (k >> s) + s - 1;
	return (__s64)((((__u64)1 << s) + (__u64)(k & ((1 << s) - 1))) << (m - s));
}

/* bucket k's largest value (k >= 0) at s sub-bucket bits */
static __always_inline __s64 ntp_hist_bucket_hi(int k, int s)
{
	if (k < 1)
		return 0;
	if (k + 1 >= NTP_HIST_NBUCKETS(s))
		return (__s64)(~0ULL >> 1);
	return ntp_hist_bucket_lo(k + 1, s) - 1;
}

#endif
