/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views of a report: its stages, read row by row from SQL, and the
 * stage boundaries its hooks could not place.
 */
#ifndef NTP_REPORT_VIEW_H
#define NTP_REPORT_VIEW_H

#include <sqlite3.h>

#include "lib/model/model_filter.h"
#include "lib/model/model_groups.h"
#include "lib/model/model.h"

/* the rows of r->view's query on db (one recording, or a join's) into r->groups; NTP_EXIT_* */
int ntp_report__scan_view(struct ntp_report *r, sqlite3 *db, const char *path);
/* an empty set of groups for r's view: its stages, which may be below 0 */
void ntp_report__set_init(struct ntp_group_set *set, const struct ntp_report *r);
/* r's read filters on db's files (their starts, for --time), with the columns of r's view */
int ntp_report__filter_where(const struct ntp_report *r, sqlite3 *db, const char *path,
			     struct ntp_read_where *w);
/* the gaps of file fi (from 0), from its hooks */
int ntp_report__find_gaps(struct ntp_report *r, int fi);

#endif
