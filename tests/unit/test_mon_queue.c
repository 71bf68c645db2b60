// SPDX-License-Identifier: GPL-2.0
/*
 * The host's per-queue gauges (lib/monitor/mon_queue.c) without a kernel:
 * a window's gauges from two reads of the readings' map, the imbalance of
 * a controller's queues, the ring of reads, and their lines on the metrics
 * page (lib/monitor/mon_expo.c), with the series count per controller that
 * ntprof-monitor(1) documents.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/monitor/mon_expo.h"
#include "lib/monitor/mon_queue.h"

static void put(struct ntp_mon_qread *r, uint32_t ctrl, uint32_t qid, uint64_t busy, uint64_t reads)
{
	struct ntp_mon_qkey k = { .ctrl = ctrl, .qid = qid };
	struct ntp_mon_qrow *row = ntp_mon_qread__add(r, &k);

	assert_non_null(row);
	row->busy_sum = busy;
	row->reads = reads;
}

static void diff__window__means_of_the_readings_since_then(void **state)
{
	struct ntp_mon_qread then = { 0 }, now = { 0 };
	struct ntp_mon_qgauges g = { 0 };

	(void)state;
	/* added out of order: the reads are sorted before they are compared */
	put(&then, 1, 2, 100, 10);
	put(&then, 0, 1, 40, 20);
	put(&then, 0, 3, 7, 7);         /* no reading since: no gauge */
	put(&now, 0, 3, 7, 7);
	put(&now, 1, 2, 190, 19);       /* (190 - 100) / 9 */
	put(&now, 0, 1, 100, 40);       /* (100 - 40) / 20 */
	put(&now, 0, 2, 12, 4);         /* new since then: all of it */
	ntp_mon_qread__sort(&then);
	ntp_mon_qread__sort(&now);
	assert_int_equal(ntp_mon_qgauges__diff(&g, &then, &now), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.queues, 4);
	assert_int_equal(g.g[0].ctrl, 0);
	assert_int_equal(g.g[0].qid, 1);
	assert_true(g.g[0].in_flight == 3.0 && g.g[0].reads == 20);
	assert_int_equal(g.g[1].qid, 2);
	assert_true(g.g[1].in_flight == 3.0 && g.g[1].reads == 4);
	assert_int_equal(g.g[2].ctrl, 1);
	assert_true(g.g[2].in_flight == 10.0 && g.g[2].reads == 9);
	ntp_mon_qread__free(&then);
	ntp_mon_qread__free(&now);
	ntp_mon_qgauges__free(&g);
}

static void imbalance__max_over_mean(void **state)
{
	struct ntp_mon_qgauge even[3] = { { .in_flight = 4 }, { .in_flight = 4 }, { .in_flight = 4 } };
	struct ntp_mon_qgauge one[4] = { { .in_flight = 8 }, { .in_flight = 0 }, { .in_flight = 0 },
					 { .in_flight = 0 } };
	struct ntp_mon_qgauge some[2] = { { .in_flight = 1 }, { .in_flight = 3 } };

	(void)state;
	assert_true(ntp_mon_qgauges__imbalance(even, 3) == 1.0);
	/* one queue of four holds everything: the number of queues */
	assert_true(ntp_mon_qgauges__imbalance(one, 4) == 4.0);
	assert_true(ntp_mon_qgauges__imbalance(some, 2) == 1.5);
	assert_true(ntp_mon_qgauges__imbalance(some, 1) == 1.0);
}

/*
 * The ring: a scrape's gauges cover the reads of the last
 * NTP_MON_QUEUE_WINDOW_S ticks, not those before.  The map is stood in for
 * by the reads the ticks would have taken.
 */
static void ring__window_forgets_older_readings(void **state)
{
	struct ntp_mon_queues q = { 0 };
	int t;

	(void)state;
	/* a queue at 2 in flight for 20 s, then at 6: 10 readings a second, cumulative */
	for (t = 1; t <= 40; t++) {
		struct ntp_mon_qread *slot = &q.ring[q.next];
		uint64_t reads = 10ULL * t, busy = t <= 20 ? 20ULL * t : 400 + 60ULL * (t - 20);

		slot->n = 0;
		put(slot, 0, 1, busy, reads);
		q.next = (q.next + 1) % NTP_MON_QUEUE_WINDOW_S;
		q.now.n = 0;
		put(&q.now, 0, 1, busy, reads);
		assert_int_equal(ntp_mon_qgauges__diff(&q.gauges, &q.ring[q.next], &q.now), 0);
		if (t > 20 + NTP_MON_QUEUE_WINDOW_S) {
			assert_int_equal(q.gauges.n, 1);
			assert_true(q.gauges.g[0].in_flight == 6.0);
		} else if (t >= NTP_MON_QUEUE_WINDOW_S && t <= 20) {
			assert_true(q.gauges.g[0].in_flight == 2.0);
		}
	}
	ntp_mon_queues__free(&q);
}

