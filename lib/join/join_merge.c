// SPDX-License-Identifier: GPL-2.0
/*
 * The merges of one host file with one target file (lib/join/join_base.h): both
 * sides in (key, time) order, walked key by key.  Within a key the host's
 * occurrences are in time order and so are the target's, and a command's
 * candidates are the target records that overlap its flight mapped through
 * the line, found by a binary search and a short scan: the work is linear
 * in the commands however often a key repeats.
 *
 * The arithmetic is the arithmetic of the SQL this replaced, operation for
 * operation (integers where they were integers, then doubles), so that a
 * bound decided at a nanosecond's edge is decided the same way.
 */
#include <math.h>
#include <stdlib.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_base.h"

static const struct ntp_jhost *hrow(const struct ntp_join *j, uint32_t h)
{
	return (const struct ntp_jhost *)j->host.rows + h;
}

static const struct ntp_jtarget *trow(const struct ntp_join *j, uint32_t t)
{
	return (const struct ntp_jtarget *)j->target.rows + t;
}

/*
 * The target's time that bounds an offset from below: t_recv on one clock
 * (lib/join/join.h), t_sent on two.
 */
static int64_t late(const struct ntp_join *j, int p, const struct ntp_jtarget *t)
{
	return j->pairs[p].clock != NTP_JOIN_CLOCK_TWO ? t->recv : t->sent;
}

void ntp_join__interval(const struct ntp_join *j, int p, uint32_t h, uint32_t t,
			struct ntp_join_iv *iv)
{
	const struct ntp_jhost *hr = hrow(j, h);
	const struct ntp_jtarget *tr = trow(j, t);

	iv->t = hr->queue;
	iv->lo = late(j, p, tr) - hr->done;
	iv->hi = tr->recv - hr->queue;
}

/* the runs of one key on both sides: host [h0, h1), target [t0, t1) */
struct run {
	size_t h0, h1, t0, t1;
};

/* pair p's rows in key order: its host file's [h0, h1), its target file's [t0, t1) */
struct span {
	size_t h0, h1, t0, t1;
};

/* the next key both sides of span c have; 0 when there is none */
static int next_run(const struct ntp_join *j, const struct span *c, size_t *hi, size_t *ti,
		    struct run *r)
{
	const struct ntp_jkey *ho = j->host.order, *to = j->target.order;
	size_t hend = c->h1, tend = c->t1;

	while (*hi < hend && *ti < tend) {
		uint64_t a = ho[*hi].hash, b = to[*ti].hash;

		if (a < b) {
			(*hi)++;
		} else if (a > b) {
			(*ti)++;
		} else {
			r->h0 = *hi;
			r->t0 = *ti;
			while (*hi < hend && ho[*hi].hash == a)
				(*hi)++;
			while (*ti < tend && to[*ti].hash == a)
				(*ti)++;
			r->h1 = *hi;
			r->t1 = *ti;
			return 1;
		}
	}
	return 0;
}

/* pair p's whole key order: its host file's rows and its target file's */
static struct span whole(const struct ntp_join *j, int p)
{
	int hf = j->pairs[p].host_file, tf = j->pairs[p].target_file;

	return (struct span){ j->host.file_lo[hf], j->host.file_lo[hf + 1],
				    j->target.file_lo[tf], j->target.file_lo[tf + 1] };
}

/* a rare key: every pair of it is in the sample */
static int all_pairs(const struct run *r)
{
	return (int64_t)(r->h1 - r->h0) * (int64_t)(r->t1 - r->t0) <= NTP_JOIN_EST_ALL_PAIRS;
}

/* pass 1's rule: all pairs of a rare key, a few host occurrences spread over a hot one */
static int sampled(const struct run *r, const struct ntp_jkey *hk)
{
	int64_t nh = (int64_t)(r->h1 - r->h0);
	int64_t every = (nh + NTP_JOIN_EST_HOT_SAMPLES - 1) / NTP_JOIN_EST_HOT_SAMPLES;

	return all_pairs(r) || (int64_t)(hk->occ - 1) % every == 0;
}

/*
 * Walks the sample, putting its first cap intervals in iv (may be NULL)
 * and counting them all.  stride > 1 keeps every
 * stride-th sampled host occurrence, to bound the sample of a large run.
 * narrow > 0: a hot key's host occurrence meets only the target
 * occurrences near its own place in the run (its occurrence number scaled
 * to the target's count, +- count / narrow): see ntp_join__sample.
 */
static int walk_sample(const struct ntp_join *j, int p, size_t stride, int narrow,
		       struct ntp_join_iv *iv, size_t cap, size_t *n, size_t *rows, size_t *hot)
{
	size_t hi, ti, k = 0;
	struct run r;

	struct span c = whole(j, p);

	*n = 0;
	*rows = 0;
	*hot = 0;
	hi = c.h0;
	ti = c.t0;
	while (next_run(j, &c, &hi, &ti, &r)) {
		for (size_t h = r.h0; h < r.h1; h++) {
			const struct ntp_jhost *hr;
			size_t t0, t1;

			if (!sampled(&r, &j->host.order[h]))
				continue;
			if (k++ % stride)
				continue;
			(*rows)++;
			*hot += !all_pairs(&r);
			hr = hrow(j, (uint32_t)h);
			t0 = r.t0;
			t1 = r.t1;
			if (narrow && !all_pairs(&r)) {
				size_t nt = r.t1 - r.t0, w = nt / (size_t)narrow + 8;
				size_t at = r.t0 + (size_t)((uint64_t)(j->host.order[h].occ - 1) * nt /
							    (r.h1 - r.h0));

				t0 = at > r.t0 + w ? at - w : r.t0;
				t1 = at + w < r.t1 ? at + w : r.t1;
			}
			for (size_t t = t0; t < t1; t++) {
				const struct ntp_jtarget *tr = trow(j, (uint32_t)t);

				if (late(j, p, tr) - hr->done > tr->recv - hr->queue)
					continue;
				/* past cap it only counts: the caller then walks again, sparser */
				if (iv && *n < cap)
					ntp_join__interval(j, p, (uint32_t)h, (uint32_t)t, &iv[*n]);
				(*n)++;
			}
		}
	}
	return 0;
}

