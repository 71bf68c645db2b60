/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A group's JSON object and its summaries, in every JSON report.
 */
#ifndef NTP_REPORT_JSON_GROUP_H
#define NTP_REPORT_JSON_GROUP_H

#include <stdbool.h>

#include "lib/core/stats.h"
#include "lib/model/model.h"
#include "lib/report/report_opts.h"

struct ntp_json;
/* a summary's eight _ns members */
/*
 * "percentiles": the run's list, each with its name, its key in the
 * summaries ("p99_9": p99_9_ns), p, and the commands it needs before it is
 * shown (else null) and before its change is tested (lib/core/stat_table.h)
 */
void ntp_report__json_percentiles(struct ntp_json *j);
void ntp_report__json_summary(struct ntp_json *j, const struct ntp_summary *s);
/* a group's keys, its n and its rate: io_type, bytes, namespace, device, n, est_cmds_per_s */
void ntp_report__json_group_keys(struct ntp_json *j, const struct ntp_report_group *g,
				 bool target);
/* its n and its rate alone: n, est_cmds_per_s */
void ntp_report__json_group_counts(struct ntp_json *j, const struct ntp_report_group *g);

/*
 * A group's object with its first nstages stages; target: a target alone's
 * group, of a backend device ("device", "namespace" null); histogram: each
 * summary's buckets in that form (--histogram), NULL for none.
 */
void ntp_report__json_group(struct ntp_json *j, const struct ntp_report_group *g,
			    const struct ntp_view_stage *stages, int nstages, bool target,
			    const struct ntp_hist_form *histogram, bool app);

#endif
