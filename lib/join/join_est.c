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
#include <pthread.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/checked.h"
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

/*
 * LSD radix sort, 11-bit digits: the sweeps sort most of the time.  One
 * pass counts all six digits; a digit that is the same for every key (the
 * exponent's, for offsets of one magnitude) moves nothing and is skipped.
 */
static void radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	size_t cnt[6][2048], i;
	uint64_t *src = a, *dst = tmp, *t;

	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++)
		for (int d = 0; d < 6; d++)
			cnt[d][(a[i] >> (11 * d)) & 2047]++;
	for (int d = 0; d < 6; d++) {
		unsigned int shift = 11 * d;
		size_t sum = 0, *c = cnt[d];

		if (n && c[(a[0] >> shift) & 2047] == n)
			continue;
		for (i = 0; i < 2048; i++) {
			size_t k = c[i];

			c[i] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i] >> shift) & 2047]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
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

/*
 * The grid's points are independent sweeps: a level's are shared by two
 * threads (each with its own buffers) when the sample is large enough to
 * pay for one, and the best is chosen from them in grid order afterwards,
 * as one thread would.
 */
#define GRID_POINTS (2 * GRID_HALF + 1)
#define GRID_THREADS 2
#define GRID_THREAD_IV 8192	/* fewer intervals: one thread */

struct grid_pt {
	double b, l, r;
	int64_t c;		/* -1: outside the drift range, not swept */
};

struct grid_job {
	const struct riv *wk;
	size_t nw;
	double w;
	struct sweep_buf sb;
	struct grid_pt *pt;
	int g0, g1;		/* this job's points */
	pthread_t thread;
	int started;
};

static void *grid_run(void *arg)
{
	struct grid_job *gj = arg;

	for (int g = gj->g0; g < gj->g1; g++)
		if (gj->pt[g].c >= 0)
			gj->pt[g].c = sweep(gj->wk, gj->nw, gj->pt[g].b, gj->w, &gj->sb, &gj->pt[g].l,
					    &gj->pt[g].r);
	return NULL;
}

/* every point of one level swept, on njobs threads */
static void grid_level(struct grid_job *jobs, int njobs, const struct riv *wk, size_t nw, double w,
		       struct grid_pt *pt)
{
	if (nw < GRID_THREAD_IV)
		njobs = 1;
	for (int k = 0; k < njobs; k++) {
		jobs[k].wk = wk;
		jobs[k].nw = nw;
		jobs[k].w = w;
		jobs[k].pt = pt;
		jobs[k].g0 = GRID_POINTS * k / njobs;
		jobs[k].g1 = GRID_POINTS * (k + 1) / njobs;
		jobs[k].started = k && !pthread_create(&jobs[k].thread, NULL, grid_run, &jobs[k]);
	}
	grid_run(&jobs[0]);
	for (int k = 1; k < njobs; k++) {
		if (jobs[k].started)
			pthread_join(jobs[k].thread, NULL);
		else
			grid_run(&jobs[k]);
	}
}

/*
 * The intervals as the estimate reads them, relative to base and t0, in
 * place: a copy of tens of millions of them would double the join's memory.
 * One with lo > hi allows no offset at all: no pair, never a member.
 */
struct ivs {
	const struct ntp_join_iv *src;
	size_t n;
	int64_t t0, base;
};

static int iv_valid(const struct ivs *v, size_t i)
{
	return v->src[i].lo <= v->src[i].hi;
}

static struct riv iv_rel(const struct ivs *v, size_t i)
{
	/* exact where the difference fits 64 bits; a file's times may be anything */
	struct riv r = {
		ntp_checked__diff_d(v->src[i].t, v->t0),
		ntp_checked__diff_d(v->src[i].lo, v->base),
		ntp_checked__diff_d(v->src[i].hi, v->base),
	};

	return r;
}

/*
 * gap(b) = max(lo - b dt) - min(hi - b dt) over S is a maximum of linear
 * functions of b: only the points (dt, lo) on the upper convex hull and
 * (dt, hi) on the lower one can attain it.  The hulls of S are built once
 * (S sorted by dt, Andrew's monotone chain), and the two hundred or so
 * evaluations of the searches below cost their vertices, not |S|.
 */
struct hull {
	double *x, *y;		/* upper hull of (dt, lo) then lower hull of (dt, hi) */
	size_t nup, nlo;
};

struct scratch {
	uint64_t *keys;		/* S in dt order: (t - bucket start) << 32 | index */
	double *w;		/* widths for the median (aliases keys) */
	double *hx, *hy;	/* hull vertices, at most 2 |S| */
	size_t *cnt;		/* bucket starts, nbuckets + 1 */
	size_t nbuckets;
};

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* the fallback's order: (t, index), the keys being plain indexes */
static int cmp_by_t(const void *pa, const void *pb, void *ctx)
{
	const struct ivs *v = ctx;
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	int64_t x = v->src[a].t, y = v->src[b].t;

	if (x != y)
		return (x > y) - (x < y);
	return (a > b) - (a < b);
}

