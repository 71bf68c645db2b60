/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --sort KEY[,KEY...]: the groups ordered by a statistic instead of
 * by namespace, I/O type and size (ntprof-report(1), "Sorting").  A key is
 *
 *	[STAGE.]STAT[:asc|:desc]
 *
 * STAT one of n, min, mean, p50, p90, p99, p99.9 (or p99_9), max, share
 * (the stage's share% of the end-to-end mean); STAGE a stage of the
 * report's view by its text or JSON name (block, driver(h), network,
 * network_star, storage, target_driver, ...), e2e (or end-to-end,
 * residence) or omitted: the end-to-end latency.  Largest first, as perf
 * report sorts; ":asc" for smallest first.  Later keys break ties, and the
 * default order breaks the ties left.  The stage is checked against the
 * view once the recordings are read, since the view depends on them.
 */
#ifndef NTP_REPORT_SORT_H
#define NTP_REPORT_SORT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/cli/opt.h"
#include "lib/core/stat_table.h"

#define NTP_SORT_MAX_KEYS 4
#define NTP_SORT_STAGE_LEN 32

struct ntp_sort_key {
	char stage[NTP_SORT_STAGE_LEN];   /* as given; "" for the end-to-end */
	enum ntp_stat stat;
	bool ascending;
};

/* zero-initialised: the default order */
struct ntp_report_sort {
	const char *arg;                  /* --sort as given, for the report's header */
	struct ntp_sort_key keys[NTP_SORT_MAX_KEYS];
	int nkeys;
};

/* the option's callback; opt->value is the struct ntp_report_sort */
int ntp_report_sort__opt(const struct ntp_option *opt, const char *arg);

/* "# sorted by: KEY (largest first)" under the header, with --sort; change: compare's */
void ntp_report_sort__print_text(FILE *f, const struct ntp_report_sort *s, bool change);

struct ntp_json;
/* "sort": null, or the keys: objects with stage ("e2e" for the total), stat, order */
void ntp_report_sort__json(struct ntp_json *j, const struct ntp_report_sort *s);

#endif
