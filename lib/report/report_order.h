/* SPDX-License-Identifier: GPL-2.0 */
/* The groups of a report in --sort's order (report_sort.h). */
#ifndef NTP_REPORT_ORDER_H
#define NTP_REPORT_ORDER_H

#include "lib/report/report_model.h"
#include "lib/report/report_sort.h"

/*
 * Orders r->groups by s (nothing without keys).  NTP_EXIT_USAGE after one
 * line when a key names a stage r's view does not have; else 0.
 */
int ntp_report__order(struct ntp_report *r, const struct ntp_report_sort *s);

#endif
