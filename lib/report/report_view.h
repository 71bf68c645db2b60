/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views of a jreport: its stages, read row by row from SQL, and the
 * stage boundaries its hooks could not place.
 */
#ifndef NTP_REPORT_VIEW_H
#define NTP_REPORT_VIEW_H

#include <sqlite3.h>

#include "lib/report/report_model.h"

/* the rows of db's query into r->groups; an NTP_EXIT_* code */
int ntp_jreport__scan(struct ntp_jreport *r, sqlite3 *db, const char *path);
/* the same from a join that has run: its summary by the stage scans of lib/join/join.h */
int ntp_jreport__scan_join(struct ntp_jreport *r, struct ntp_join *j, const char *path);
/* the gaps of file fi (from 0), from its hooks */
int ntp_jreport__find_gaps(struct ntp_jreport *r, int fi);
/* the stages of r's view, in the words of r's transport (set by the scan) */
const struct ntp_view *ntp_jreport__view(const struct ntp_jreport *r);
/* what a target's residence is, over r's transport */
const char *ntp_jreport__residence(const struct ntp_jreport *r);

/* matched commands in percent of the host's rows; NAN with no host rows */
double ntp_jreport__matched_pct(const struct ntp_jreport *r);

#endif
