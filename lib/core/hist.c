// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histograms (lib/core/hist.h).  The samples are sorted already
 * (lib/core/stats.c sorts them for the percentiles), so each fine bucket's
 * count is where its upper bound falls in them: one binary search a bucket
 * of the samples' range, however many samples there are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/hist.h"

int ntp_hist__bucket(int64_t v, int s)
{
	return ntp_hist_bucket(v, s);
}

int64_t ntp_hist__lo(int k, int s)
{
	return k <= 0 ? INT64_MIN : ntp_hist_bucket_lo(k, s);
}

int64_t ntp_hist__hi(int k, int s)
{
	return ntp_hist_bucket_hi(k, s);
}

/* the index of the first of v[from..n) greater than x (v sorted) */
static size_t upper_bound(const int64_t *v, size_t from, size_t n, int64_t x)
{
	size_t lo = from, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ntp_hist__from_sorted(struct ntp_hist *h, const int64_t *v, size_t n)
{
	const int s = NTP_HIST_SUB_BITS;
	size_t at = 0;

	memset(h, 0, sizeof(*h));
	h->lo = 1;
	if (!n)
		return 0;
	h->lo = ntp_hist__bucket(v[0], s);
	h->hi = ntp_hist__bucket(v[n - 1], s);
	h->count = calloc((size_t)(h->hi - h->lo + 1), sizeof(*h->count));
	if (!h->count) {
		h->lo = 1;
		h->hi = 0;
		return -ENOMEM;
	}
	for (int k = h->lo; k <= h->hi; k++) {
		size_t end = k == h->hi ? n : upper_bound(v, at, n, ntp_hist__hi(k, s));

		h->count[k - h->lo] = end - at;
		at = end;
	}
	return 0;
}

void ntp_hist__free(struct ntp_hist *h)
{
	free(h->count);
	h->count = NULL;
	h->lo = 1;
	h->hi = 0;
}

/* the coarse bucket at s bits that fine bucket k is part of */
static int coarse(int k, int s)
{
	return k < 1 ? 0 : ntp_hist__bucket(ntp_hist__lo(k, NTP_HIST_SUB_BITS), s);
}

void ntp_hist__range(const struct ntp_hist *h, int s, int *lo, int *hi)
{
	if (h->lo > h->hi) {
		*lo = 1;
		*hi = 0;
		return;
	}
	*lo = coarse(h->lo, s);
	*hi = coarse(h->hi, s);
}

uint64_t ntp_hist__count(const struct ntp_hist *h, int k, int s)
{
	uint64_t c = 0;
	int first, last;

	if (h->lo > h->hi)
		return 0;
	/* the fine buckets from k's lower bound to its upper one */
	first = k < 1 ? 0 : ntp_hist__bucket(ntp_hist__lo(k, s), NTP_HIST_SUB_BITS);
	last = ntp_hist__bucket(ntp_hist__hi(k, s), NTP_HIST_SUB_BITS);
	if (first < h->lo)
		first = h->lo;
	if (last > h->hi)
		last = h->hi;
	for (int f = first; f <= last; f++)
		c += h->count[f - h->lo];
	return c;
}
