/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offset and drift estimate of the join (ntprof-design(7), JOINING),
 * usable on its own: the line that the most candidate pairs' offset
 * intervals agree with.
 */
#ifndef NTP_JOIN_EST_H
#define NTP_JOIN_EST_H

#include <stddef.h>
#include <stdint.h>

/* one candidate pair: host time and the offset interval [lo, hi] it allows */
struct ntp_join_iv {
	int64_t t, lo, hi;
};

struct ntp_join_fit {
	int64_t t0;		/* centre of the host times */
	int64_t base;		/* keeps the doubles small: offsets near 1e16 ns */
	double a, b;		/* o(t) = base + a + b (t - t0) */
	double tol;		/* slack + how far agreeing intervals miss the line */
	double spread;		/* median width of the agreeing intervals */
	int64_t support;	/* intervals within tol of the line */
};

/*
 * The grid of the estimate's first step (lib/join/join_est.c) looks at a
 * stride sample of at most this many intervals.  Pass 1's candidates may be
 * mostly false pairs (hot keys), so it keeps many true ones among them; pass
 * 2's are the pairs pass 1 admitted, nearly all true, and its grid only
 * seeds the exact fit over all of them that follows (which searches every
 * drift, not only the grid's neighbourhood), so a smaller sample finds the
 * same line in an eighth of the time.
 */
#define NTP_JOIN_GRID_IV_MANY_FALSE 65536
#define NTP_JOIN_GRID_IV_FEW_FALSE 8192

/*
 * The line satisfied by the most intervals, |b| <= max_drift, its grid on
 * at most grid_iv of them (at least 1).  Returns 0, -ENOENT when n == 0,
 * or -ENOMEM.
 */
int ntp_join__estimate(const struct ntp_join_iv *iv, size_t n, double max_drift,
		       int64_t slack_ns, size_t grid_iv, struct ntp_join_fit *fit);

/*
 * No estimate: the line o(t) = 0 of one clock on both sides (base, a, b
 * all 0, tol = slack_ns), with the support and spread of iv[0..n) under
 * it.  n may be 0.  Returns 0 or -ENOMEM.
 */
int ntp_join__fit_zero(const struct ntp_join_iv *iv, size_t n, int64_t slack_ns,
		       struct ntp_join_fit *fit);

#endif
