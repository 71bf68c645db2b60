// SPDX-License-Identifier: GPL-2.0
/*
 * Exact summary statistics of latency samples.
 *
 * Percentiles are exact (nearest rank on the sorted samples), not estimated
 * from a histogram: a report may hold tens of millions of samples, so the
 * sort is an LSD radix sort (linear time, passes over constant bytes are
 * skipped, so nanosecond latencies that fit in 5 bytes cost 5 passes).
 * The standard deviation takes a second pass, about the exact mean, so that
 * it does not lose its digits to the cancellation of a sum of squares.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/interval.h"
#include "lib/core/jobs.h"
#include "lib/core/stats.h"

/* the run's percentiles: set once, before any summary, by the command's options */
static double pct_p[NTP_PCT_MAX] = { NTP_PCT_DEFAULT };
static int pct_n = sizeof((double[]){ NTP_PCT_DEFAULT }) / sizeof(double);

void ntp_summary__set_percentiles(const double *p, int n)
{
	pct_n = n < NTP_PCT_MAX ? n : NTP_PCT_MAX;
	for (int i = 0; i < pct_n; i++)
		pct_p[i] = p[i];
}

int ntp_summary__npercentiles(void)
{
	return pct_n;
}

double ntp_summary__percentile(int i)
{
	return i >= 0 && i < pct_n ? pct_p[i] : 0;
}

/* below this, qsort beats the radix sort's fixed cost */
#define RADIX_MIN 512

void ntp_samples__init(struct ntp_samples *s)
{
	memset(s, 0, sizeof(*s));
	s->sorted = 1;
}

