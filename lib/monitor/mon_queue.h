/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's per-queue gauges (ntprof-monitor(1), METRICS): of each
 * hardware queue, the mean of the driver tags in use that its sampled
 * commands found at setup over the last NTP_MON_QUEUE_WINDOW_S seconds, and
 * of each controller the imbalance of its queues, the largest mean over the
 * mean of its queues' means.
 *
 * The kernel adds the readings up (bpf/ntp_mon.h, struct ntp_mon_queue):
 * user space reads that map once a second into a ring of the last
 * NTP_MON_QUEUE_WINDOW_S readings, and a scrape takes the difference
 * between the map as it is then and the ring's oldest, so that a gauge
 * moves with the load, not with the time since the start, and any number
 * of scrapers see the same values.  A queue with no reading in the window
 * has no gauge (it had fewer sampled commands than one reading takes).
 */
#ifndef NTP_MON_QUEUE_H
#define NTP_MON_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_mon.h"

/* the gauges' window: the readings of the last this many seconds (and the current one's part) */
#define NTP_MON_QUEUE_WINDOW_S 10

/* the map read once: its queues sorted by (controller, qid), each cumulative */
struct ntp_mon_qread {
	struct ntp_mon_qrow {
		struct ntp_mon_qkey key;
		uint64_t busy_sum, reads;
	} *r;
	size_t n, cap;
};

/* one queue's gauge */
struct ntp_mon_qgauge {
	uint32_t ctrl, qid;
	double in_flight;       /* the mean of its readings in the window */
	uint64_t reads;         /* how many */
};

/* the gauges of a scrape, sorted by (controller, qid) */
struct ntp_mon_qgauges {
	struct ntp_mon_qgauge *g;
	size_t n, cap;
	uint64_t queues;        /* the queues the kernel's map holds (ntprof_queue_series) */
};

struct ntp_mon_queues {
	struct ntp_mon_qread ring[NTP_MON_QUEUE_WINDOW_S];
	unsigned int next;      /* the slot the next tick fills */
	struct ntp_mon_qread now;       /* a scrape's read */
	struct ntp_mon_qgauges gauges;
};

struct bpf_map;

void ntp_mon_qread__free(struct ntp_mon_qread *r);
/* a row for key (zeroed) at the end of r; NULL when out of memory */
struct ntp_mon_qrow *ntp_mon_qread__add(struct ntp_mon_qread *r, const struct ntp_mon_qkey *key);
/* r in (controller, qid) order */
void ntp_mon_qread__sort(struct ntp_mon_qread *r);
/* the collector's `queues` map into r (emptied first), sorted; 0 or -errno */
int ntp_mon_qread__map(struct ntp_mon_qread *r, struct bpf_map *queues);

/*
 * The gauges from then (the window's oldest read) to now, both sorted,
 * into g (emptied first): each queue of now with readings since then; 0 or
 * -ENOMEM
 */
int ntp_mon_qgauges__diff(struct ntp_mon_qgauges *g, const struct ntp_mon_qread *then,
			  const struct ntp_mon_qread *now);
/*
 * The imbalance of the controller whose gauges are g[0..n): the largest
 * in_flight over their mean; 1 when even, n when one queue holds every
 * command in flight (n > 0)
 */
double ntp_mon_qgauges__imbalance(const struct ntp_mon_qgauge *g, size_t n);
void ntp_mon_qgauges__free(struct ntp_mon_qgauges *g);

/* once a second: the map's read into the ring (its oldest replaced); 0 or -errno */
int ntp_mon_queues__tick(struct ntp_mon_queues *q, struct bpf_map *queues);
/* a scrape's gauges: the map now against the ring's oldest, into q->gauges; 0 or -errno */
int ntp_mon_queues__scrape(struct ntp_mon_queues *q, struct bpf_map *queues);
void ntp_mon_queues__free(struct ntp_mon_queues *q);

#endif
