// SPDX-License-Identifier: GPL-2.0
/*
 * The point most intervals share (lib/join/join_sweep.h).
 *
 * In the order of the end points, the count at the i-th start is i + 1
 * less the ends before it, and the first start where it is largest wins,
 * with the first end at or after it.  The points need not all be sorted for
 * that: they are counted into buckets of value ranges, in order, and a
 * bucket's counts bound what any start in it can reach (the starts up to
 * its end, less the ends before it).  Only the buckets whose bound reaches
 * the best found so far are sorted and swept, the highest bound first.
 * Those are few: the intervals that agree crowd a bucket or two, false
 * pairs are spread thin.  A full sort of both ends (a radix sort of six
 * passes) cost the estimate's grid most of its time.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/join/join_sweep.h"

#define BUCKETS 4096

/* what the starts of bucket k can reach at most */
struct ntp_jbound {
	int64_t count;
	size_t k;
};

int ntp_jsweep__init(struct ntp_jsweep *sw, size_t n)
{
	n = n ? n : 1;
	memset(sw, 0, sizeof(*sw));
	sw->starts = malloc(n * sizeof(*sw->starts));
	sw->ends = malloc(n * sizeof(*sw->ends));
	sw->tmp = malloc(n * sizeof(*sw->tmp));
	sw->cs = malloc((BUCKETS + 1) * sizeof(*sw->cs));
	sw->ce = malloc((BUCKETS + 1) * sizeof(*sw->ce));
	sw->cursor = malloc((BUCKETS + 1) * sizeof(*sw->cursor));
	sw->bound = malloc(BUCKETS * sizeof(*sw->bound));
	return sw->starts && sw->ends && sw->tmp && sw->cs && sw->ce && sw->cursor && sw->bound ?
	       0 : -ENOMEM;
}

