/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare --sort KEY[,KEY]: the groups ordered by how much a statistic
 * changed, new - baseline, largest growth first (report's keys,
 * lib/model/model_sort.h; ntprof-compare(1)).
 */
#ifndef NTP_COMPARE_ORDER_H
#define NTP_COMPARE_ORDER_H

#include "lib/compare/compare_model.h"
#include "lib/model/model_sort.h"

/*
 * Orders c->groups by s (nothing without keys); groups of one run only,
 * which have no change, go last.  NTP_EXIT_USAGE after one line for a
 * stage the runs' view does not have, else 0 or NTP_EXIT_FAILURE.
 */
int ntp_compare__order(struct ntp_compare *c, const struct ntp_report_sort *s);

#endif
