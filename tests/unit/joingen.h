/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generator of host and target recordings with a known truth, for
 * test_join.c (included from it, not built on its own).
 *
 * Commands run on lanes: each (queue, lane) issues one command at a time and
 * owns the command ids cid % QD == lane, so a (cntlid, qid, cid) is never in
 * flight twice, as on a real controller; each lane picks one of two cids, so
 * keys repeat (hot LBAs make them repeat a lot).  The host clock is the
 * reference; the target clock is t = h + o0 + round(d (h - h0)).  Every host
 * point is an integer on the host clock, every target point an integer on
 * the target clock, and each stage is a chosen integer, so the joined
 * stages must come back exactly.  Messages between the machines are mapped
 * so that causality holds to the nanosecond after rounding.
 */
#ifndef NTP_JOINGEN_H
#define NTP_JOINGEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define GEN_QD 4		/* lanes per queue */

struct gen_rng {
	uint64_t s;
};

/* splitmix64: tiny, seedable, good enough for test data */
static uint64_t gen_next(struct gen_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int64_t gen_range(struct gen_rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(gen_next(r) % (uint64_t)(hi - lo + 1));
}

/* true with probability p */
static int gen_chance(struct gen_rng *r, double p)
{
	return (double)(gen_next(r) >> 11) / 9007199254740992.0 < p;
}

struct gen_clock {
	int64_t o0, h0;
	double d;
};

static int64_t gen_to_target(const struct gen_clock *c, int64_t h)
{
	return h + c->o0 + llround(c->d * (double)(h - c->h0));
}

/* the first host instant whose target reading is >= t: a message sent at t arrives after it */
static int64_t gen_to_host(const struct gen_clock *c, int64_t t)
{
	int64_t h = (int64_t)llround(((double)(t - c->o0) + c->d * (double)c->h0) / (1 + c->d));

	while (gen_to_target(c, h) < t)
		h++;
	while (gen_to_target(c, h - 1) >= t)
		h--;
	return h;
}

struct gen_cmd {
	int stream;
	/* host points; 0 = no such point (NULL in host_io) */
	int64_t h_start, h_queue, h_cmd_sent, h_r2t, h_data_sent, h_recv, h_done;
	/* target points; t_r2t 0 = none */
	int64_t t_recv, t_r2t, t_submit, t_cmpl, t_sent;
	int opcode, cid, qid, nsid, cntlid, nlb;
	int64_t slba;
	/* which recording holds it; anomaly: the target row breaks the offset bound */
	int in_host, in_target, anomaly;
	/* the truth */
	int64_t block, driver, tdriver, storage, net;
};

struct gen_stream {
	struct gen_clock clk;
	int cntlid, nsid, queues, per_lane;
	int64_t start;			/* host time of the first command */
	double hot;			/* share of commands on the hot LBAs */
	int nhot;			/* how many hot LBAs */
	double loss_host, loss_target, anomalies;
	int edge;			/* per lane: first/last commands only on the target */
	const char *controller;		/* nvmeX on the host */
};

struct gen_set {
	struct gen_cmd *c;
	int n, cap;
};

static struct gen_cmd *gen_add(struct gen_set *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->c = realloc(s->c, s->cap * sizeof(*s->c));
		if (!s->c)
			abort();
	}
	memset(&s->c[s->n], 0, sizeof(s->c[0]));
	return &s->c[s->n++];
}

