/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's window (ntprof-monitor(1), --flight): the sampled
 * commands of the last window_ns, each side's in a ring of at most max
 * records, oldest first.  A command is in the window while its completion
 * (the host's h_done, the target's t_sent, else its t_cmpl) is at most
 * window_ns old; the ring's bound pushes the oldest out first, counted in
 * dropped.  Memory is allocated once, at init: the window costs at most
 * max x (sizeof(struct ntp_host_event) + sizeof(struct ntp_target_event)).
 *
 *	ntp_flight__init()         both rings, empty
 *	ntp_flight__add_host/_target()  one record, the oldest pushed out when full
 *	ntp_flight__trim()         the records older than the window out
 *	ntp_flight__host/_target() the i-th record kept, oldest first
 *	ntp_flight__tick()         each side's counters as read now, for the
 *	                           snapshot's intervals rows (record's, a second each)
 */
#ifndef NTP_MON_FLIGHT_H
#define NTP_MON_FLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"

struct ntp_flight_ring {
	unsigned char *buf;
	size_t esz, cap;          /* record size, capacity in records */
	size_t head, n;           /* the oldest record's slot, records held */
	size_t done_off;          /* offset of the record's completion stamp */
	size_t done_alt_off;      /* the stamp used when that one is 0 */
	uint64_t added, dropped;  /* records taken; pushed out by the bound, not by age */
};

/* the collectors' counters (bpf/ntp_events.h) at t_ns, cumulative, by side (host 0, target 1) */
struct ntp_flight_tick {
	uint64_t t_ns;
	uint64_t seen[2], sampled[2], lost_ringbuf[2], lost_map[2];
};

struct ntp_flight {
	uint64_t window_ns;
	struct ntp_flight_ring host, target;
	/* the ticks since the last one at or before the window's start, oldest first */
	struct ntp_flight_tick *tick;
	size_t tick_head, ntick, tick_cap;
};

/* 0 or -ENOMEM; max: records each side keeps at most (>= 1) */
int ntp_flight__init(struct ntp_flight *f, uint64_t window_ns, size_t max);
void ntp_flight__free(struct ntp_flight *f);
void ntp_flight__add_host(struct ntp_flight *f, const struct ntp_host_event *e);
void ntp_flight__add_target(struct ntp_flight *f, const struct ntp_target_event *e);
/* the counters at t->t_ns (later than the last tick's); the oldest go when the ring is full */
void ntp_flight__tick(struct ntp_flight *f, const struct ntp_flight_tick *t);
/* the i-th tick kept, oldest first; NULL past the last */
const struct ntp_flight_tick *ntp_flight__tick_at(const struct ntp_flight *f, size_t i);
/*
 * out with every record completed before now_ns - window_ns, and every
 * tick before the last one at or before then
 */
void ntp_flight__trim(struct ntp_flight *f, uint64_t now_ns);
const struct ntp_host_event *ntp_flight__host(const struct ntp_flight *f, size_t i);
const struct ntp_target_event *ntp_flight__target(const struct ntp_flight *f, size_t i);

#endif
