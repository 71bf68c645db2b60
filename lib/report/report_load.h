/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one model of a report (report_model.h) from the recordings given.
 */
#ifndef NTP_REPORT_LOAD_H
#define NTP_REPORT_LOAD_H

#include <stdbool.h>

#include "lib/report/report_model.h"
#include "lib/report/report_filter.h"

/* what a load is asked for; zero-initialised: the summary, every command, no histograms */
struct ntp_report_load {
	bool detail;                        /* --stages=detail */
	const struct ntp_read_filter *filter;   /* only the commands that pass it; NULL: all */
	bool histograms;                    /* each summary's log2 buckets (lib/core/hist.h) */
};

/*
 * paths[0..n) into r: joined when n > 1 or the one file is "-r both" or
 * joined, else the host's or the target's recording alone.  The paths and
 * the filter are kept, not copied.  An NTP_EXIT_* code after one error line.
 */
int ntp_report__load(struct ntp_report *r, const char *const *paths, int n,
		     const struct ntp_report_load *lo);
void ntp_report__free(struct ntp_report *r);

#endif
