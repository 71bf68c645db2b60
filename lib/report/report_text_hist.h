/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --histogram: each stage's histogram (lib/core/hist.h) as
 * biolatency-like bars, every line a '#' line (ntprof-report(1), Histograms).
 */
#ifndef NTP_REPORT_TEXT_HIST_H
#define NTP_REPORT_TEXT_HIST_H

#include <stdio.h>

#include "lib/core/stats.h"
#include "lib/model/model.h"
#include "lib/report/report_opts.h"

/* the width of a full bar, in characters */
#define NTP_HIST_BAR 40

/* the histograms of g's first nstages stages and of its total, labelled total */
void ntp_report__print_group_histograms(FILE *f, const struct ntp_report_group *g,
					const struct ntp_view_stage *stages, int nstages,
					const char *total, const char *group,
					const struct ntp_hist_form *form);

#endif