/* one command of a lane starting at host time `at`; returns it */
static struct gen_cmd *gen_one(struct gen_set *set, struct gen_rng *r, const struct gen_stream *p,
			       int stream, int qid, int lane, int64_t at)
{
	static const int64_t hot_lba[] = { 0, 8, 4096, 123456 };
	struct gen_cmd *c = gen_add(set);
	const struct gen_clock *k = &p->clk;
	int64_t sent, tA, tC, net1, net2, drv_sub, drv_cmpl, extra = 0;
	int hot = gen_chance(r, p->hot), r2t, incap;

	c->stream = stream;
	c->qid = qid;
	c->cid = lane + GEN_QD * (int)gen_range(r, 0, 1);
	c->nsid = p->nsid;
	c->cntlid = p->cntlid;
	c->opcode = gen_chance(r, 0.6) ? 2 : 1;
	c->nlb = gen_chance(r, 0.7) ? 8 : 256;
	c->slba = hot ? hot_lba[gen_range(r, 0, p->nhot - 1)] : gen_range(r, 0, 1 << 22) * 8;
	r2t = c->opcode == 1 && c->nlb == 256;
	incap = c->opcode == 1 && !r2t;

	c->h_start = at;
	c->block = gen_range(r, 200, 5000);
	c->h_queue = at + c->block;
	drv_sub = gen_range(r, 1000, 8000);
	c->h_cmd_sent = c->h_queue + drv_sub;
	sent = c->h_cmd_sent;
	if (incap) {
		extra = gen_range(r, 100, 2000);
		c->h_data_sent = c->h_cmd_sent + extra;
		sent = c->h_data_sent;
	}
	net1 = gen_range(r, 3000, 40000);
	c->t_recv = gen_to_target(k, sent + net1);
	tA = gen_range(r, 1000, 10000);
	c->net = net1;
	if (r2t) {
		int64_t net_r2t = gen_range(r, 3000, 30000), net_data = gen_range(r, 5000, 60000);
		int64_t tB = gen_range(r, 500, 5000);

		c->t_r2t = c->t_recv + tA;
		c->h_r2t = gen_to_host(k, c->t_r2t) + net_r2t;
		extra = gen_range(r, 1000, 10000);	/* host work between the trips */
		c->h_data_sent = c->h_r2t + extra;
		c->t_submit = gen_to_target(k, c->h_data_sent + net_data) + tB;
		c->net += net_r2t + net_data + tB;
	} else {
		c->t_submit = c->t_recv + tA;
	}
	c->storage = gen_range(r, 10000, 500000);
	c->t_cmpl = c->t_submit + c->storage;
	tC = gen_range(r, 1000, 10000);
	c->t_sent = c->t_cmpl + tC;
	net2 = gen_range(r, 3000, 40000);
	c->h_recv = gen_to_host(k, c->t_sent) + net2;
	drv_cmpl = gen_range(r, 500, 8000);
	c->h_done = c->h_recv + drv_cmpl;
	c->net += net2;

	c->driver = drv_sub + extra + drv_cmpl;
	c->tdriver = tA + tC;
	c->in_host = !gen_chance(r, p->loss_host);
	c->in_target = !gen_chance(r, p->loss_target);
	if (gen_chance(r, p->anomalies)) {
		/* the target's record ends after the host completed: outside the bound */
		c->anomaly = 1;
		c->t_sent = gen_to_target(k, c->h_done) + 50000;
	}
	return c;
}

/* all the commands of one stream (one host controller to one target) */
static void gen_stream(struct gen_set *set, struct gen_rng *r, const struct gen_stream *p, int stream)
{
	int q, lane, i;

	for (q = 1; q <= p->queues; q++) {
		for (lane = 0; lane < GEN_QD; lane++) {
			int64_t at = p->start + gen_range(r, 0, 1000000);

			for (i = 0; i < p->per_lane; i++) {
				struct gen_cmd *c = gen_one(set, r, p, stream, q, lane, at);
				int64_t gap = gen_range(r, 500, 100000);

				if (i < p->edge || i >= p->per_lane - p->edge)
					c->in_host = 0;	/* before the host started, after it stopped */
				if (gen_chance(r, 0.1))
					gap = gen_range(r, 10000000, 400000000);	/* idle */
				if (c->anomaly && gap < 200000)
					gap = 200000;	/* keep it off the next use of its key */
				at = c->h_done + gap;
			}
		}
	}
}

#endif
