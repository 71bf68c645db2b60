/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording alone's commands (host_stages) into the model's groups.
 */
#ifndef NTP_REPORT_SCAN_H
#define NTP_REPORT_SCAN_H

#include <sqlite3.h>

#include "lib/report/report_model.h"

/*
 * Every command of host_stages into r->groups, summarized and
 * ordered, and r->total.  An NTP_EXIT_* code.
 */
int ntp_report__scan(struct ntp_report *r, sqlite3 *db);

#endif
