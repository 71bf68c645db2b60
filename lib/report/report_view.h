/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views of a report: its stages, read row by row from SQL, and the
 * stage boundaries its hooks could not place.
 */
#ifndef NTP_REPORT_VIEW_H
#define NTP_REPORT_VIEW_H

#include <sqlite3.h>

#include "lib/report/report_model.h"

/* the rows of r->view's query on db (one recording) into r->groups; an NTP_EXIT_* code */
int ntp_report__scan_view(struct ntp_report *r, sqlite3 *db, const char *path);
/* the same from a join that has run: its summary by the stage scans of lib/join/join.h */
int ntp_report__scan_join(struct ntp_report *r, struct ntp_join *j, const char *path);
/* the gaps of file fi (from 0), from its hooks */
int ntp_report__find_gaps(struct ntp_report *r, int fi);

#endif