int ntp_samples__add(struct ntp_samples *s, int64_t v)
{
	if (s->n == s->cap) {
		/* small at first: a report may have a group per command (a crafted file) */
		size_t cap = s->cap ? s->cap * 2 : 4;
		int64_t *nv;

		if (cap < s->cap || cap > SIZE_MAX / sizeof(*nv))
			return -ENOMEM;
		nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	if (s->n && v < s->v[s->n - 1])
		s->sorted = 0;
	s->v[s->n++] = v;
	return 0;
}

int ntp_samples__append(struct ntp_samples *dst, struct ntp_samples *src)
{
	struct ntp_samples t;
	size_t both = dst->n + src->n;
	int64_t *nv;
	int sorted;

	/*
	 * Into the one with room for both (reserved for it: no new pages),
	 * else the smaller into the larger: their order is not a statistic.
	 */
	if (dst->cap < both && (src->cap >= both || src->n > dst->n)) {
		t = *dst;
		*dst = *src;
		*src = t;
	}
	if (!src->n) {
		ntp_samples__free(src);
		return 0;
	}
	sorted = dst->sorted && src->sorted && (!dst->n || dst->v[dst->n - 1] <= src->v[0]);
	if (dst->n + src->n > dst->cap) {
		if (dst->n + src->n > SIZE_MAX / sizeof(*nv))
			return -ENOMEM;
		nv = realloc(dst->v, (dst->n + src->n) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		dst->v = nv;
		dst->cap = dst->n + src->n;
	}
	memcpy(dst->v + dst->n, src->v, src->n * sizeof(*nv));
	dst->n += src->n;
	dst->sorted = sorted;
	ntp_samples__free(src);
	return 0;
}

void ntp_samples__reset(struct ntp_samples *s)
{
	s->n = 0;
	s->sorted = 1;
}

void ntp_samples__free(struct ntp_samples *s)
{
	free(s->v);
	ntp_samples__init(s);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* flipping the sign bit makes unsigned byte order equal signed order */
static inline uint64_t key(int64_t v)
{
	return (uint64_t)v ^ (1ULL << 63);
}

/*
 * A second buffer for the sorts of one thread, kept from one sort to the
 * next: a new one each time is pages the kernel must clear first, which
 * cost more than the sort's passes over memory already touched (ten
 * million samples a stage: 80 MB a sort).
 */
struct scratch {
	int64_t *v;
	size_t n;
};

/* returns 0, or -ENOMEM when there is no memory for the second buffer */
static int radix_sort(int64_t *v, size_t n, struct scratch *sc)
{
	size_t count[8][256];	/* 16 KiB: one histogram per byte */
	int64_t *tmp, *src = v, *dst, *swap;
	size_t i, b, sum;
	int pass;

	if (sc->n < n) {
		free(sc->v);
		sc->v = malloc(n * sizeof(*sc->v));
		sc->n = sc->v ? n : 0;
		if (!sc->v)
			return -ENOMEM;
	}
	tmp = sc->v;
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		uint64_t k = key(v[i]);

		for (pass = 0; pass < 8; pass++)
			count[pass][(k >> (pass * 8)) & 0xff]++;
	}

	dst = tmp;
	for (pass = 0; pass < 8; pass++) {
		size_t *c = count[pass];
		int shift = pass * 8;

		/* every sample has the same byte here: the pass changes nothing */
		if (c[(key(v[0]) >> shift) & 0xff] == n)
			continue;
		for (b = 0, sum = 0; b < 256; b++) {
			size_t t = c[b];

			c[b] = sum;
			sum += t;
		}
		for (i = 0; i < n; i++)
			dst[c[(key(src[i]) >> shift) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	return 0;
}

static void sort_with(struct ntp_samples *s, struct scratch *sc)
{
	if (s->sorted)
		return;
	if (s->n < RADIX_MIN || radix_sort(s->v, s->n, sc))
		qsort(s->v, s->n, sizeof(*s->v), cmp_i64);
	s->sorted = 1;
}

/* one sort with a buffer of its own */
static void sort(struct ntp_samples *s)
{
	struct scratch sc = { NULL, 0 };

	sort_with(s, &sc);
	free(sc.v);
}

/*
 * Nearest rank: the ceil(p/100 * n)-th smallest sample.  p is taken in
 * millionths of a percent and the rank computed in integers, so 99.9 of
 * 1000 samples is rank 999 exactly, with no floating-point rounding up.
 */
static size_t rank(double p, size_t n)
{
	unsigned __int128 ppm, r;

	if (!(p > 0))		/* also NaN */
		return 1;
	if (p >= 100)
		return n;
	ppm = (unsigned __int128)llround(p * 1e6);
	r = (ppm * n + 100000000 - 1) / 100000000;
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return (size_t)r;
}

int64_t ntp_samples__percentile(struct ntp_samples *s, double p)
{
	if (!s->n)
		return 0;
	sort(s);
	return s->v[rank(p, s->n) - 1];
}

/*
 * The k-th smallest (from 0) of v[0..n), v reordered: selection with a
 * three-way partition about the middle element; a range still wide after
 * 64 rounds (a crafted file's samples) is sorted instead, so the time is
 * linear, or n log n at worst.
 */
static int64_t select_kth(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;	/* k in [lo, hi) */

	for (int round = 0; hi - lo > 1; round++) {
		int64_t pivot = v[lo + (hi - lo) / 2], t;
		size_t lt = lo, i = lo, gt = hi;

		if (round == 64) {
			qsort(v + lo, hi - lo, sizeof(*v), cmp_i64);
			break;
		}
		/* v[lo..lt) < pivot, v[lt..i) == pivot, v[gt..hi) > pivot */
		while (i < gt) {
			if (v[i] < pivot) {
				t = v[lt];
				v[lt++] = v[i];
				v[i++] = t;
			} else if (v[i] > pivot) {
				t = v[--gt];
				v[gt] = v[i];
				v[i] = t;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

int64_t ntp_stats__percentile_of(const int64_t *v, size_t n, double p, int *err)
{
	int64_t *c, x;

	if (!n)
		return 0;
	c = malloc(n * sizeof(*c));
	if (!c) {
		*err = -ENOMEM;
		return 0;
	}
	memcpy(c, v, n * sizeof(*c));
	x = select_kth(c, n, rank(p, n) - 1);
	free(c);
	return x;
}

static void summarize(struct ntp_samples *s, struct ntp_summary *out, struct scratch *sc)
{
	__int128 sum = 0;
	long double sq = 0, m;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!s->n)
		return;
	sort_with(s, sc);
	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	out->n = s->n;
	out->min = s->v[0];
	out->max = s->v[s->n - 1];
	out->sum = (double)sum;
	out->mean = (double)sum / (double)s->n;
	for (i = 0; i < (size_t)pct_n; i++) {
		size_t lo, hi;

		out->pct[i] = s->v[rank(pct_p[i], s->n) - 1];
		ntp_interval__quantile_ranks(pct_p[i], s->n, &lo, &hi);
		out->p_lo[i] = s->v[lo - 1];
		out->p_hi[i] = s->v[hi - 1];
	}
	m = (long double)sum / (long double)s->n;
	for (i = 0; i < s->n; i++) {
		long double d = (long double)s->v[i] - m;

		sq += d * d;
	}
	out->stddev = s->n > 1 ? (double)sqrtl(sq / (long double)(s->n - 1)) : 0.0;
}

void ntp_samples__summarize(struct ntp_samples *s, struct ntp_summary *out)
{
	struct scratch sc = { NULL, 0 };

	summarize(s, out, &sc);
	free(sc.v);
}

/*
 * Kept only when a report shows them, and then only the buckets of the
 * samples' range, so that a recording of many groups costs no more than
 * its samples without them.
 */
int ntp_samples__histogram(struct ntp_samples *s, struct ntp_summary *out)
{
	out->hist = malloc(sizeof(*out->hist));
	if (!out->hist)
		return -ENOMEM;
	if (s->n)
		sort(s);
	if (ntp_hist__from_sorted(out->hist, s->n ? s->v : NULL, s->n)) {
		free(out->hist);
		out->hist = NULL;
		return -ENOMEM;
	}
	return 0;
}

void ntp_summary__free(struct ntp_summary *s)
{
	if (s->hist)
		ntp_hist__free(s->hist);
	free(s->hist);
	s->hist = NULL;
}

/* below this many samples in all, a second thread costs more than it saves */
#define SAMPLES_PER_THREAD 200000

struct summary_worker {
	struct ntp_summary_job *jobs;
	size_t n;
	atomic_size_t *next;
	bool histograms;
	int err;
};

/* the jobs come largest first: a worker's first sort makes its buffer as large as any it needs */
static void *summary_run(void *arg)
{
	struct summary_worker *w = arg;
	struct scratch sc = { NULL, 0 };
	size_t i;

	while ((i = atomic_fetch_add(w->next, 1)) < w->n) {
		summarize(w->jobs[i].s, w->jobs[i].out, &sc);
		if (w->histograms && ntp_samples__histogram(w->jobs[i].s, w->jobs[i].out))
			w->err = -ENOMEM;
	}
	free(sc.v);
	return NULL;
}

static int larger_first(const void *a, const void *b)
{
	size_t x = ((const struct ntp_summary_job *)a)->s->n;
	size_t y = ((const struct ntp_summary_job *)b)->s->n;

	return (x < y) - (x > y);
}

int ntp_samples__summarize_all(struct ntp_summary_job *jobs, size_t n, bool histograms)
{
	struct summary_worker w[NTP_JOBS_MAX];
	long cpus = ntp_jobs__threads();
	atomic_size_t next = 0;
	size_t total = 0;
	int nw, err = 0;

	for (size_t i = 0; i < n; i++)
		total += jobs[i].s->n;
	nw = (int)(total / SAMPLES_PER_THREAD);
	if (cpus > 0 && nw > cpus)
		nw = (int)cpus;
	if (nw > NTP_JOBS_MAX)
		nw = NTP_JOBS_MAX;
	if (nw < 1)
		nw = 1;
	/* the largest first: the last to start are the quick ones */
	if (n > 1)
		qsort(jobs, n, sizeof(*jobs), larger_first);
	for (int k = 0; k < nw; k++)
		w[k] = (struct summary_worker){ jobs, n, &next, histograms, 0 };
	ntp_jobs__run(summary_run, w, sizeof(*w), nw);
	for (int k = 0; k < nw; k++)
		err = err ? err : w[k].err;
	return err;
}