/*
 * Pass 1's sample of pair p: at most NTP_JOIN_EST_MAX_ROWS host
 * occurrences and NTP_JOIN_EST_MAX_IV intervals (a stride over the sampled
 * occurrences beyond).  With narrow 0, a sampled occurrence of a hot key
 * meets every target occurrence of its key: with keys repeating ten
 * thousand times, the few occurrences that fit in the bound carry too few
 * true pairs for the estimate's grid to find among the false ones.  Then
 * narrow > 0 pairs it only with the target occurrences near its own place
 * in the run, where its true record is when both sides recorded about the
 * same span: many more occurrences fit, and their true pairs with them.
 */
int ntp_join__sample(struct ntp_join *j, int p, int narrow, struct ntp_join_iv **ivp,
		     size_t *np, size_t *rowsp, size_t *hotp)
{
	size_t n, rows, hot, stride = 1;
	/* room for the most a sample may hold: the walk that fits is the one that fills it */
	struct ntp_join_iv *iv = malloc(NTP_JOIN_EST_MAX_IV * sizeof(*iv)), *fit;

	if (!iv)
		return ntp_join__nomem();
	/*
	 * The first walk only counts: a large pair's sample does not fit whole,
	 * and the intervals made for its first cap would be made for nothing
	 * (at a million commands a side, half a million of them).
	 * A sample that fits is then made by a second walk, of a small pair.
	 */
	walk_sample(j, p, 1, narrow, NULL, 0, &n, &rows, &hot);
	if (n <= NTP_JOIN_EST_MAX_IV && rows <= NTP_JOIN_EST_MAX_ROWS)
		walk_sample(j, p, 1, narrow, iv, NTP_JOIN_EST_MAX_IV, &n, &rows, &hot);
	while (n > NTP_JOIN_EST_MAX_IV || rows > NTP_JOIN_EST_MAX_ROWS) {
		size_t s1 = (n + NTP_JOIN_EST_MAX_IV - 1) / NTP_JOIN_EST_MAX_IV;
		size_t s2 = (rows + NTP_JOIN_EST_MAX_ROWS - 1) / NTP_JOIN_EST_MAX_ROWS;

		/* the larger of the two ratios, until both fit */
		stride *= s1 > s2 ? s1 : s2;
		walk_sample(j, p, stride, narrow, iv, NTP_JOIN_EST_MAX_IV, &n, &rows, &hot);
	}
	/* the sample's own size: the rest of the room is given back */
	fit = realloc(iv, (n ? n : 1) * sizeof(*iv));
	*ivp = fit ? fit : iv;
	*np = n;
	*rowsp = rows;
	*hotp = hot;
	return 0;
}

/* the first target of [t0, t1) (sorted by t_recv) whose t_recv >= x */
static size_t lower_bound(const struct ntp_join *j, size_t t0, size_t t1, double x)
{
	while (t0 < t1) {
		size_t mid = t0 + (t1 - t0) / 2;

		if ((double)trow(j, (uint32_t)mid)->recv < x)
			t0 = mid + 1;
		else
			t1 = mid;
	}
	return t0;
}

int ntp_join__candidates(struct ntp_join *j, int p, const struct ntp_join_fit *fit, double tol,
			 ntp_jcand_fn fn, void *ctx)
{
	const int64_t base = fit->base;
	const struct span c = whole(j, p);
	size_t hi = c.h0, ti = c.t0;
	struct run r;
	int err;

	while (next_run(j, &c, &hi, &ti, &r)) {
		int64_t maxres = 0;

		/* t_sent >= the low end bounds t_recv by the run's longest residence */
		for (size_t t = r.t0; t < r.t1; t++) {
			const struct ntp_jtarget *tr = trow(j, (uint32_t)t);

			if (t == r.t0 || tr->sent - tr->recv > maxres)
				maxres = tr->sent - tr->recv;
		}
		for (size_t h = r.h0; h < r.h1; h++) {
			const struct ntp_jhost *hr = hrow(j, (uint32_t)h);
			double e = fit->a + fit->b * (double)(hr->queue - fit->t0);
			double low = (double)(hr->queue + base) + e - tol;
			double high = (double)(hr->done + base) + e + tol;

			for (size_t t = lower_bound(j, r.t0, r.t1, low - (double)maxres); t < r.t1;
			     t++) {
				const struct ntp_jtarget *tr = trow(j, (uint32_t)t);
				int64_t in, out;
				int ok;

				if ((double)tr->recv > high)
					break;
				if ((double)tr->sent < low)
					continue;
				in = tr->recv - hr->queue - base;
				out = late(j, p, tr) - hr->done - base;
				ok = (double)in + tol >= e && (double)out - tol <= e;
				err = fn(ctx, p, (uint32_t)h, (uint32_t)t, ok,
					 fabs((double)(in + out) / 2.0 - e));
				if (err)
					return err;
			}
		}
	}
	return 0;
}
