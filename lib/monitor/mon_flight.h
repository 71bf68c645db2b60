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

struct ntp_flight {
	uint64_t window_ns;
	struct ntp_flight_ring host, target;
};

/* 0 or -ENOMEM; max: records each side keeps at most (>= 1) */
int ntp_flight__init(struct ntp_flight *f, uint64_t window_ns, size_t max);
void ntp_flight__free(struct ntp_flight *f);
void ntp_flight__add_host(struct ntp_flight *f, const struct ntp_host_event *e);
void ntp_flight__add_target(struct ntp_flight *f, const struct ntp_target_event *e);
/* out with every record completed before now_ns - window_ns */
void ntp_flight__trim(struct ntp_flight *f, uint64_t now_ns);
const struct ntp_host_event *ntp_flight__host(const struct ntp_flight *f, size_t i);
const struct ntp_target_event *ntp_flight__target(const struct ntp_flight *f, size_t i);

#endif
