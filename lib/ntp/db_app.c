// SPDX-License-Identifier: GPL-2.0
/*
 * The application's side of a file (db_app.h): told by host_io's columns,
 * not by the file's own views, which a guarded reader never runs.
 */
#include <stdio.h>

#include "lib/ntp/db_app.h"

int ntp_db__has_app(sqlite3 *db, const char *schema)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('host_io', ?1)"
			       " WHERE name = 'h_app_submit_ns'", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, schema, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* a real in a difference is SQLite's overflow of it; any other non-integer no number */
static enum ntp_app_row_state col_state(sqlite3_stmt *st, int c)
{
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		return NTP_APP_ROW_OK;
	case SQLITE_FLOAT:
		return NTP_APP_ROW_OVERFLOW;
	default:
		return NTP_APP_ROW_NOT_NUMBER;
	}
}

void ntp_db__app_row(sqlite3_stmt *st, int first, struct ntp_app_row *out)
{
	const int submit = first, complete = first + 1, reap = first + 2, app_e2e = first + 3;

	*out = (struct ntp_app_row){ NTP_APP_ROW_NONE, false, 0, 0, 0, 0 };
	/* the view's app_e2e_ns is NULL exactly when h_app_submit or h_app_done is */
	if (sqlite3_column_type(st, app_e2e) == SQLITE_NULL &&
	    (sqlite3_column_type(st, submit) == SQLITE_NULL ||
	     sqlite3_column_type(st, complete) == SQLITE_NULL))
		return;
	out->reaped = sqlite3_column_type(st, reap) != SQLITE_NULL;
	out->state = col_state(st, submit);
	if (out->state == NTP_APP_ROW_OK)
		out->state = col_state(st, complete);
	if (out->state == NTP_APP_ROW_OK && out->reaped)
		out->state = col_state(st, reap);
	if (out->state == NTP_APP_ROW_OK)
		out->state = col_state(st, app_e2e);
	if (out->state != NTP_APP_ROW_OK)
		return;
	out->submit = sqlite3_column_int64(st, submit);
	out->complete = sqlite3_column_int64(st, complete);
	out->reap = out->reaped ? sqlite3_column_int64(st, reap) : 0;
	out->app_e2e = sqlite3_column_int64(st, app_e2e);
}
