// SPDX-License-Identifier: GPL-2.0
/* The diagnosis's rules (diag_rules.h), each with its threshold. */
#include <math.h>
#include <string.h>

#include "lib/diag/diag_rules.h"

const struct ntp_diag_rule ntp_diag_rules[NTP_DIAG_NCAUSES] = {
	[NTP_DIAG_INSUFFICIENT] = { NTP_DIAG_INSUFFICIENT, "insufficient_evidence",
		"insufficient evidence",
		"fewer commands than the lowest listed percentile needs before its change is tested "
		"(its minimum n in the statistics table)" },
	[NTP_DIAG_CLOCK] = { NTP_DIAG_CLOCK, "clock_doubt", "clock doubt",
		"joined: the clocks not estimated, |drift| >= 400 ppm, >= 1% of the commands with a "
		"stage below 0, the join's tolerance >= 25% of the network mean (and >= 10 us), or >= 10% "
		"of each side's commands unpaired (the clocks off one line)" },
	[NTP_DIAG_ERRORS] = { NTP_DIAG_ERRORS, "errors_or_retries", "errors or retries",
		"a command completed with a non-zero status, or a controller reset while recording" },
	[NTP_DIAG_SATURATED] = { NTP_DIAG_SATURATED, "saturated_queue", "saturated queue",
		"a host queue's commands in flight >= 90% of its depth, or >= 50% with the host "
		"block layer dominating (commands wait for a tag); or storage dominates and the "
		"backend's in flight >= 90% of its depth" },
	[NTP_DIAG_STARVED] = { NTP_DIAG_STARVED, "starved_queue", "starved queue",
		">= 8 commands in flight on one host queue, below its depth, submitted from >= 2 "
		"processes: one io_work serves them all" },
	[NTP_DIAG_DEFERRED] = { NTP_DIAG_DEFERRED, "deferred_send", "deferred send",
		"the host driver dominates, >= 50% of the sends deferred to io_work, and their "
		"delay >= 2x the inline sends' (>= 50% of the driver's mean without 10 inline)" },
	[NTP_DIAG_NETWORK] = { NTP_DIAG_NETWORK, "slow_or_lossy_network", "slow or lossy network",
		"joined: the network dominates, and its median >= 500 us (slow) or its tail's mean >= "
		"10x its median (lossy)" },
	[NTP_DIAG_BACKEND] = { NTP_DIAG_BACKEND, "backend_time", "backend time",
		"storage dominates and its queue is not saturated" },
	[NTP_DIAG_NONE] = { NTP_DIAG_NONE, "none", "no bottleneck beyond the device's own time",
		"no rule above holds" },
};

