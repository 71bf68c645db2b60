// SPDX-License-Identifier: GPL-2.0
/*
 * Estimating the clock offset o(t) = target clock - host clock, and its
 * linear drift, from candidate pairs (lib/join/join.h).
 *
 * Each candidate pair allows o(t) in [lo, hi] at host time t.  True pairs
 * all contain the true line; false pairs (same key, another occurrence)
 * scatter their intervals milliseconds to hours away.  So the estimate is the
 * line that the most intervals contain - a consensus, not a mean, so a few
 * (or many) false pairs cannot pull it:
 *
 * 1. Coarse to fine over the drift b: for each b of a 21-point grid, shift
 *    every interval by -b (t - t0), widen it by the worst error the grid
 *    step can cause, and sweep the interval end points to find the offset
 *    the most intervals share.  The best b seeds a grid 5 times finer,
 *    until the widening is below GRID_FINE_NS; intervals too far from the
 *    consensus to reach it on the finer grid are dropped on the way, and
 *    the first grid looks at a stride sample of at most GRID_MAX_IV.
 * 2. The agreeing set S (intervals containing the consensus point) then
 *    fixes the line exactly: gap(b) = max(lo - b dt) - min(hi - b dt) over S
 *    is convex in b; a ternary search minimises it, the drift nearest 0
 *    that keeps S feasible is taken (least_drift), and a sits in the middle
 *    of [max lo, min hi].  With only true pairs in S the gap is negative
 *    (the set is feasible) and the line misses none of them.  S is then
 *    recomputed with the resulting tolerance and the fit repeated once.
 *
 * Everything is computed relative to an integer base offset and t0 so that
 * doubles stay exact for monotonic clocks of machines up for months.
 *
 * Where both sides have one clock there is nothing to estimate:
 * ntp_join__fit_zero() gives the line o(t) = 0 and how many intervals hold it.
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/join/join.h"

#define GRID_HALF 10		/* grid points each side of the centre */
#define GRID_SHRINK 5.0		/* each level's step is the last one's / 5 */
#define GRID_FINE_NS 50.0	/* stop when the grid's error is below this */
#define GRID_MAX_IV 65536	/* intervals the grid looks at (a stride sample) */
#define TERNARY_ROUNDS 100
#define PRUNE_W 5		/* keep intervals this many widenings from the consensus */

/* relative interval: lo/hi - base, t - t0 */
struct riv {
	double dt, lo, hi;
};

/* a double as an unsigned key with the same order */
static uint64_t dkey(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | 1ull << 63;
}

static double dval(uint64_t u)
{
	double x;

	u = u >> 63 ? u & ~(1ull << 63) : ~u;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* LSD radix sort, 11-bit digits: the sweeps sort most of the time */
static void radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	size_t cnt[2048], i;
	unsigned int shift;
	uint64_t *t;

	for (shift = 0; shift < 64; shift += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(a[i] >> shift) & 2047]++;
		for (i = 0; i < 2048; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[(a[i] >> shift) & 2047]++] = a[i];
		t = a;
		a = tmp;
		tmp = t;
	}
	/* six passes: the sorted keys are back in the caller's a */
}

struct sweep_buf {
	uint64_t *starts, *ends, *tmp;
};

/*
 * The offset most of iv[0..n) share at drift b, each interval widened by w:
 * returns that count, and the region [*L, *R] where it holds.  Closed
 * intervals: an end equal to a start still overlaps it.
 */
static int64_t sweep(const struct riv *iv, size_t n, double b, double w,
		     const struct sweep_buf *sb, double *L, double *R)
{
	size_t i, j = 0;
	int64_t best = 0;

	for (i = 0; i < n; i++) {
		double s = b * iv[i].dt;

		sb->starts[i] = dkey(iv[i].lo - s - w);
		sb->ends[i] = dkey(iv[i].hi - s + w);
	}
	radix_sort(sb->starts, sb->tmp, n);
	radix_sort(sb->ends, sb->tmp, n);
	*L = *R = 0;
	for (i = 0; i < n; i++) {
		while (j < n && sb->ends[j] < sb->starts[i])
			j++;
		/* starts[0..i] began, ends[0..j) are over */
		if ((int64_t)(i + 1 - j) > best) {
			best = i + 1 - j;
			*L = dval(sb->starts[i]);
			*R = dval(sb->ends[j]);	/* this interval's own end is >= its start */
		}
	}
	return best;
}

