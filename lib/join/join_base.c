// SPDX-License-Identifier: GPL-2.0
/*
 * join: what every part of the join uses, in a file of its own at the
 * bottom of the folder, so that the parts that use it need not call each
 * other: the two failures reported the same way (an SQL error, no memory),
 * an integer asked of SQL.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_base.h"

int ntp_join__sql_fail(sqlite3 *db, const char *what)
{
	int rc = sqlite3_errcode(db) & 0xff, e = sqlite3_system_errno(db);

	/*
	 * The system's cause as the other outputs say it: SQLite's "database
	 * or disk is full" is a write that met ENOSPC (its errno it keeps not),
	 * an I/O error has its errno.
	 */
	if (rc == SQLITE_FULL)
		ntp_error("join: %s: %s", what, strerror(ENOSPC));
	else if ((rc == SQLITE_IOERR || rc == SQLITE_CANTOPEN) && e)
		ntp_error("join: %s: %s: %s", what, sqlite3_errmsg(db), strerror(e));
	else
		ntp_error("join: %s: %s", what, sqlite3_errmsg(db));
	return NTP_EXIT_FAILURE;
}

int ntp_join__nomem(void)
{
	ntp_error("join: %s", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

int64_t ntp_join__query_int(sqlite3 *db, const char *sql, int64_t def)
{
	sqlite3_stmt *st;
	int64_t v = def;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return def;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

