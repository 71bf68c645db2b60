/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SQL plumbing of the readers: a failure named with its file, one
 * row, the end of a loop over rows.
 */
#ifndef NTP_REPORT_SQL_H
#define NTP_REPORT_SQL_H

#include <sqlite3.h>

/* prints "PATH: WHAT: sqlite's message"; NTP_EXIT_CORRUPT for damage, else _FAILURE */
int ntp_report__db_fail(sqlite3 *db, const char *path, const char *what);
/*
 * sql prepared and stepped to its first row, which *st holds
 * for the caller to read and finalize; else the failure printed as
 * ntp_report__db_fail prints it and its code.
 */
int ntp_report__one_row(sqlite3 *db, const char *path, const char *sql, const char *what,
			sqlite3_stmt **st);
/*
 * The end of a loop over st's rows, which stopped at step
 * result rc, or at -ENOMEM for want of memory: st finalized, a failure
 * printed as "PATH: WHAT: why".  0 or an NTP_EXIT_* code.
 */
int ntp_report__rows_end(sqlite3 *db, const char *path, sqlite3_stmt *st, int rc,
			 const char *what);


#endif
