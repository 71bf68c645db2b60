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
 *    the first grid looks at a stride sample of at most grid_iv.
 * 2. The agreeing set S (intervals containing the consensus point) then
 *    fixes the line exactly: gap(b) = max(lo - b dt) - min(hi - b dt) over S
 *    is convex in b; a ternary search over the whole drift range minimises
 *    it, the drift nearest 0 that keeps S feasible is taken (least_drift),
 *    and a sits in the middle of [max lo, min hi].  The whole range, not
 *    the grid's last steps around its point: the grid saw a sample, whose
 *    consensus may lie further from the whole set's than a step (at ten
 *    million intervals and a sample of 8192, by several), and with S fixed
 *    the convex minimum is the same wherever the search starts.  With only
 *    true pairs in S the gap is negative (the set is feasible) and the line
 *    misses none of them.  S is then recomputed with the resulting
 *    tolerance and the fit repeated until S stops changing (REFITS fits at
 *    most; two, nearly always).
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

#include "lib/core/checked.h"
#include "lib/join/join_est.h"
#include "lib/join/join_sweep.h"

#define GRID_HALF 10		/* grid points each side of the centre */
#define GRID_SHRINK 5.0		/* each level's step is the last one's / 5 */
#define GRID_FINE_NS 50.0	/* stop when the grid's error is below this */
#define TERNARY_ROUNDS 100
#define PRUNE_W 5		/* keep intervals this many widenings from the consensus */
#define REFITS 8		/* step 2's fits at most, until its set stops growing */
#define GROW_MAX 8		/* a refit's hulls grow from the last ones by at most 1/8 of n */

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

/*
 * The offset most of iv[0..n) share at drift b, each interval widened by w:
 * returns that count, and the region [*L, *R] where it holds.  Closed
 * intervals: an end equal to a start still overlaps it.
 */
static int64_t sweep(const struct riv *iv, size_t n, double b, double w, struct ntp_jsweep *sw,
		     double *L, double *R)
{
	uint64_t l, r;
	int64_t best;

	for (size_t i = 0; i < n; i++) {
		double s = b * iv[i].dt;

		sw->starts[i] = dkey(iv[i].lo - s - w);
		sw->ends[i] = dkey(iv[i].hi - s + w);
	}
	best = ntp_jsweep__max_overlap(sw, n, &l, &r);
	*L = best ? dval(l) : 0;
	*R = best ? dval(r) : 0;
	return best;
}

#define GRID_POINTS (2 * GRID_HALF + 1)

struct grid_pt {
	double b, l, r;
	int64_t c;		/* -1: outside the drift range, not swept */
};

