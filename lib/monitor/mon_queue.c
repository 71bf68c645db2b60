// SPDX-License-Identifier: GPL-2.0
/* The host's per-queue gauges (lib/monitor/mon_queue.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/monitor/mon_queue.h"

void ntp_mon_qread__free(struct ntp_mon_qread *r)
{
	free(r->r);
	*r = (struct ntp_mon_qread){ 0 };
}

struct ntp_mon_qrow *ntp_mon_qread__add(struct ntp_mon_qread *r, const struct ntp_mon_qkey *key)
{
	struct ntp_mon_qrow *row;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct ntp_mon_qrow *n = realloc(r->r, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->r = n;
		r->cap = cap;
	}
	row = &r->r[r->n++];
	memset(row, 0, sizeof(*row));
	row->key = *key;
	return row;
}

static int cmp_key(const struct ntp_mon_qkey *x, const struct ntp_mon_qkey *y)
{
	if (x->ctrl != y->ctrl)
		return x->ctrl < y->ctrl ? -1 : 1;
	if (x->qid != y->qid)
		return x->qid < y->qid ? -1 : 1;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	return cmp_key(&((const struct ntp_mon_qrow *)a)->key, &((const struct ntp_mon_qrow *)b)->key);
}

void ntp_mon_qread__sort(struct ntp_mon_qread *r)
{
	if (r->n)
		qsort(r->r, r->n, sizeof(*r->r), cmp_row);
}

int ntp_mon_qread__map(struct ntp_mon_qread *r, struct bpf_map *queues)
{
	struct ntp_mon_qkey key, next, *prev = NULL;
	struct ntp_mon_queue v;
	struct ntp_mon_qrow *row;
	int fd = bpf_map__fd(queues);

	r->n = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;       /* never: the kernel keeps its queues */
		row = ntp_mon_qread__add(r, &key);
		if (!row)
			return -ENOMEM;
		row->busy_sum = v.busy_sum;
		row->reads = v.reads;
	}
	ntp_mon_qread__sort(r);
	return 0;
}

int ntp_mon_qgauges__diff(struct ntp_mon_qgauges *g, const struct ntp_mon_qread *then,
			  const struct ntp_mon_qread *now)
{
	size_t i, j = 0;

	g->n = 0;
	for (i = 0; i < now->n; i++) {
		const struct ntp_mon_qrow *r = &now->r[i];
		uint64_t busy = r->busy_sum, reads = r->reads;

		/* both sorted: then's row of the same queue, if it had one */
		while (j < then->n && cmp_key(&then->r[j].key, &r->key) < 0)
			j++;
		if (j < then->n && !cmp_key(&then->r[j].key, &r->key)) {
			busy -= then->r[j].busy_sum;
			reads -= then->r[j].reads;
		}
		if (!reads)
			continue;
		if (g->n == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 16;
			struct ntp_mon_qgauge *n = realloc(g->g, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			g->g = n;
			g->cap = cap;
		}
		g->g[g->n++] = (struct ntp_mon_qgauge){ .ctrl = r->key.ctrl, .qid = r->key.qid,
							 .in_flight = (double)busy / (double)reads,
							 .reads = reads };
	}
	g->queues = now->n;
	return 0;
}

double ntp_mon_qgauges__imbalance(const struct ntp_mon_qgauge *g, size_t n)
{
	double max = 0, sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sum += g[i].in_flight;
		if (g[i].in_flight > max)
			max = g[i].in_flight;
	}
	/* a reading counts its own command: a queue's mean is at least 1 */
	return sum > 0 ? max * (double)n / sum : 1.0;
}

void ntp_mon_qgauges__free(struct ntp_mon_qgauges *g)
{
	free(g->g);
	*g = (struct ntp_mon_qgauges){ 0 };
}

int ntp_mon_queues__tick(struct ntp_mon_queues *q, struct bpf_map *queues)
{
	int err = ntp_mon_qread__map(&q->ring[q->next], queues);

	if (!err)
		q->next = (q->next + 1) % NTP_MON_QUEUE_WINDOW_S;
	return err;
}

int ntp_mon_queues__scrape(struct ntp_mon_queues *q, struct bpf_map *queues)
{
	int err = ntp_mon_qread__map(&q->now, queues);

	/* the slot the next tick replaces: the oldest, or empty (the attach) in the first seconds */
	return err ? err : ntp_mon_qgauges__diff(&q->gauges, &q->ring[q->next], &q->now);
}

void ntp_mon_queues__free(struct ntp_mon_queues *q)
{
	int i;

	for (i = 0; i < NTP_MON_QUEUE_WINDOW_S; i++)
		ntp_mon_qread__free(&q->ring[i]);
	ntp_mon_qread__free(&q->now);
	ntp_mon_qgauges__free(&q->gauges);
}
