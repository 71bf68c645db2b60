// SPDX-License-Identifier: GPL-2.0
/*
 * log2 latency histograms (lib/core/hist.h).  The samples are sorted
 * already (lib/core/stats.c sorts them for the percentiles), so each
 * bucket's count is where its upper bound falls in them: 64 binary searches,
 * however many samples there are, instead of a pass over all of them.
 */
#include <string.h>

#include "lib/core/hist.h"

int ntp_hist__bucket(int64_t v)
{
	if (v < 1)
		return 0;
	/* v in [2^(k-1), 2^k): k - 1 is the index of its highest bit */
	return 64 - __builtin_clzll((uint64_t)v);
}

int64_t ntp_hist__lo(int k)
{
	if (k <= 0)
		return INT64_MIN;
	return (int64_t)(1ULL << (k - 1));
}

int64_t ntp_hist__hi(int k)
{
	if (k <= 0)
		return 0;
	if (k >= NTP_HIST_BUCKETS - 1)
		return INT64_MAX;
	return (int64_t)((1ULL << k) - 1);
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

void ntp_hist__from_sorted(struct ntp_hist *h, const int64_t *v, size_t n)
{
	size_t at = 0;

	memset(h, 0, sizeof(*h));
	h->lo = 1;
	h->hi = 0;
	if (!n)
		return;
	h->lo = ntp_hist__bucket(v[0]);
	h->hi = ntp_hist__bucket(v[n - 1]);
	for (int k = h->lo; k <= h->hi; k++) {
		size_t end = k == h->hi ? n : upper_bound(v, at, n, ntp_hist__hi(k));

		h->count[k] = end - at;
		at = end;
	}
}