/* a bucket this small is sorted in place: no call per comparison (the keys are distinct) */
#define SMALL_BUCKET 64

static void insertion_sort(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		size_t k = i;

		for (; k && a[k - 1] > x; k--)
			a[k] = a[k - 1];
		a[k] = x;
	}
}

/*
 * S's members in dt order.  dt is an integer time, so a counting sort into
 * buckets of time does most of it in two sequential passes, and each bucket
 * (a few dozen members) is sorted by its 32-bit offset alone: no pass reads
 * the intervals out of order, which at tens of millions of them is what a
 * sort would cost.
 */
static size_t sort_members(const struct ivs *v, const unsigned char *in, struct scratch *sc)
{
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	uint64_t width, nb = sc->nbuckets;
	size_t *cnt = sc->cnt, m = 0, i;

	for (i = 0; i < v->n; i++) {
		if (!in[i])
			continue;
		tmin = v->src[i].t < tmin ? v->src[i].t : tmin;
		tmax = v->src[i].t > tmax ? v->src[i].t : tmax;
		m++;
	}
	if (!m)
		return 0;
	width = ntp_checked__span(tmin, tmax) / nb + 1;
	if (width > UINT32_MAX || v->n > UINT32_MAX) {
		/* too few buckets for the span (a handful of intervals over hours): sort them all */
		for (i = 0, m = 0; i < v->n; i++)
			if (in[i])
				sc->keys[m++] = i;
		qsort_r(sc->keys, m, sizeof(*sc->keys), cmp_by_t, (void *)v);
		return m;
	}
	memset(cnt, 0, (nb + 1) * sizeof(*cnt));
	for (i = 0; i < v->n; i++)
		if (in[i])
			cnt[ntp_checked__span(tmin, v->src[i].t) / width + 1]++;
	for (uint64_t k = 1; k <= nb; k++)
		cnt[k] += cnt[k - 1];
	for (i = 0; i < v->n; i++) {
		uint64_t off;

		if (!in[i])
			continue;
		off = ntp_checked__span(tmin, v->src[i].t);
		sc->keys[cnt[off / width]++] = (off % width) << 32 | (uint64_t)i;
	}
	/* cnt[k] is now the end of bucket k */
	for (uint64_t k = 0, lo = 0; k < nb; lo = cnt[k], k++) {
		if (cnt[k] - lo > SMALL_BUCKET)
			qsort(sc->keys + lo, cnt[k] - lo, sizeof(*sc->keys), cmp_u64);
		else
			insertion_sort(sc->keys + lo, cnt[k] - lo);
	}
	return m;
}

/* (o, a, p) turn: > 0 counter-clockwise */
static double cross(double ox, double oy, double ax, double ay, double px, double py)
{
	return (ax - ox) * (py - oy) - (ay - oy) * (px - ox);
}

/* one step of a chain: (x, y) onto the hull of k vertices; upper keeps clockwise turns */
static size_t chain_add(double *hx, double *hy, size_t k, int upper, double x, double y)
{
	while (k >= 2) {
		double c = cross(hx[k - 2], hy[k - 2], hx[k - 1], hy[k - 1], x, y);

		if (upper ? c < 0 : c > 0)
			break;
		k--;
	}
	hx[k] = x;
	hy[k] = y;
	return k + 1;
}

/*
 * Both chains over S in dt order, in one pass (reading the members is the
 * cost): the upper hull of (dt, lo) at the start of hx/hy, the lower of
 * (dt, hi) built from hx/hy + m and then moved to follow it.
 */
static void build_hull(const struct ivs *v, const unsigned char *in, struct scratch *sc,
		       struct hull *h)
{
	size_t m = sort_members(v, in, sc), ku = 0, kl = 0;
	double *lx = sc->hx + m, *ly = sc->hy + m;

	for (size_t i = 0; i < m; i++) {
		struct riv r = iv_rel(v, sc->keys[i] & 0xffffffffu);

		ku = chain_add(sc->hx, sc->hy, ku, 1, r.dt, r.lo);
		kl = chain_add(lx, ly, kl, 0, r.dt, r.hi);
	}
	memmove(sc->hx + ku, lx, kl * sizeof(*lx));
	memmove(sc->hy + ku, ly, kl * sizeof(*ly));
	h->x = sc->hx;
	h->y = sc->hy;
	h->nup = ku;
	h->nlo = kl;
}

