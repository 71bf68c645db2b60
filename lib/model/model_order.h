/* SPDX-License-Identifier: GPL-2.0 */
/* The groups of a report in --sort's order (model_sort.h). */
#ifndef NTP_REPORT_ORDER_H
#define NTP_REPORT_ORDER_H

#include <stdbool.h>

#include "lib/model/model.h"
#include "lib/model/model_sort.h"

/*
 * Orders r->groups by s (nothing without keys).  NTP_EXIT_USAGE after one
 * line when a key names a stage r's view does not have; else 0.
 */
int ntp_report__order(struct ntp_report *r, const struct ntp_report_sort *s);

/*
 * a key of s resolved against a report's view: stage -1 for the end-to-end,
 * NTP_ORDER_APP + an enum ntp_app_stage for an application stage, and
 * NTP_ORDER_APP + NTP_APP_STAGES for the app e2e (a report that has them)
 */
#define NTP_ORDER_APP 64
struct ntp_order_key {
	int stage;
	enum ntp_stat stat;
	bool ascending;
};

/* s's keys for r's view into keys[0..s->nkeys): 0, or NTP_EXIT_USAGE as above */
int ntp_report__order_keys(const struct ntp_report *r, const struct ntp_report_sort *s,
			   struct ntp_order_key *keys);
/* the key's statistic of g (a double; a share without a mean is NaN) */
double ntp_report__order_value(const struct ntp_report_group *g, const struct ntp_order_key *k);

#endif