/* every point of one level swept, with the buffers of sw */
static void grid_level(const struct riv *wk, size_t nw, double w, struct ntp_jsweep *sw,
		       struct grid_pt *pt)
{
	for (int g = 0; g < GRID_POINTS; g++)
		if (pt[g].c >= 0)
			pt[g].c = sweep(wk, nw, pt[g].b, w, sw, &pt[g].l, &pt[g].r);
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
 * Step 2 reads every interval a few times (the marks, the hulls, the
 * median) and holds nothing as long as them but one byte each (in[]):
 * at tens of millions of intervals an array of 8 bytes each would be the
 * join's peak.
 */

/* ---- marking S ---- */

/* in[i]: not a member of S, a member the last S had too, a new member */
enum { OUT = 0, KEPT = 1, NEW = 2 };

/*
 * Mark the intervals the line a + b dt misses by at most tol, against the
 * last marks in in[]; returns how many, and in *dropped how many of the
 * last S are not members any more.
 */
static int64_t mark(const struct ivs *v, double a, double b, double tol, unsigned char *in,
		    int64_t *dropped)
{
	/*
	 * Counted in locals: a store to in[] (bytes) may be to anything, so
	 * a count behind a pointer would be stored at every interval.
	 */
	int64_t k = 0, gone = 0;

	for (size_t i = 0; i < v->n; i++) {
		struct riv r = iv_rel(v, i);
		double o = a + b * r.dt;
		int member = iv_valid(v, i) && r.lo - tol <= o && o <= r.hi + tol;

		gone += !member && in[i] != OUT;
		in[i] = !member ? OUT : in[i] != OUT ? KEPT : NEW;
		k += member;
	}
	*dropped = gone;
	return k;
}

/* ---- the hulls of S ---- */

/*
 * gap(b) = max(lo - b dt) - min(hi - b dt) over S is a maximum of linear
 * functions of b: only the points (dt, lo) on the upper convex hull and
 * (dt, hi) on the lower one can attain it.  The hulls of S are built once
 * (Andrew's monotone chain over S in (t, index) order), and the two
 * hundred or so evaluations of the searches below cost their vertices,
 * not |S|.
 *
 * They are built in chunks of HULL_CHUNK intervals as stored: a chunk's
 * members are sorted by (t, index) and chained, and only the vertices of
 * the chunks' hulls are chained again, in the same order, for S's.  A
 * point inside a chunk's hull is inside S's, so in exact arithmetic the
 * result is the hull a single chain over all of S gives (cross() rounds:
 * of nearly collinear points, the two chains may keep different ones,
 * which moves gap() by a rounding error at most), with a chunk's worth of
 * memory.  A refit's S mostly only grows, by few members: its hulls are
 * then chained from the last hulls' vertices and the new members alone
 * (grow_hull), the same hulls in the same way.
 */
#define HULL_CHUNK 65536

struct hull {
	double *x, *y;		/* upper hull of (dt, lo) then lower hull of (dt, hi) */
	uint64_t *id;		/* their intervals */
	size_t nup, nlo;
};

/* a chain under construction: its vertices and their intervals */
struct chain {
	double *x, *y;
	uint64_t *id;
	size_t k;
};

/* (o, a, p) turn: > 0 counter-clockwise */
static double cross(double ox, double oy, double ax, double ay, double px, double py)
{
	return (ax - ox) * (py - oy) - (ay - oy) * (px - ox);
}

/*
 * One step of a chain: interval id's point (x, y) onto it; upper keeps
 * clockwise turns.  The points come in (t, index) order, so several may
 * share an x in any order of y: of those only the highest (upper) or the
 * lowest (lower) can be a vertex, and it must stay one whatever came
 * before it at that x (a collinear vertical run would otherwise keep the
 * last of them, not the extreme one).
 */
static void chain_add(struct chain *c, int upper, double x, double y, uint64_t id)
{
	if (c->k && c->x[c->k - 1] == x) {
		double last = c->y[c->k - 1];

		if (upper ? y <= last : y >= last)
			return;		/* not beyond the point already there */
		c->k--;			/* replaced by this one */
	}
	while (c->k >= 2) {
		double t = cross(c->x[c->k - 2], c->y[c->k - 2], c->x[c->k - 1], c->y[c->k - 1], x, y);

		if (upper ? t < 0 : t > 0)
			break;
		c->k--;
	}
	c->x[c->k] = x;
	c->y[c->k] = y;
	c->id[c->k] = id;
	c->k++;
}

static int chain_alloc(struct chain *c, size_t n)
{
	n = n ? n : 1;
	c->x = malloc(n * sizeof(*c->x));
	c->y = malloc(n * sizeof(*c->y));
	c->id = malloc(n * sizeof(*c->id));
	c->k = 0;
	return c->x && c->y && c->id ? 0 : -ENOMEM;
}

static void chain_free(struct chain *c)
{
	free(c->x);
	free(c->y);
	free(c->id);
}

/* a growing list of interval indexes: the vertices of the chunks' hulls */
struct ids {
	uint64_t *id;
	size_t n, cap;
};

static int ids_add(struct ids *l, const uint64_t *id, size_t n)
{
	if (!n)
		return 0;	/* and no memcpy from or to a list not yet allocated */
	if (l->n + n > l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 4096;
		uint64_t *q;

		while (ncap < l->n + n)
			ncap *= 2;
		q = realloc(l->id, ncap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		l->id = q;
		l->cap = ncap;
	}
	memcpy(l->id + l->n, id, n * sizeof(*id));
	l->n += n;
	return 0;
}

/* the order the chains take: (t, index); the keys being plain indexes */
static int cmp_by_t(const void *pa, const void *pb, void *ctx)
{
	const struct ivs *v = ctx;
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	int64_t x = v->src[a].t, y = v->src[b].t;

	if (x != y)
		return (x > y) - (x < y);
	return (a > b) - (a < b);
}

/*
 * The members among intervals [i0, i1) (at most HULL_CHUNK of them) in
 * (t, index) order, as indexes into ord: a radix sort of (t - tmin) << 16
 * | (i - i0) where the chunk's times span less than 2^48 ns (three days),
 * else a comparison sort.
 */
static size_t chunk_order(const struct ivs *v, const unsigned char *in, size_t i0, size_t i1,
			  uint64_t *ord, uint64_t *tmp)
{
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	size_t m = 0;

	for (size_t i = i0; i < i1; i++) {
		if (!in[i])
			continue;
		tmin = v->src[i].t < tmin ? v->src[i].t : tmin;
		tmax = v->src[i].t > tmax ? v->src[i].t : tmax;
		m++;
	}
	if (!m)
		return 0;
	if (ntp_checked__span(tmin, tmax) >= (uint64_t)1 << 48) {
		m = 0;
		for (size_t i = i0; i < i1; i++)
			if (in[i])
				ord[m++] = i;
		qsort_r(ord, m, sizeof(*ord), cmp_by_t, (void *)v);
		return m;
	}
	m = 0;
	for (size_t i = i0; i < i1; i++)
		if (in[i])
			ord[m++] = ntp_checked__span(tmin, v->src[i].t) << 16 | (uint64_t)(i - i0);
	radix_sort(ord, tmp, m);
	for (size_t q = 0; q < m; q++)
		ord[q] = i0 + (ord[q] & 0xffff);
	return m;
}

/* both chains over the intervals ord[0..m), in that order */
static void chain_both(const struct ivs *v, const uint64_t *ord, size_t m, struct chain *up,
		       struct chain *lo)
{
	up->k = lo->k = 0;
	for (size_t q = 0; q < m; q++) {
		struct riv r = iv_rel(v, ord[q]);

		chain_add(up, 1, r.dt, r.lo, ord[q]);
		chain_add(lo, 0, r.dt, r.hi, ord[q]);
	}
}

/* one chain over the candidate vertices l (sorted here) into c */
static void chain_final(const struct ivs *v, struct ids *l, int upper, struct chain *c)
{
	c->k = 0;
	if (!l->n)
		return;		/* S is empty: no hull, and no list to sort */
	qsort_r(l->id, l->n, sizeof(*l->id), cmp_by_t, (void *)v);
	for (size_t q = 0; q < l->n; q++) {
		struct riv r = iv_rel(v, l->id[q]);

		chain_add(c, upper, r.dt, upper ? r.lo : r.hi, l->id[q]);
	}
}

static void hull_free(struct hull *h)
{
	free(h->x);
	free(h->y);
	free(h->id);
	memset(h, 0, sizeof(*h));
}

/* the hulls from their candidate vertices up and lo (consumed) into h; -ENOMEM */
static int hull_from(const struct ivs *v, struct ids *up, struct ids *lo, struct hull *h)
{
	struct chain cu = { 0 }, cl = { 0 };
	int err = chain_alloc(&cu, up->n) || chain_alloc(&cl, lo->n);

	hull_free(h);
	if (!err) {
		chain_final(v, up, 1, &cu);
		chain_final(v, lo, 0, &cl);
		h->x = malloc((cu.k + cl.k + 1) * sizeof(*h->x));
		h->y = malloc((cu.k + cl.k + 1) * sizeof(*h->y));
		h->id = malloc((cu.k + cl.k + 1) * sizeof(*h->id));
		err = !h->x || !h->y || !h->id;
	}
	if (!err) {
		memcpy(h->x, cu.x, cu.k * sizeof(*h->x));
		memcpy(h->y, cu.y, cu.k * sizeof(*h->y));
		memcpy(h->id, cu.id, cu.k * sizeof(*h->id));
		memcpy(h->x + cu.k, cl.x, cl.k * sizeof(*h->x));
		memcpy(h->y + cu.k, cl.y, cl.k * sizeof(*h->y));
		memcpy(h->id + cu.k, cl.id, cl.k * sizeof(*h->id));
		h->nup = cu.k;
		h->nlo = cl.k;
	}
	free(up->id);
	free(lo->id);
	chain_free(&cu);
	chain_free(&cl);
	if (err)
		hull_free(h);
	return err ? -ENOMEM : 0;
}

/* both hulls of S (the intervals marked in in[]) into h, chunk by chunk; -ENOMEM */
static int build_hull(const struct ivs *v, const unsigned char *in, struct hull *h)
{
	uint64_t *ord = malloc(HULL_CHUNK * sizeof(*ord)), *tmp = malloc(HULL_CHUNK * sizeof(*tmp));
	struct chain cu = { 0 }, cl = { 0 };
	struct ids up = { 0 }, lo = { 0 };	/* the chunks' hull vertices, in chunk order */
	int err;

	hull_free(h);
	err = !ord || !tmp || chain_alloc(&cu, HULL_CHUNK) || chain_alloc(&cl, HULL_CHUNK);
	for (size_t c = 0; c < v->n && !err; c += HULL_CHUNK) {
		size_t end = c + HULL_CHUNK < v->n ? c + HULL_CHUNK : v->n;
		size_t m = chunk_order(v, in, c, end, ord, tmp);

		chain_both(v, ord, m, &cu, &cl);
		err = ids_add(&up, cu.id, cu.k) || ids_add(&lo, cl.id, cl.k);
	}
	free(ord);
	free(tmp);
	chain_free(&cu);
	chain_free(&cl);
	if (err) {
		free(up.id);
		free(lo.id);
		return -ENOMEM;
	}
	return hull_from(v, &up, &lo, h);
}

/*
 * The hulls of S grown by the members marked new (in[i] == NEW) since h was
 * built, none having left: the hull of a union is the hull of one part's
 * hull vertices and the other part, so only those are chained.
 */
static int grow_hull(const struct ivs *v, const unsigned char *in, struct hull *h)
{
	struct ids up = { 0 }, lo = { 0 };
	int err = ids_add(&up, h->id, h->nup) || ids_add(&lo, h->id + h->nup, h->nlo);

	for (size_t i = 0; i < v->n && !err; i++)
		if (in[i] == NEW)
			err = ids_add(&up, &(uint64_t){ i }, 1) || ids_add(&lo, &(uint64_t){ i }, 1);
	if (err) {
		free(up.id);
		free(lo.id);
		return -ENOMEM;
	}
	return hull_from(v, &up, &lo, h);
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

/* ---- the median width of S ---- */

/*
 * The median is the k-th smallest width, k = |S| / 2, found 16 bits of
 * its order key (dkey) at a time: a count of the members by the next 16
 * bits under the prefix found so far tells which value of them holds the
 * k-th, until few enough members share the prefix to be selected among.
 * Exactly select_kth's result over all of S, in passes over in[] rather
 * than an array of |S| widths.
 */
#define MEDIAN_GATHER 65536	/* members sharing a prefix: few enough to select among */

static double width(const struct ivs *v, size_t i)
{
	return ntp_checked__diff_d(v->src[i].hi, v->base) - ntp_checked__diff_d(v->src[i].lo, v->base);
}

/* has the members' order key these top bits */
static int under(uint64_t u, uint64_t prefix, int bits)
{
	return !bits || u >> (64 - bits) == prefix;
}

/* cnt[d]: the members of S whose width's order key has these top bits, by the next 16 */
static void count_widths(const struct ivs *v, const unsigned char *in, uint64_t prefix, int bits,
			 size_t *cnt)
{
	memset(cnt, 0, 65536 * sizeof(*cnt));
	for (size_t i = 0; i < v->n; i++) {
		uint64_t u;

		if (!in[i])
			continue;
		u = dkey(width(v, i));
		if (under(u, prefix, bits))
			cnt[(u >> (48 - bits)) & 0xffff]++;
	}
}

/* median hi - lo over the m members of S; 0 without any, -1 without memory (*err) */
static double median_width(const struct ivs *v, const unsigned char *in, size_t m, int *err)
{
	size_t *cnt = NULL;
	int bits = 0;
	size_t k = m / 2, have = m;
	uint64_t prefix = 0;
	double *w = NULL, med = 0;

	*err = 0;
	if (!m)
		return 0;
	cnt = malloc(65536 * sizeof(*cnt));
	*err = !cnt;
	while (!*err && have > MEDIAN_GATHER && bits < 64) {
		size_t d, below = 0;

		count_widths(v, in, prefix, bits, cnt);
		for (d = 0; d < 65536; d++) {
			if (below + cnt[d] > k) {
				have = cnt[d];
				break;
			}
			below += cnt[d];
		}
		k -= below;
		prefix = prefix << 16 | d;
		bits += 16;
	}
	if (!*err && bits == 64) {
		med = dval(prefix);	/* all of them the same width */
	} else if (!*err) {
		size_t g = 0;

		w = malloc(have * sizeof(*w));
		*err = !w;
		for (size_t i = 0; !*err && i < v->n; i++) {
			double x;

			if (!in[i])
				continue;
			x = width(v, i);
			if (under(dkey(x), prefix, bits))
				w[g++] = x;
		}
		if (!*err)
			med = select_kth(w, g, k);
	}
	free(w);
	free(cnt);
	return med;
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
		       int64_t slack_ns, size_t grid_iv, struct ntp_join_fit *fit)
{
	double half = 0, step, centre = 0, w, bbest = 0, L = 0, R = 0, a, b, lo, hi;
	struct riv *wk = NULL;
	struct ntp_jsweep sw = { 0 };
	struct grid_pt pt[GRID_POINTS];
	struct ivs v = { src, n, 0, 0 };
	struct hull h = { 0 };
	unsigned char *in = NULL;
	int64_t k, prev, dropped;
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

	in = calloc(n, 1);	/* no member yet: the first marks are all new */
	if (grid_iv < 1)
		grid_iv = 1;
	stride = n / grid_iv + (n % grid_iv != 0);
	m = (n + stride - 1) / stride;
	wk = malloc(m * sizeof(*wk));
	if (ntp_jsweep__init(&sw, m) || !in || !wk)
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
		grid_level(wk, nw, w, &sw, pt);
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

	/* 2. the agreeing set fixes the line; refit with its tolerance until S stays */
	a = (L + R) / 2;
	b = bbest;
	k = mark(&v, a, b, w, in, &dropped);
	prev = -1;
	/* until S stays: as many members, none of them another's */
	for (pass = 0; pass < REFITS && (k != prev || dropped); pass++) {
		/* S only grew, by few: the last hulls and the new members make the new ones */
		int grow = pass && !dropped && k - prev <= (int64_t)(n / GROW_MAX);

		if (grow ? grow_hull(&v, in, &h) : build_hull(&v, in, &h))
			goto out;
		b = best_drift(&h, -max_drift, max_drift);
		b = least_drift(&h, b);
		gap(&h, b, &lo, &hi);
		a = (lo + hi) / 2;
		fit->tol = (double)slack_ns + fmax(0, (lo - hi) / 2);
		prev = k;
		k = mark(&v, a, b, fit->tol, in, &dropped);
	}
	fit->a = a;
	fit->b = b;
	fit->support = k;
	fit->spread = median_width(&v, in, (size_t)k, &err);
	err = err ? -ENOMEM : 0;
out:
	free(wk);
	free(in);
	ntp_jsweep__free(&sw);
	hull_free(&h);
	return err;
}

int ntp_join__fit_zero(const struct ntp_join_iv *src, size_t n, int64_t slack_ns,
		       struct ntp_join_fit *fit)
{
	struct ivs v = { src, n, 0, 0 };
	unsigned char *in = NULL;
	int64_t dropped;
	int err = -ENOMEM;

	memset(fit, 0, sizeof(*fit));
	fit->tol = (double)slack_ns;
	if (!n)
		return 0;
	fit->t0 = centre_time(src, n);
	/* base 0: on one clock the offsets are the small gaps between the two sides' times */
	v.t0 = fit->t0;
	in = calloc(n, 1);
	if (!in)
		goto out;
	fit->support = mark(&v, 0, 0, fit->tol, in, &dropped);
	fit->spread = median_width(&v, in, (size_t)fit->support, &err);
	err = err ? -ENOMEM : 0;
out:
	free(in);
	return err;
}
