/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor's metrics in the Prometheus text exposition format (version
 * 0.0.4, which OpenMetrics parsers read too), as ntprof-monitor(1), METRICS,
 * documents them: one histogram family of every stage, whose `stage` label
 * is the stage table's machine key (lib/core/stage_table.h), and the
 * monitor's own counters.
 *
 * The exported buckets are the kernel's merged to 4 an octave (bpf/ntp_hist.h
 * at 2 sub-bucket bits) from the one that holds 1 us to the one that holds
 * 10 s: NTP_MON_EXPO_BUCKETS of them and +Inf, so that a series costs the
 * same whatever its spread.  A bucket's `le` is its largest value in
 * integer nanoseconds, written in seconds exactly.
 *
 * The host's per-queue detail is gauges only (lib/monitor/mon_queue.h): a
 * queue's commands in flight, and each controller's imbalance.
 */
#ifndef NTP_MON_EXPO_H
#define NTP_MON_EXPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/monitor/mon_queue.h"
#include "lib/monitor/mon_table.h"

/* the exported buckets' sub-bucket bits, and their range */
#define NTP_MON_EXPO_SUB_BITS 2
#define NTP_MON_EXPO_MIN_NS 1000LL
#define NTP_MON_EXPO_MAX_NS 10000000000LL
/* bucket lines of a series, without +Inf */
#define NTP_MON_EXPO_BUCKETS 94

/* what a collector counted besides its histograms */
struct ntp_mon_side {
	enum ntp_mon_role role;
	uint64_t seen;          /* commands that reached the sampling decision */
	uint64_t sampled;
	uint64_t lost_ringbuf, lost_map, lost_hist;
	uint64_t flight_filtered;       /* kept off the flight recorder's stream by its floor */
	uint64_t series;        /* series its map holds */
	/*
	 * its programs' cost over the window after the attach (lib/collect/collector.h,
	 * NTP_COST_WINDOW_NS): runs and ns over the commands seen meanwhile
	 */
	bool have_cost;
	uint64_t cost_runs, cost_run_ns, cost_commands;
};

struct ntp_mon_snapshot {
	const struct ntp_mon_table *table;     /* sorted */
	struct ntp_mon_side side[2];
	int nsides;
	uint32_t sample_one_in;
	/* the host's per-queue gauges, sorted; NULL without the host's side */
	const struct ntp_mon_qgauges *queues;
};

/* the stage table's row (enum ntp_stage, lib/core/stage_table.h) of a stage a collector counts */
int ntp_mon_expo__stage(enum ntp_mon_stage st);
/* ns as seconds, exactly: 1023 -> "0.000001023", -5 -> "-0.000000005", 0 -> "0" */
void ntp_mon_expo__seconds(int64_t ns, char *buf, size_t len);
/* the largest value (ns) of exported bucket i, 0 <= i < NTP_MON_EXPO_BUCKETS */
int64_t ntp_mon_expo__le_ns(int i);
/* the size label of a size class, in report's size names: "512B", "4KiB", ..., "1MiB", "over_1MiB" */
void ntp_mon_expo__size(int size_class, char *buf, size_t len);
/* the whole page; 0, or -1 with errno when f failed */
int ntp_mon_expo__write(FILE *f, const struct ntp_mon_snapshot *s);

#endif