/* the part of the path a stage's time is spent in; -1 for the end-to-end and residence */
static int ntp_diag__part(enum ntp_stage st)
{
	switch (st) {
	case NTP_STAGE_BLOCK:
		return NTP_DIAG_PART_HOST_BLOCK;
	case NTP_STAGE_DRIVER:
	case NTP_STAGE_HOST_TX:
	case NTP_STAGE_R2T_HOST:
	case NTP_STAGE_HOST_RX:
		return NTP_DIAG_PART_HOST_DRIVER;
	case NTP_STAGE_NETWORK_STAR:
	case NTP_STAGE_NETWORK:
	case NTP_STAGE_R2T_WAIT:
	case NTP_STAGE_READ_WAIT:
		return NTP_DIAG_PART_NETWORK;
	case NTP_STAGE_TARGET_DRIVER:
	case NTP_STAGE_TARGET_RX:
	case NTP_STAGE_TARGET_TX:
		return NTP_DIAG_PART_TARGET_DRIVER;
	case NTP_STAGE_STORAGE:
		return NTP_DIAG_PART_STORAGE;
	default:
		return -1;
	}
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

/* the share of part p in e's tail and mean, % (NAN without one) */
static double ntp_diag__part_pct(const struct ntp_diag_evidence *e, int part, bool tail)
{
	double sum = 0;

	if (tail && !e->tail_n)
		return NAN;
	for (int s = 0; s < e->nstages; s++)
		if (ntp_diag__part(e->stage[s]) == part)
			sum += tail ? e->tail_ns[s] : e->mean_ns[s];
	return pct(sum, tail ? e->e2e_tail_ns : e->e2e_mean_ns);
}

static double part_mean_ns(const struct ntp_diag_evidence *e, int part)
{
	double sum = 0;

	for (int s = 0; s < e->nstages; s++)
		if (ntp_diag__part(e->stage[s]) == part)
			sum += e->mean_ns[s];
	return sum;
}

/* part dominates the tail or the mean */
static bool dominates(const struct ntp_diag_evidence *e, int part)
{
	return ntp_diag__part_pct(e, part, true) >= NTP_DIAG_DOMINANT_PCT ||
	       ntp_diag__part_pct(e, part, false) >= NTP_DIAG_DOMINANT_PCT;
}

static bool full(const struct ntp_diag_queue *q)
{
	return q->known && q->depth > 0 && q->inflight >= NTP_DIAG_SATURATED_FULL * (double)q->depth;
}

/*
 * The host queue's tags all taken: its commands in flight from queued to
 * the driver to done undercount the tags held (a tag is taken before the
 * driver sees the command and freed after), so with the block layer, where
 * a command waits for a tag, dominating, half the depth is enough
 */
static bool host_full(const struct ntp_diag_evidence *e)
{
	const struct ntp_diag_queue *q = &e->host_queue;

	return full(q) || (q->known && q->depth > 0 &&
			   q->inflight >= NTP_DIAG_TAG_WAIT_FULL * (double)q->depth &&
			   dominates(e, NTP_DIAG_PART_HOST_BLOCK));
}

/* NULL when the join's clock is above doubt, else which evidence doubts it */
static const char *clock_doubt(const struct ntp_diag_evidence *e)
{
	double net = part_mean_ns(e, NTP_DIAG_PART_NETWORK);

	if (!e->joined)
		return NULL;
	if (!e->clock_estimated)
		return "clocks not estimated";
	if (fabs(e->drift) >= NTP_DIAG_CLOCK_DRIFT)
		return "drift beyond a real clock's";
	for (int s = 0; s < e->nstages; s++)
		if (e->n && 100.0 * (double)e->negative[s] / (double)e->n >= NTP_DIAG_CLOCK_NEGATIVE_PCT)
			return NTP_DIAG_WHY_NEGATIVE;
	if (e->tol_ns >= NTP_DIAG_CLOCK_TOL_MIN_NS && e->tol_ns >= NTP_DIAG_CLOCK_TOL_PCT / 100 * net)
		return "a loose estimate";
	if (e->unpaired_pct >= NTP_DIAG_CLOCK_UNPAIRED_PCT)
		return NTP_DIAG_WHY_UNPAIRED;
	return NULL;
}

static bool starved(const struct ntp_diag_evidence *e)
{
	const struct ntp_diag_queue *q = &e->host_queue;

	return q->known && q->inflight >= NTP_DIAG_STARVED_INFLIGHT &&
	       q->submitters >= NTP_DIAG_STARVED_SUBMITTERS && !host_full(e);
}

static bool deferred(const struct ntp_diag_evidence *e)
{
	uint64_t all = e->deferred + e->inline_sends;

	if (!e->sends_known || !all || !dominates(e, NTP_DIAG_PART_HOST_DRIVER) ||
	    100.0 * (double)e->deferred / (double)all < NTP_DIAG_DEFERRED_SHARE_PCT)
		return false;
	if (e->inline_sends >= NTP_DIAG_DEFERRED_MIN_INLINE)
		return e->deferred_delay_ns >= NTP_DIAG_DEFERRED_DELAY * e->inline_delay_ns;
	return e->deferred_delay_ns >= 0.5 * part_mean_ns(e, NTP_DIAG_PART_HOST_DRIVER);
}

/* the network stage's index in e; -1 */
static int network_stage(const struct ntp_diag_evidence *e)
{
	for (int i = 0; i < e->nstages; i++)
		if (e->stage[i] == NTP_STAGE_NETWORK)
			return i;
	return -1;
}

/* the network's median at or above a slow fabric's */
static bool slow_network(const struct ntp_diag_evidence *e)
{
	return network_stage(e) >= 0 && (double)e->network_p50_ns >= NTP_DIAG_SLOW_NETWORK_NS;
}

/* the network's tail far above its median: retransmissions */
static bool lossy_network(const struct ntp_diag_evidence *e)
{
	int s = network_stage(e);

	return s >= 0 && e->tail_n && e->network_p50_ns > 0 &&
	       e->tail_ns[s] >= NTP_DIAG_LOSSY_TAIL * (double)e->network_p50_ns;
}

/* the stage with the largest share of the mean (tail: of the tail) */
static int largest(const struct ntp_diag_evidence *e, bool tail, double *share)
{
	int best = -1;

	*share = NAN;
	if (tail && !e->tail_n)
		return -1;
	for (int s = 0; s < e->nstages; s++) {
		double v = tail ? e->tail_ns[s] : e->mean_ns[s];

		if (best < 0 || v > (tail ? e->tail_ns[best] : e->mean_ns[best]))
			best = s;
	}
	if (best >= 0)
		*share = pct(tail ? e->tail_ns[best] : e->mean_ns[best],
			     tail ? e->e2e_tail_ns : e->e2e_mean_ns);
	return best;
}

void ntp_diag__decide(const struct ntp_diag_evidence *e, struct ntp_diag_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->mean_stage = largest(e, false, &v->mean_pct);
	v->tail_stage = largest(e, true, &v->tail_pct);
	v->part = -1;
	if (!e->tail_stat) {
		v->cause = NTP_DIAG_INSUFFICIENT;
		v->holds = 1u << NTP_DIAG_INSUFFICIENT;
		return;
	}
	v->why = clock_doubt(e);
	if (v->why)
		v->holds |= 1u << NTP_DIAG_CLOCK;
	if (e->errors || e->resets > 0)
		v->holds |= 1u << NTP_DIAG_ERRORS;
	if (host_full(e) || (full(&e->backend) && dominates(e, NTP_DIAG_PART_STORAGE)))
		v->holds |= 1u << NTP_DIAG_SATURATED;
	if (starved(e))
		v->holds |= 1u << NTP_DIAG_STARVED;
	if (deferred(e))
		v->holds |= 1u << NTP_DIAG_DEFERRED;
	/* a host recording alone cannot tell the network from the target */
	if (!e->host_alone && !v->why && dominates(e, NTP_DIAG_PART_NETWORK) &&
	    (slow_network(e) || lossy_network(e)))
		v->holds |= 1u << NTP_DIAG_NETWORK;
	if (dominates(e, NTP_DIAG_PART_STORAGE) && !full(&e->backend))
		v->holds |= 1u << NTP_DIAG_BACKEND;
	v->holds |= 1u << NTP_DIAG_NONE;
	for (v->cause = NTP_DIAG_CLOCK; !(v->holds & 1u << v->cause); v->cause++)
		;
	switch (v->cause) {
	case NTP_DIAG_SATURATED:
		v->part = host_full(e) ? NTP_DIAG_PART_HOST_DRIVER : NTP_DIAG_PART_STORAGE;
		break;
	case NTP_DIAG_STARVED:
	case NTP_DIAG_DEFERRED:
		v->part = NTP_DIAG_PART_HOST_DRIVER;
		break;
	case NTP_DIAG_NETWORK:
		v->part = NTP_DIAG_PART_NETWORK;
		v->lossy = lossy_network(e);
		break;
	case NTP_DIAG_BACKEND:
		v->part = NTP_DIAG_PART_STORAGE;
		break;
	default:
		break;
	}
}