/* gap(b) over the members of S: max(lo - b dt) - min(hi - b dt) */
static double gap(const struct hull *h, double b, double *maxlo, double *minhi)
{
	double l = -INFINITY, r = INFINITY;
	size_t i;

	for (i = 0; i < h->nup; i++) {
		double x = h->y[i] - b * h->x[i];

		l = x > l ? x : l;
	}
	for (; i < h->nup + h->nlo; i++) {
		double x = h->y[i] - b * h->x[i];

		r = x < r ? x : r;
	}
	if (maxlo)
		*maxlo = l;
	if (minhi)
		*minhi = r;
	return l - r;
}

/* the b in [b0, b1] minimising gap() over S (gap is convex in b) */
static double best_drift(const struct hull *h, double b0, double b1)
{
	int r;

	for (r = 0; r < TERNARY_ROUNDS && b1 - b0 > 1e-15; r++) {
		double m1 = b0 + (b1 - b0) / 3, m2 = b1 - (b1 - b0) / 3;

		if (gap(h, m1, NULL, NULL) <= gap(h, m2, NULL, NULL))
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
static double least_drift(const struct hull *h, double b)
{
	double lo = 0, hi = b;
	int r;

	if (gap(h, b, NULL, NULL) > 0)
		return b;	/* not feasible anywhere: keep the best fit */
	if (gap(h, 0, NULL, NULL) <= 0)
		return 0;
	/* bisect between 0 (infeasible) and b (feasible): gap is convex */
	for (r = 0; r < TERNARY_ROUNDS && fabs(hi - lo) > 1e-15; r++) {
		double mid = (lo + hi) / 2;

		if (gap(h, mid, NULL, NULL) <= 0)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* mark the intervals the line a + b dt misses by at most tol; returns how many */
static int64_t mark(const struct ivs *v, double a, double b, double tol, unsigned char *in)
{
	int64_t k = 0;
	size_t i;

	for (i = 0; i < v->n; i++) {
		struct riv r = iv_rel(v, i);
		double o = a + b * r.dt;

		in[i] = iv_valid(v, i) && r.lo - tol <= o && o <= r.hi + tol;
		k += in[i];
	}
	return k;
}

/* the k-th smallest of w[0..n) (Hoare's selection): what w[k] would be sorted */
static double select_kth(double *w, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double p = w[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (w[i] < p)
				i++;
			while (w[j] > p)
				j--;
			if (i <= j) {
				double t = w[i];

				w[i] = w[j];
				w[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return w[k];
	}
	return w[k];
}

/* median hi - lo over the members of S; w holds n doubles */
static double median_width(const struct ivs *v, const unsigned char *in, double *w)
{
	size_t i, m = 0;

	for (i = 0; i < v->n; i++)
		if (in[i])
			w[m++] = ntp_checked__diff_d(v->src[i].hi, v->base) -
				 ntp_checked__diff_d(v->src[i].lo, v->base);
	if (!m)
		return 0;
	return select_kth(w, m, m / 2);
}

static int scratch_alloc(struct scratch *sc, size_t n)
{
	/* buckets of a few dozen members; each at most 2^32 ns wide */
	sc->nbuckets = n / 32 + 1;
	sc->keys = malloc((n ? n : 1) * sizeof(*sc->keys));
	sc->w = (double *)sc->keys;
	sc->hx = malloc((n ? n : 1) * 2 * sizeof(double));
	sc->hy = malloc((n ? n : 1) * 2 * sizeof(double));
	sc->cnt = malloc((sc->nbuckets + 1) * sizeof(*sc->cnt));
	return sc->keys && sc->hx && sc->hy && sc->cnt ? 0 : -ENOMEM;
}

static void scratch_free(struct scratch *sc)
{
	free(sc->keys);
	free(sc->hx);
	free(sc->hy);
	free(sc->cnt);
}

/* the centre of n > 0 intervals' host times: the fits' t0, which keeps b's products small */
static int64_t centre_time(const struct ntp_join_iv *src, size_t n)
{
	int64_t tmin = src[0].t, tmax = src[0].t;

	for (size_t i = 1; i < n; i++) {
		if (src[i].t < tmin)
			tmin = src[i].t;
		if (src[i].t > tmax)
			tmax = src[i].t;
	}
	/* checked: times far apart (a hostile file's) must not overflow the difference */
	return tmin + (int64_t)(ntp_checked__span(tmin, tmax) / 2);
}

int ntp_join__estimate(const struct ntp_join_iv *src, size_t n, double max_drift,
		       int64_t slack_ns, struct ntp_join_fit *fit)
{
	double half = 0, step, centre = 0, w, bbest = 0, L = 0, R = 0, a, b, lo, hi;
	struct riv *wk = NULL;
	struct grid_job jobs[GRID_THREADS];
	struct grid_pt pt[GRID_POINTS];
	int njobs = 0;
	struct scratch sc = { 0 };
	struct ivs v = { src, n, 0, 0 };
	struct hull h;
	unsigned char *in = NULL;
	int64_t k, prev;
	size_t i, m, nw, stride, nvalid;
	int pass, err = -ENOMEM;

	memset(fit, 0, sizeof(*fit));
	if (!n)
		return -ENOENT;
	if (max_drift < 0)
		max_drift = 0;

	fit->t0 = centre_time(src, n);
	fit->base = src[0].lo;
	v.t0 = fit->t0;
	v.base = fit->base;

	in = malloc(n);
	stride = (n + GRID_MAX_IV - 1) / GRID_MAX_IV;
	m = (n + stride - 1) / stride;
	wk = malloc(m * sizeof(*wk));
	memset(jobs, 0, sizeof(jobs));
	/* a second thread's buffers only where it would be used */
	for (; njobs < (m < GRID_THREAD_IV ? 1 : GRID_THREADS); njobs++) {
		struct sweep_buf *sb = &jobs[njobs].sb;

		sb->starts = malloc(m * sizeof(uint64_t));
		sb->ends = malloc(m * sizeof(uint64_t));
		sb->tmp = malloc(m * sizeof(uint64_t));
		if (!sb->starts || !sb->ends || !sb->tmp) {
			njobs++;
			goto out;
		}
	}
	if (!in || !wk || scratch_alloc(&sc, n))
		goto out;
	/* the stride sample of the valid intervals: every stride-th of them */
	for (i = 0, nvalid = 0, nw = 0; i < n; i++) {
		if (!iv_valid(&v, i))
			continue;
		half = fmax(half, fabs(iv_rel(&v, i).dt));
		if (nvalid++ % stride == 0)
			wk[nw++] = iv_rel(&v, i);
	}
	if (!nvalid) {
		err = -ENOENT;
		goto out;
	}

	/* 1. coarse to fine over the drift, on the stride sample */
	step = max_drift / GRID_HALF;
	for (;;) {
		int64_t best = -1;
		double bw = INFINITY;
		int g;

		/* the grid point nearest the truth misses it by <= step/2 * half */
		w = step / 2 * half + 1;
		for (g = 0; g < GRID_POINTS; g++) {
			pt[g].b = centre + (g - GRID_HALF) * step;
			pt[g].c = fabs(pt[g].b) > max_drift * (1 + 1e-9) ? -1 : 0;
		}
		grid_level(jobs, njobs, wk, nw, w, pt);
		for (g = 0; g < GRID_POINTS; g++) {
			double l = pt[g].l, r = pt[g].r;
			int64_t c = pt[g].c;

			if (c < 0)
				continue;
			/* most intervals; then the tightest agreement */
			if (c > best || (c == best && r - l < bw)) {
				best = c;
				bw = r - l;
				bbest = pt[g].b;
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
	k = mark(&v, a, b, w, in);
	prev = -1;
	for (pass = 0; pass < 2 && k != prev; pass++) {
		double span = fmax(step * GRID_SHRINK, 1e-12);

		build_hull(&v, in, &sc, &h);
		b = best_drift(&h, fmax(-max_drift, b - span), fmin(max_drift, b + span));
		b = least_drift(&h, b);
		gap(&h, b, &lo, &hi);
		a = (lo + hi) / 2;
		fit->tol = (double)slack_ns + fmax(0, (lo - hi) / 2);
		prev = k;
		k = mark(&v, a, b, fit->tol, in);
	}
	fit->a = a;
	fit->b = b;
	fit->support = k;
	fit->spread = median_width(&v, in, sc.w);
	err = 0;
out:
	free(wk);
	free(in);
	for (int q = 0; q < njobs; q++) {
		free(jobs[q].sb.starts);
		free(jobs[q].sb.ends);
		free(jobs[q].sb.tmp);
	}
	scratch_free(&sc);
	return err;
}

int ntp_join__fit_zero(const struct ntp_join_iv *src, size_t n, int64_t slack_ns,
		       struct ntp_join_fit *fit)
{
	struct ivs v = { src, n, 0, 0 };
	unsigned char *in = NULL;
	double *w = NULL;
	int err = -ENOMEM;

	memset(fit, 0, sizeof(*fit));
	fit->tol = (double)slack_ns;
	if (!n)
		return 0;
	fit->t0 = centre_time(src, n);
	/* base 0: on one clock the offsets are the small gaps between the two sides' times */
	v.t0 = fit->t0;
	in = malloc(n);
	w = malloc(n * sizeof(*w));
	if (!in || !w)
		goto out;
	fit->support = mark(&v, 0, 0, fit->tol, in);
	fit->spread = median_width(&v, in, w);
	err = 0;
out:
	free(in);
	free(w);
	return err;
}
