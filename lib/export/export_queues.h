/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queues of an exported trace and their lanes.  Commands of one NVMe
 * queue overlap in time (queue depth > 1), but the slices of one Perfetto
 * track must nest, so each queue is a group of lanes: a command takes the
 * lowest lane that is free at its start.  Fed in start order, that uses as
 * many lanes as the queue ever had sampled commands in flight, and holds
 * nothing per command but its end time while it is in flight.  The same
 * end times drive the queue's in-flight counter.
 */
#ifndef NTP_EXPORT_QUEUES_H
#define NTP_EXPORT_QUEUES_H

#include <stdint.h>

#include "lib/export/export_perfetto.h"

struct ntp_xqueues;
struct ntp_xqueue;

/* uuids come from *next_uuid (shared with the caller's other tracks); NULL on ENOMEM */
struct ntp_xqueues *ntp_xqueues__new(struct ntp_pftrace *t, uint64_t *next_uuid);
/* ends every queue's in-flight count at its last command's end; frees qs */
void ntp_xqueues__delete(struct ntp_xqueues *qs);

/*
 * The queue named `name` of the machine whose track is `machine`: made, with
 * its tracks, on first use.  NULL on ENOMEM.
 */
struct ntp_xqueue *ntp_xqueues__get(struct ntp_xqueues *qs, uint64_t machine, const char *name);

/*
 * A command of q from start to end (ns, start order per queue): counts it in
 * flight and returns the lane track its slices go on; 0 on ENOMEM.
 */
uint64_t ntp_xqueue__place(struct ntp_xqueues *qs, struct ntp_xqueue *q, uint64_t start,
			   uint64_t end);

#endif
