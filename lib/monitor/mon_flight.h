/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's window (ntprof-monitor(1), --flight): of the sampled
 * commands completed in the last window_ns, the slowest max of each
 * interval, each side's apart.  A command belongs to the interval of its
 * completion (the host's h_done, the target's t_sent, else its t_cmpl) and
 * ranks by its end-to-end time (the host's h_done - h_start, the target's
 * completion - t_recv).  Each interval is a min-heap of at most max records:
 * a command slower than the interval's fastest kept takes its place, any
 * other is counted in dropped and forgotten.  The memory, allocated once at
 * init, is nslot x max records a side whatever the rate:
 * nslot = ceil(window_ns / interval_ns) + 1 (the window and the interval
 * being filled).
 *
 *	ntp_flight__init()         both sides, empty
 *	ntp_flight__add_host/_target()  one record, kept if among its interval's slowest
 *	ntp_flight__trim()         the records older than the window out
 *	ntp_flight__host/_target() the i-th record kept, oldest interval first
 *	ntp_flight__next_host/_target()  ... each in turn
 *	ntp_flight__tick()         each side's counters as read now, for the
 *	                           snapshot's intervals rows (record's, a second each)
 *	ntp_flight__floor()        the floor the kernel may filter the side's stream by
 *
 * Each slot's records and its interval are plain memory that
 * lib/monitor/mon_flight_file.h persists: slot s's records are
 * buf + s x max x esz, n[s] of them, of interval iv[s] (0: none).
 */
#ifndef NTP_MON_FLIGHT_H
#define NTP_MON_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "bpf/ntp_mon.h"

/*
 * the flight recorder's interval: the slowest --flight-commands of each are
 * kept; the kernel's floor (bpf/ntp_mon.h) counts in the same
 */
#define NTP_FLIGHT_INTERVAL_NS NTP_MON_FLIGHT_INTERVAL_NS

struct ntp_flight_side {
	unsigned char *buf;       /* nslot x cap records */
	size_t esz, cap;          /* record size, records per interval at most */
	size_t nslot;
	uint32_t *n;              /* by slot: records held */
	uint64_t *iv;             /* by slot: its interval's number + 1; 0: empty */
	bool *dirty;              /* by slot: changed since mon_flight_file last wrote it */
	size_t held;              /* records held in all */
	size_t start_off, done_off, done_alt_off;     /* the record's stamps */
	uint64_t added;           /* records offered */
	uint64_t dropped;         /* ... and not kept: not among their interval's slowest */
	uint64_t late;            /* ... and not kept: their interval had left the window */
	uint64_t aged;            /* kept, then out: their interval left the window */
	/* not offered: kept off the ring buffer by the floor (NTP_CNT_FLIGHT_FILTERED, set by the caller) */
	uint64_t filtered;
};

/* the collectors' counters (bpf/ntp_events.h) at t_ns, cumulative, by side (host 0, target 1) */
struct ntp_flight_tick {
	uint64_t t_ns;
	uint64_t seen[2], sampled[2], lost_ringbuf[2], lost_map[2];
};

struct ntp_flight {
	uint64_t window_ns, interval_ns;
	struct ntp_flight_side host, target;
	/* the ticks since the last one at or before the window's start, oldest first */
	struct ntp_flight_tick *tick;
	size_t tick_head, ntick, tick_cap;
};

/*
 * 0, -EINVAL (no room: max 0, an interval of 0) or -ENOMEM; max: records
 * each side keeps of each interval at most
 */
int ntp_flight__init(struct ntp_flight *f, uint64_t window_ns, uint64_t interval_ns, size_t max);
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
/* the i-th record kept, oldest interval first (in no order within one); NULL past the last */
const struct ntp_host_event *ntp_flight__host(const struct ntp_flight *f, size_t i);
const struct ntp_target_event *ntp_flight__target(const struct ntp_flight *f, size_t i);
/* every record kept, oldest interval first: a cursor zeroed, then next until NULL */
struct ntp_flight_cursor {
	bool started;
	size_t first, k, i;
};
const struct ntp_host_event *ntp_flight__next_host(const struct ntp_flight *f,
						  struct ntp_flight_cursor *c);
const struct ntp_target_event *ntp_flight__next_target(const struct ntp_flight *f,
						      struct ntp_flight_cursor *c);
/*
 * The floor of a side (0 host, 1 target) for the kernel (bpf/ntp_mon.h's
 * ntp_mon_floor_pack): its newest interval's, when that interval's heap is
 * full, the end-to-end time of its fastest kept; else 0 (none).  A command
 * the floor drops, ntp_flight__add_*() would drop too.
 */
uint64_t ntp_flight__floor(const struct ntp_flight *f, int side);
/* records offered but not kept, and those filtered before, both sides (meta flight_dropped) */
uint64_t ntp_flight__dropped(const struct ntp_flight *f);

#endif
