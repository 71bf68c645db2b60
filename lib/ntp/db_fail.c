// SPDX-License-Identifier: GPL-2.0
/*
 * What a reader's SQLite error means (lib/ntp/db_guard.h): its exit code,
 * and the one line naming the file, the damaged one of joined files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_fail.h"

int ntp_db__error_code(sqlite3 *db)
{
	const char *msg = sqlite3_errmsg(db);

	switch (sqlite3_errcode(db) & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_FORMAT:
	case SQLITE_INTERRUPT:
	case SQLITE_TOOBIG:
	case SQLITE_MISMATCH:
		return NTP_EXIT_CORRUPT;
	case SQLITE_ERROR:
		/* what a file without ntprof's tables and columns gives our statements */
		if (msg && (!strncmp(msg, "no such table", 13) || !strncmp(msg, "no such column", 14) ||
			    !strncmp(msg, "no such collation", 17) || strstr(msg, "malformed") ||
			    strstr(msg, "unsupported file format")))
			return NTP_EXIT_CORRUPT;
		return NTP_EXIT_FAILURE;
	default:
		return NTP_EXIT_FAILURE;
	}
}

/* the file attached as schema, from the guard's registry of the connection (db_guard.c) */
static char *schema_path(sqlite3 *db, const char *schema)
{
	sqlite3_stmt *st;
	char *path = NULL;

	if (sqlite3_prepare_v2(db, "SELECT ntp_guard_path(?1)", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, schema, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		path = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return path;
}

/*
 * Which of the files ATTACHed to db is damaged: a statement over several
 * (the join's temp.joined) does not say.  The first whose quick_check
 * fails, by the path it was opened from; NULL when none does or db reads
 * one file.  With main, main too: its path is main_path.  Only after a
 * failure: the check reads every page.
 */
static char *damaged_file(sqlite3 *db, const char *main_path)
{
	sqlite3_stmt *st, *chk;
	char *path = NULL, sql[96];

	if (sqlite3_prepare_v2(db, main_path ? "SELECT name FROM pragma_database_list"
			       " WHERE name <> 'temp'" : "SELECT name FROM pragma_database_list"
			       " WHERE name NOT IN ('main', 'temp')", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	/* the work limit is spent on what failed: the check has its own, its size */
	sqlite3_progress_handler(db, 0, NULL, NULL);
	while (!path && sqlite3_step(st) == SQLITE_ROW) {
		const char *schema = (const char *)sqlite3_column_text(st, 0);
		int bad, rc;

		snprintf(sql, sizeof(sql), "PRAGMA \"%s\".quick_check(1)", schema ? schema : "");
		if (!schema || sqlite3_prepare_v2(db, sql, -1, &chk, NULL) != SQLITE_OK)
			continue;
		rc = sqlite3_step(chk);
		/* a check that cannot run says nothing of the file where memory ran out */
		bad = rc == SQLITE_ROW ? strcmp((const char *)sqlite3_column_text(chk, 0), "ok") != 0 :
		      !main_path;
		sqlite3_finalize(chk);
		if (bad)
			path = !strcmp(schema, "main") ? strdup(main_path) : schema_path(db, schema);
	}
	sqlite3_finalize(st);
	return path;
}

int ntp_db__fail_text(sqlite3 *db, const char *path, const char *what, char *buf, size_t len)
{
	int code = ntp_db__error_code(db), rc = sqlite3_errcode(db) & 0xff;
	char *msg = strdup(sqlite3_errmsg(db)), *damaged = NULL;

	/* the message first: what follows runs statements of its own */
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		damaged = damaged_file(db, NULL);
	/*
	 * A damaged record can say it is larger than it is, or that it goes on
	 * in a page that does not exist: SQLite then runs out of memory
	 * reading it.  Only a file that fails its check is corrupt.
	 */
	if (rc == SQLITE_NOMEM) {
		damaged = damaged_file(db, path);
		if (damaged) {
			code = NTP_EXIT_CORRUPT;
			free(msg);
			msg = strdup("database disk image is malformed");
		}
	}
	if (damaged)
		path = damaged;
	if (rc == SQLITE_INTERRUPT)
		snprintf(buf, len, "%s: corrupt: %s: stopped after more work than a recording of its size needs (a crafted or damaged file)",
			 path, what);
	else if (code == NTP_EXIT_CORRUPT)
		snprintf(buf, len, "%s: corrupt: %s: %s", path, what, msg ? msg : "?");
	else
		snprintf(buf, len, "%s: %s: %s", path, what, msg ? msg : "?");
	free(msg);
	free(damaged);
	return code;
}

int ntp_db__fail(sqlite3 *db, const char *path, const char *what)
{
	char line[NTP_DB_FAIL_LINE];
	int code = ntp_db__fail_text(db, path, what, line, sizeof(line));

	ntp_error("%s", line);
	return code;
}
