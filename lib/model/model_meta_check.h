/* SPDX-License-Identifier: GPL-2.0 */
/* report, compare, dump: a recording without meta rows is refused. */
#ifndef NTP_REPORT_META_CHECK_H
#define NTP_REPORT_META_CHECK_H

#include <sqlite3.h>

/* 0, or NTP_EXIT_CORRUPT after one line when path's meta table is empty */
int ntp_report__check_meta(sqlite3 *db, const char *path);

#endif
