/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's trigger (ntprof-monitor(1), --trigger): a condition
 * on one stage's latency over the last interval, such as
 *
 *	p99>5ms    storage.p99>2ms    stage:network_star:p99.9>=500us    mean>1ms
 *
 * [stage:]STAGE then '.' or ':' (the stage defaults to e2e), a statistic
 * (pN for a percentile from p0.0001 to p99.9999, mean, max), > or >=, and a
 * duration as the options take them (5ms, 250us, 0.5s; a bare number is
 * seconds).  STAGE is a key of the stage table that the monitor counts
 * (e2e, block, driver, network_star, target_driver, storage, residence;
 * network for network_star).
 *
 * It is evaluated on the interval's histograms: each series of the stage,
 * all controllers, namespaces, I/O types and sizes together, as counted
 * since the previous evaluation.  A percentile is read from the kernel's
 * buckets (8 an octave), linearly within its bucket, as Prometheus'
 * histogram_quantile does: within 9% of the exact one.  It is told only
 * from as many commands as report needs to show it (lib/core/stat_table.h,
 * n >= 1 / (1 - p)): an interval with fewer never holds the trigger.
 */
#ifndef NTP_MON_TRIGGER_H
#define NTP_MON_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_mon.h"

enum ntp_trigger_stat {
	NTP_TRIGGER_PCT,
	NTP_TRIGGER_MEAN,
	NTP_TRIGGER_MAX,
};

struct ntp_trigger {
	enum ntp_mon_stage stage;
	enum ntp_trigger_stat stat;
	double pct;                     /* NTP_TRIGGER_PCT: p in percent */
	bool or_equal;                  /* >= rather than > */
	int64_t threshold_ns;
	char text[64];                  /* as given, for messages and meta */
};

/*
 * s into t.  0, or -1 with why (len bytes) naming the token that is wrong:
 * "'p99x' is not a statistic (pN, mean, max)".
 */
int ntp_trigger__parse(const char *s, struct ntp_trigger *t, char *why, size_t len);

/* the role whose collector counts t's stage (enum ntp_mon_role) */
int ntp_trigger__role(const struct ntp_trigger *t);
/* whether t's stage is the application's (monitor --app) */
bool ntp_trigger__app(const struct ntp_trigger *t);

/*
 * One interval's distribution of a stage: the counts of its buckets
 * (bpf/ntp_mon.h) and their sum in ns.
 */
struct ntp_trigger_hist {
	uint64_t bucket[NTP_MON_NBUCKETS];
	int64_t sum;
	uint64_t n;
};

/*
 * t's statistic of h into *value (ns); false when h has too few commands
 * to tell it
 */
bool ntp_trigger__stat(const struct ntp_trigger *t, const struct ntp_trigger_hist *h,
		       double *value);
/* does t hold on h?  *value: the statistic, when told */
bool ntp_trigger__holds(const struct ntp_trigger *t, const struct ntp_trigger_hist *h,
			double *value);

#endif