/* gap(b) over the members of S: max(lo - b dt) - min(hi - b dt) */
static double gap(const struct riv *iv, size_t n, const unsigned char *in, double b,
		  double *maxlo, double *minhi)
{
	double l = -INFINITY, h = INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!in[i])
			continue;
		l = fmax(l, iv[i].lo - b * iv[i].dt);
		h = fmin(h, iv[i].hi - b * iv[i].dt);
	}
	if (maxlo)
		*maxlo = l;
	if (minhi)
		*minhi = h;
	return l - h;
}

/* the b in [b0, b1] minimising gap() over S (gap is convex in b) */
static double best_drift(const struct riv *iv, size_t n, const unsigned char *in,
			 double b0, double b1)
{
	int r;

	for (r = 0; r < TERNARY_ROUNDS && b1 - b0 > 1e-15; r++) {
		double m1 = b0 + (b1 - b0) / 3, m2 = b1 - (b1 - b0) / 3;

		if (gap(iv, n, in, m1, NULL, NULL) <= gap(iv, n, in, m2, NULL, NULL))
			b1 = m2;
		else
			b0 = m1;
	}
	return (b0 + b1) / 2;
}

/*
 * Among the drifts that keep S feasible (gap <= 0), the one nearest 0.  A
 * short run, or intervals wide next to what drift can move in it, does not
 * determine the drift; the widest band (best_drift) then sits at an
 * arbitrary end of the range, and a report would show e.g. -499.9 ppm.  As
 * NTP does without evidence, assume no drift beyond what the data demand.
 */
