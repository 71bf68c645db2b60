/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A group's JSON object and its summaries, in every JSON report.
 */
#ifndef NTP_REPORT_JSON_GROUP_H
#define NTP_REPORT_JSON_GROUP_H

#include <stdbool.h>

#include "lib/core/stats.h"
#include "lib/model/model.h"

struct ntp_json;
/* a summary's eight _ns members */
void ntp_report__json_summary(struct ntp_json *j, const struct ntp_summary *s);
/* a group's keys, its n and its rate: io_type, bytes, namespace, device, n, est_cmds_per_s */
void ntp_report__json_group_keys(struct ntp_json *j, const struct ntp_report_group *g,
				 bool target);

/*
 * A group's object with its first nstages stages; target: a target alone's
 * group, of a backend device ("device", "namespace" null); histogram: each
 * summary's buckets (--histogram).
 */
void ntp_report__json_group(struct ntp_json *j, const struct ntp_report_group *g,
			    const struct ntp_view_stage *stages, int nstages, bool target,
			    bool histogram, bool app);

#endif