void ntp_jsweep__free(struct ntp_jsweep *sw)
{
	free(sw->starts);
	free(sw->ends);
	free(sw->tmp);
	free(sw->cs);
	free(sw->ce);
	free(sw->cursor);
	free(sw->bound);
	memset(sw, 0, sizeof(*sw));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* a bucket's keys in order: most hold a few, where glibc's qsort's setup would cost the most */
static void sort_keys(uint64_t *a, size_t n)
{
	if (n > 32) {
		qsort(a, n, sizeof(*a), cmp_u64);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		size_t j = i;

		for (; j && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* the highest first, then the first bucket */
static int cmp_bound(const void *a, const void *b)
{
	const struct ntp_jbound *x = a, *y = b;

	if (x->count != y->count)
		return (x->count < y->count) - (x->count > y->count);
	return (x->k > y->k) - (x->k < y->k);
}

/* the double a key stands for (lib/join/join_est.c's order keys of doubles) */
static double value(uint64_t u)
{
	double x;

	u = u >> 63 ? u & ~(1ull << 63) : ~u;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/*
 * The bucket of a key: of equal widths in value between the least and the
 * greatest (in key bits, doubles of both signs would share a bucket or two).
 * Monotone: a larger key is never in an earlier bucket.
 */
static size_t bucket(uint64_t key, double vmin, double scale)
{
	double b = (value(key) - vmin) * scale;

	return b < BUCKETS - 1 ? (size_t)b : BUCKETS - 1;
}

/* can the starts of bucket b->k still do better than best, first at best_i? */
static bool can_beat(const struct ntp_jbound *b, const size_t *cs, int64_t best, size_t best_i)
{
	return b->count > best || (b->count == best && cs[b->k] < best_i);
}

/*
 * Bucket kb's starts and ends sorted and swept: *best and its start's
 * place *best_i, *l and *r, where a start of it does better (more, or as
 * many earlier).  sw->tmp holds the starts by bucket, sw->starts the ends.
 */
static void sweep_bucket(struct ntp_jsweep *sw, size_t kb, int64_t *best, size_t *best_i,
			 uint64_t *l, uint64_t *r)
{
	const size_t *cs = sw->cs, *ce = sw->ce;
	uint64_t *bs = sw->tmp, *be = sw->starts;
	size_t jj = ce[kb];

	sort_keys(bs + cs[kb], cs[kb + 1] - cs[kb]);
	sort_keys(be + ce[kb], ce[kb + 1] - ce[kb]);
	for (size_t ii = cs[kb]; ii < cs[kb + 1]; ii++) {
		int64_t c;

		while (jj < ce[kb + 1] && be[jj] < bs[ii])
			jj++;
		/* starts [0, ii] began, ends [0, jj) are over */
		c = (int64_t)(ii + 1 - jj);
		/* c < 1 only where ends come before their starts, which an interval's do not */
		if (c < 1 || c < *best || (c == *best && ii > *best_i))
			continue;
		*best = c;
		*best_i = ii;
		*l = bs[ii];
		if (jj < ce[kb + 1]) {
			*r = be[jj];
		} else {
			/* the smallest end of the next bucket with ends: one is, bs[ii]'s own */
			size_t k2 = kb + 1;

			while (k2 < BUCKETS - 1 && ce[k2 + 1] == ce[k2])
				k2++;
			*r = be[ce[k2]];
			for (size_t e = ce[k2] + 1; e < ce[k2 + 1]; e++)
				*r = be[e] < *r ? be[e] : *r;
		}
	}
}

int64_t ntp_jsweep__max_overlap(struct ntp_jsweep *sw, size_t n, uint64_t *l, uint64_t *r)
{
	uint64_t kmin = UINT64_MAX, kmax = 0, *bs = sw->tmp, *be = sw->starts;
	size_t *cs = sw->cs, *ce = sw->ce, best_i = SIZE_MAX, nb = 0, ncand = 0, i;
	double vmin, scale;
	int64_t best = 0;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		kmin = sw->starts[i] < kmin ? sw->starts[i] : kmin;
		kmax = sw->ends[i] > kmax ? sw->ends[i] : kmax;
	}
	/* an end is at or after its start: every key is in [kmin, kmax] */
	vmin = value(kmin);
	scale = value(kmax) > vmin ? BUCKETS / (value(kmax) - vmin) : 0;
	if (!(scale < INFINITY))
		scale = 0;	/* a span too small to divide by: one bucket, sorted */
#define BUCKET(key) bucket(key, vmin, scale)
	memset(cs, 0, (BUCKETS + 1) * sizeof(*cs));
	memset(ce, 0, (BUCKETS + 1) * sizeof(*ce));
	for (i = 0; i < n; i++) {
		cs[BUCKET(sw->starts[i]) + 1]++;
		ce[BUCKET(sw->ends[i]) + 1]++;
	}
	/* cs[k], ce[k]: the starts and the ends in the buckets before k */
	for (size_t k = 1; k <= BUCKETS; k++) {
		cs[k] += cs[k - 1];
		ce[k] += ce[k - 1];
	}
	/* each bucket's points together, in bucket order: the starts into tmp, the ends into starts */
	memcpy(sw->cursor, cs, (BUCKETS + 1) * sizeof(*cs));
	for (i = 0; i < n; i++)
		bs[sw->cursor[BUCKET(sw->starts[i])]++] = sw->starts[i];
	memcpy(sw->cursor, ce, (BUCKETS + 1) * sizeof(*ce));
	for (i = 0; i < n; i++)
		be[sw->cursor[BUCKET(sw->ends[i])]++] = sw->ends[i];
#undef BUCKET
	/* the buckets with starts and their bounds; the highest (the first of equals) swept first */
	for (size_t k = 0; k < BUCKETS; k++) {
		if (cs[k + 1] == cs[k])
			continue;
		sw->bound[nb] = (struct ntp_jbound){ (int64_t)cs[k + 1] - (int64_t)ce[k], k };
		if (sw->bound[nb].count > sw->bound[0].count) {
			struct ntp_jbound t = sw->bound[0];

			sw->bound[0] = sw->bound[nb];
			sw->bound[nb] = t;
		}
		nb++;
	}
	sweep_bucket(sw, sw->bound[0].k, &best, &best_i, l, r);
	/*
	 * Then those whose bound can still beat the best (a later start of an
	 * equal count loses to the first), few once the best is known: the
	 * highest first, the buckets of one bound in order, until none can.
	 */
	for (size_t q = 1; q < nb; q++)
		if (can_beat(&sw->bound[q], cs, best, best_i))
			sw->bound[ncand++] = sw->bound[q];
	qsort(sw->bound, ncand, sizeof(*sw->bound), cmp_bound);
	for (size_t q = 0; q < ncand && can_beat(&sw->bound[q], cs, best, best_i); q++)
		sweep_bucket(sw, sw->bound[q].k, &best, &best_i, l, r);
	return best;
}