static double least_drift(const struct riv *iv, size_t n, const unsigned char *in, double b)
{
	double lo = 0, hi = b;
	int r;

	if (gap(iv, n, in, b, NULL, NULL) > 0)
		return b;	/* not feasible anywhere: keep the best fit */
	if (gap(iv, n, in, 0, NULL, NULL) <= 0)
		return 0;
	/* bisect between 0 (infeasible) and b (feasible): gap is convex */
	for (r = 0; r < TERNARY_ROUNDS && fabs(hi - lo) > 1e-15; r++) {
		double mid = (lo + hi) / 2;

		if (gap(iv, n, in, mid, NULL, NULL) <= 0)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* mark the intervals the line a + b dt misses by at most tol; returns how many */
static int64_t mark(const struct riv *iv, size_t n, double a, double b, double tol,
		    unsigned char *in)
{
	int64_t k = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double o = a + b * iv[i].dt;

		in[i] = iv[i].lo - tol <= o && o <= iv[i].hi + tol;
		k += in[i];
	}
	return k;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* median hi - lo over the members of S; scratch holds n doubles */
static double median_width(const struct riv *iv, size_t n, const unsigned char *in, double *w)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (in[i])
			w[m++] = iv[i].hi - iv[i].lo;
	if (!m)
		return 0;
	qsort(w, m, sizeof(*w), cmp_double);
	return w[m / 2];
}

int ntp_join__estimate(const struct ntp_join_iv *src, size_t n, double max_drift,
		       int64_t slack_ns, struct ntp_join_fit *fit)
{
	double half = 0, step, centre = 0, w, bbest = 0, L = 0, R = 0, a, b, lo, hi;
	struct riv *iv = NULL, *wk = NULL;
	struct sweep_buf sb = { NULL, NULL, NULL };
	double *scratch = NULL;
	unsigned char *in = NULL;
	int64_t tmin, tmax, k, prev;
	size_t i, m, nw, stride;
	int pass, err = -ENOMEM;

	memset(fit, 0, sizeof(*fit));
	if (!n)
		return -ENOENT;
	if (max_drift < 0)
		max_drift = 0;

	tmin = tmax = src[0].t;
	for (i = 1; i < n; i++) {
		if (src[i].t < tmin)
			tmin = src[i].t;
		if (src[i].t > tmax)
			tmax = src[i].t;
	}
	fit->t0 = tmin + (tmax - tmin) / 2;
	fit->base = src[0].lo;

	iv = malloc(n * sizeof(*iv));
	wk = malloc(n * sizeof(*wk));
	in = malloc(n);
	stride = (n + GRID_MAX_IV - 1) / GRID_MAX_IV;
	m = (n + stride - 1) / stride;
	sb.starts = malloc(m * sizeof(uint64_t));
	sb.ends = malloc(m * sizeof(uint64_t));
	sb.tmp = malloc(m * sizeof(uint64_t));
	scratch = malloc(n * sizeof(double));
	if (!iv || !wk || !in || !sb.starts || !sb.ends || !sb.tmp || !scratch)
		goto out;
	/* an interval with lo > hi allows no offset at all: no pair */
	for (i = 0, m = 0; i < n; i++) {
		if (src[i].lo > src[i].hi)
			continue;
		iv[m].dt = (double)(src[i].t - fit->t0);
		iv[m].lo = (double)(src[i].lo - fit->base);
		iv[m].hi = (double)(src[i].hi - fit->base);
		half = fmax(half, fabs(iv[m].dt));
		m++;
	}
	n = m;
	if (!n) {
		err = -ENOENT;
		goto out;
	}

	/* 1. coarse to fine over the drift, on a stride sample */
	for (i = 0, nw = 0; i < n; i += stride)
		wk[nw++] = iv[i];
	step = max_drift / GRID_HALF;
	for (;;) {
		int64_t best = -1;
		double bw = INFINITY;
		int g;

		/* the grid point nearest the truth misses it by <= step/2 * half */
		w = step / 2 * half + 1;
		for (g = -GRID_HALF; g <= GRID_HALF; g++) {
			double bb = centre + g * step, l, r;
			int64_t c;

			if (fabs(bb) > max_drift * (1 + 1e-9))
				continue;
			c = sweep(wk, nw, bb, w, &sb, &l, &r);
			/* most intervals; then the tightest agreement */
			if (c > best || (c == best && r - l < bw)) {
				best = c;
				bw = r - l;
				bbest = bb;
				L = l;
				R = r;
			}
		}
		centre = bbest;
		if (w <= GRID_FINE_NS || step == 0 || half == 0)
			break;
		/*
		 * The next grid moves the line by at most 2 steps * half = 4 w:
		 * intervals further from the consensus cannot join it.
		 */
		for (i = 0, m = 0; i < nw; i++) {
			double s = bbest * wk[i].dt;

			if (wk[i].lo - s - PRUNE_W * w <= R && wk[i].hi - s + PRUNE_W * w >= L)
				wk[m++] = wk[i];
		}
		nw = m;
		step /= GRID_SHRINK;
	}

	/* 2. the agreeing set fixes the line; refit once with its tolerance */
	a = (L + R) / 2;
	b = bbest;
	k = mark(iv, n, a, b, w, in);
	prev = -1;
	for (pass = 0; pass < 2 && k != prev; pass++) {
		double span = fmax(step * GRID_SHRINK, 1e-12);

		b = best_drift(iv, n, in, fmax(-max_drift, b - span), fmin(max_drift, b + span));
		b = least_drift(iv, n, in, b);
		gap(iv, n, in, b, &lo, &hi);
		a = (lo + hi) / 2;
		fit->tol = (double)slack_ns + fmax(0, (lo - hi) / 2);
		prev = k;
		k = mark(iv, n, a, b, fit->tol, in);
	}
	fit->a = a;
	fit->b = b;
	fit->support = k;
	fit->spread = median_width(iv, n, in, scratch);
	err = 0;
out:
	free(iv);
	free(wk);
	free(in);
	free(sb.starts);
	free(sb.ends);
	free(sb.tmp);
	free(scratch);
	return err;
}

int ntp_join__fit_zero(const struct ntp_join_iv *src, size_t n, int64_t slack_ns,
		       struct ntp_join_fit *fit)
{
	struct riv *iv = NULL;
	double *scratch = NULL;
	unsigned char *in = NULL;
	int64_t tmin, tmax;
	size_t i, m;
	int err = -ENOMEM;

	memset(fit, 0, sizeof(*fit));
	fit->tol = (double)slack_ns;
	if (!n)
		return 0;
	tmin = tmax = src[0].t;
	for (i = 1; i < n; i++) {
		if (src[i].t < tmin)
			tmin = src[i].t;
		if (src[i].t > tmax)
			tmax = src[i].t;
	}
	fit->t0 = tmin + (tmax - tmin) / 2;
	iv = malloc(n * sizeof(*iv));
	in = malloc(n);
	scratch = malloc(n * sizeof(double));
	if (!iv || !in || !scratch)
		goto out;
	/*
	 * Base 0: on one clock the offsets are the small gaps between the two
	 * sides' times.  An interval with lo > hi allows no offset: no pair.
	 */
	for (i = 0, m = 0; i < n; i++) {
		if (src[i].lo > src[i].hi)
			continue;
		iv[m].dt = (double)(src[i].t - fit->t0);
		iv[m].lo = (double)src[i].lo;
		iv[m].hi = (double)src[i].hi;
		m++;
	}
	fit->support = mark(iv, m, 0, 0, fit->tol, in);
	fit->spread = median_width(iv, m, in, scratch);
	err = 0;
out:
	free(iv);
	free(in);
	free(scratch);
	return err;
}
