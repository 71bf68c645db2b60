/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The application's stages of a group (model.h, struct
 * ntp_report_app) as a scan fills them: the samples of the commands that
 * have the application's stamps, their exact sums, then their summaries.
 */
#ifndef NTP_REPORT_APP_H
#define NTP_REPORT_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/stats.h"
#include "lib/ntp/db_app.h"
#include "lib/model/model.h"

struct ntp_app_acc {
	struct ntp_samples e2e, stage[NTP_APP_STAGES];
};

void ntp_app_acc__init(struct ntp_app_acc *a);
void ntp_app_acc__free(struct ntp_app_acc *a);
/*
 * One counted command's application stages (row->state not NTP_APP_ROW_NONE)
 * into a and g: window is its end-to-end latency.  One with a stage below 0,
 * no number or sums that would overflow is counted in g->impossible
 * instead.  0 or -ENOMEM.
 */
int ntp_app_acc__add(struct ntp_app_acc *a, struct ntp_report_app *g, int64_t window,
		     const struct ntp_app_row *row);
/* src's samples and counts into dst's, src freed; 0 or -ENOMEM */
int ntp_app_acc__merge(struct ntp_app_acc *dst, struct ntp_report_app *dg,
		       struct ntp_app_acc *src, const struct ntp_report_app *sg);
/* the summaries of a's samples into g (ntp_samples__summarize_all): NTP_APP_JOBS of them */
#define NTP_APP_JOBS (1 + NTP_APP_STAGES)
size_t ntp_app_acc__jobs(struct ntp_app_acc *a, struct ntp_report_app *g,
			 struct ntp_summary_job *jobs);

/* does any group of r have the application's stamps? (r->app) */
bool ntp_report__any_app(const struct ntp_report *r);

#endif
