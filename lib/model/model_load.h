/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one model of a report (model.h) from a source of recordings.
 */
#ifndef NTP_REPORT_LOAD_H
#define NTP_REPORT_LOAD_H

#include <stdbool.h>

#include "lib/model/model.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sort.h"
#include "lib/model/model_source.h"

/*
 * what a load is asked for; zero-initialised: the summary, every command,
 * no histograms, in the groups' own order, every group
 */
struct ntp_report_load {
	bool detail;                        /* --stages=detail */
	const struct ntp_read_filter *filter;   /* only the commands that pass it; NULL: all */
	bool histograms;                    /* each summary's log2 buckets (lib/core/hist.h) */
	const struct ntp_report_sort *sort; /* --sort; NULL or no keys: the groups' own order */
	/* --percent-limit: groups with fewer than this % of the commands are left out */
	double percent_limit;
	/* the host files' evidence for the diagnosis (model_evidence.h), in the same scan */
	bool evidence;
};

/*
 * The model of source s into r: joined for a joined kind of source, else
 * the host's or the target's recording alone; ordered by lo->sort and
 * limited by lo->percent_limit.  The source's paths and lo's filter are
 * kept, not copied: s stays open while r is used.  An NTP_EXIT_* code
 * after one error line.
 */
int ntp_report__load(struct ntp_report *r, struct ntp_source *s,
		     const struct ntp_report_load *lo);
/*
 * --percent-limit: the groups with fewer than limit % of r's commands leave
 * r (counted in r->nhidden), the others keep their order; nothing when
 * limit <= 0.
 */
void ntp_report__limit(struct ntp_report *r, double limit);
void ntp_report__free(struct ntp_report *r);

#endif