static char *page_of(const struct ntp_mon_qgauges *g)
{
	struct ntp_mon_table t = { 0 };
	struct ntp_mon_snapshot s = { .table = &t, .nsides = 1, .sample_one_in = 1,
				      .side = { { .role = NTP_MON_ROLE_HOST } }, .queues = g };
	char *page;
	size_t len;
	FILE *f = open_memstream(&page, &len);

	assert_non_null(f);
	assert_int_equal(ntp_mon_expo__write(f, &s), 0);
	fclose(f);
	return page;
}

static void page__queue_gauges_and_imbalance(void **state)
{
	struct ntp_mon_qgauge q[] = {
		{ .ctrl = 0, .qid = 1, .in_flight = 7.5, .reads = 2 },
		{ .ctrl = 0, .qid = 2, .in_flight = 2.5, .reads = 2 },
		{ .ctrl = 3, .qid = 4, .in_flight = 1, .reads = 1 },
	};
	struct ntp_mon_qgauges g = { .g = q, .n = 3, .queues = 5 };
	char *page = page_of(&g);

	(void)state;
	assert_non_null(strstr(page, "# TYPE ntprof_queue_in_flight gauge\n"));
	assert_non_null(strstr(page, "\nntprof_queue_in_flight{role=\"host\",controller=\"nvme0\",queue=\"1\"} 7.500\n"));
	assert_non_null(strstr(page, "\nntprof_queue_in_flight{role=\"host\",controller=\"nvme0\",queue=\"2\"} 2.500\n"));
	assert_non_null(strstr(page, "\nntprof_queue_in_flight{role=\"host\",controller=\"nvme3\",queue=\"4\"} 1.000\n"));
	assert_non_null(strstr(page, "# TYPE ntprof_queue_imbalance gauge\n"));
	/* 7.5 over the mean 5 */
	assert_non_null(strstr(page, "\nntprof_queue_imbalance{role=\"host\",controller=\"nvme0\"} 1.500\n"));
	assert_non_null(strstr(page, "\nntprof_queue_imbalance{role=\"host\",controller=\"nvme3\"} 1.000\n"));
	assert_non_null(strstr(page, "\nntprof_queue_series{role=\"host\"} 5\n"));
	assert_non_null(strstr(page, "\nntprof_queue_series_limit 1024\n"));
	free(page);
}

/* a target-only monitor: the families, no series but the limit */
static void page__no_host__families_only(void **state)
{
	char *page = page_of(NULL);

	(void)state;
	assert_non_null(strstr(page, "# TYPE ntprof_queue_in_flight gauge\n"));
	assert_null(strstr(page, "\nntprof_queue_in_flight{"));
	assert_null(strstr(page, "\nntprof_queue_imbalance{"));
	assert_null(strstr(page, "\nntprof_queue_series{"));
	assert_non_null(strstr(page, "\nntprof_queue_series_limit 1024\n"));
	free(page);
}

/*
 * ntprof-monitor(1), "The number of series": a controller's queue detail
 * is one ntprof_queue_in_flight a queue and one ntprof_queue_imbalance,
 * NTP_MON_MAX_QUEUES queues at most over every controller.  A controller
 * with the map's every queue, on a page: that many lines and one.
 */
static void page__one_controller_every_queue__documented_series_count(void **state)
{
	static struct ntp_mon_qgauge q[NTP_MON_MAX_QUEUES];
	struct ntp_mon_qgauges g = { .g = q, .n = NTP_MON_MAX_QUEUES, .queues = NTP_MON_MAX_QUEUES };
	char *page, *p;
	int i, gauges = 0, imb = 0;

	(void)state;
	for (i = 0; i < NTP_MON_MAX_QUEUES; i++)
		q[i] = (struct ntp_mon_qgauge){ .ctrl = 2, .qid = i + 1, .in_flight = 1 + i % 3, .reads = 1 };
	page = page_of(&g);
	for (p = page; (p = strstr(p, "\nntprof_queue_in_flight{")); p++)
		gauges++;
	for (p = page; (p = strstr(p, "\nntprof_queue_imbalance{")); p++)
		imb++;
	assert_int_equal(gauges, NTP_MON_MAX_QUEUES);
	assert_int_equal(imb, 1);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(diff__window__means_of_the_readings_since_then),
		cmocka_unit_test(imbalance__max_over_mean),
		cmocka_unit_test(ring__window_forgets_older_readings),
		cmocka_unit_test(page__queue_gauges_and_imbalance),
		cmocka_unit_test(page__no_host__families_only),
		cmocka_unit_test(page__one_controller_every_queue__documented_series_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
