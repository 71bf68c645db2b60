// SPDX-License-Identifier: GPL-2.0
/*
 * report: the failures of the recording's statements, the statement of one
 * row (a count, a sum, a pragma) that every reader of a recording asks, and
 * the end of a loop over many rows.
 */
#include <errno.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_guard.h"
#include "lib/model/model_sql.h"

/* damage, the work limit, a missing table or column: corrupt; else a runtime failure */
int ntp_report__db_fail(sqlite3 *db, const char *path, const char *what)
{
	return ntp_db__fail(db, path, what);
}

int ntp_report__one_row(sqlite3 *db, const char *path, const char *sql, const char *what,
			sqlite3_stmt **st)
{
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, st, NULL))
		return ntp_report__db_fail(db, path, what);
	if (sqlite3_step(*st) == SQLITE_ROW)
		return 0;
	/* the message before the finalize, which would replace it */
	rc = ntp_report__db_fail(db, path, what);
	sqlite3_finalize(*st);
	return rc;
}

int ntp_report__rows_end(sqlite3 *db, const char *path, sqlite3_stmt *st, int rc,
			 const char *what)
{
	if (rc == -ENOMEM) {
		sqlite3_finalize(st);
		ntp_error("%s: %s: %s", path, what, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (rc != SQLITE_DONE) {
		rc = ntp_report__db_fail(db, path, what);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}
