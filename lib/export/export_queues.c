// SPDX-License-Identifier: GPL-2.0
/* Queues, their lanes and in-flight counters (lib/export/export_queues.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export_queues.h"

#define NBUCKETS 256

struct ntp_xqueue {
	struct ntp_xqueue *next;	/* hash chain */
	uint64_t machine;
	char *name;
	uint64_t group, inflight;	/* track uuids */
	uint64_t *lane_end, *lane_uuid;
	int nlanes;
	uint64_t *ends;			/* min-heap: ends of the commands in flight */
	int nends, capends;
	int64_t count;
};

struct ntp_xqueues {
	struct ntp_pftrace *t;
	uint64_t *next_uuid;
	struct ntp_xqueue *bucket[NBUCKETS];
};

struct ntp_xqueues *ntp_xqueues__new(struct ntp_pftrace *t, uint64_t *next_uuid)
{
	struct ntp_xqueues *qs = calloc(1, sizeof(*qs));

	if (qs) {
		qs->t = t;
		qs->next_uuid = next_uuid;
	}
	return qs;
}

static unsigned int hash(uint64_t machine, const char *name)
{
	uint64_t h = machine * 0x9E3779B97F4A7C15ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001B3ull;
	return (unsigned int)(h >> 32) % NBUCKETS;
}

static void heap_push(struct ntp_xqueue *q, uint64_t v)
{
	int i = q->nends++;

	while (i > 0 && q->ends[(i - 1) / 2] > v) {
		q->ends[i] = q->ends[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->ends[i] = v;
}

static uint64_t heap_pop(struct ntp_xqueue *q)
{
	uint64_t top = q->ends[0], last = q->ends[--q->nends];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= q->nends)
			break;
		if (c + 1 < q->nends && q->ends[c + 1] < q->ends[c])
			c++;
		if (q->ends[c] >= last)
			break;
		q->ends[i] = q->ends[c];
		i = c;
	}
	if (q->nends)
		q->ends[i] = last;
	return top;
}

/* the in-flight counter falls at every end up to `until` */
static void retire(struct ntp_xqueues *qs, struct ntp_xqueue *q, uint64_t until)
{
	while (q->nends && q->ends[0] <= until) {
		uint64_t ts = heap_pop(q);

		ntp_pftrace__counter(qs->t, ts, q->inflight, (double)--q->count);
	}
}

static void queue_free(struct ntp_xqueues *qs, struct ntp_xqueue *q)
{
	retire(qs, q, UINT64_MAX);
	free(q->name);
	free(q->lane_end);
	free(q->lane_uuid);
	free(q->ends);
	free(q);
}

void ntp_xqueues__delete(struct ntp_xqueues *qs)
{
	if (!qs)
		return;
	for (int b = 0; b < NBUCKETS; b++) {
		struct ntp_xqueue *q = qs->bucket[b], *next;

		for (; q; q = next) {
			next = q->next;
			queue_free(qs, q);
		}
	}
	free(qs);
}

struct ntp_xqueue *ntp_xqueues__get(struct ntp_xqueues *qs, uint64_t machine, const char *name)
{
	unsigned int b = hash(machine, name);
	struct ntp_xqueue *q;
	char label[160];

	for (q = qs->bucket[b]; q; q = q->next)
		if (q->machine == machine && !strcmp(q->name, name))
			return q;
	q = calloc(1, sizeof(*q));
	if (!q || !(q->name = strdup(name))) {
		free(q);
		return NULL;
	}
	q->machine = machine;
	q->group = (*qs->next_uuid)++;
	q->inflight = (*qs->next_uuid)++;
	q->next = qs->bucket[b];
	qs->bucket[b] = q;
	ntp_pftrace__track(qs->t, q->group, machine, name);
	snprintf(label, sizeof(label), "%s sampled in flight", name);
	ntp_pftrace__counter_track(qs->t, q->inflight, machine, label, NTP_PF_UNIT_COUNT);
	return q;
}

static int grow(void *pp, int n)
{
	void *p = realloc(*(void **)pp, (size_t)(n + 1) * sizeof(uint64_t));

	if (!p)
		return -1;
	*(void **)pp = p;
	return 0;
}

uint64_t ntp_xqueue__place(struct ntp_xqueues *qs, struct ntp_xqueue *q, uint64_t start,
			   uint64_t end)
{
	char label[200];
	int k;

	retire(qs, q, start);
	if (q->nends == q->capends) {
		int cap = q->capends ? 2 * q->capends : 16;
		uint64_t *p = realloc(q->ends, (size_t)cap * sizeof(*p));

		if (!p)
			return 0;
		q->ends = p;
		q->capends = cap;
	}
	heap_push(q, end);
	ntp_pftrace__counter(qs->t, start, q->inflight, (double)++q->count);

	for (k = 0; k < q->nlanes; k++)
		if (q->lane_end[k] <= start)
			break;
	if (k == q->nlanes) {
		if (grow(&q->lane_end, k) || grow(&q->lane_uuid, k))
			return 0;
		q->lane_uuid[k] = (*qs->next_uuid)++;
		q->nlanes++;
		snprintf(label, sizeof(label), "%s #%d", q->name, k);
		ntp_pftrace__track(qs->t, q->lane_uuid[k], q->group, label);
	}
	q->lane_end[k] = end;
	return q->lane_uuid[k];
}
