/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A connection that reads recordings from anywhere (ntprof-ntp(5),
 * Untrusted recordings): a file's own SQL never runs, and no query on it
 * runs unbounded.  db_guard.c says what is covered and why and keeps the
 * work budget, db_own.c makes ntprof's views, db_fail.c names failures.
 */
#ifndef NTP_DB_GUARD_H
#define NTP_DB_GUARD_H

#include <stddef.h>
#include <sqlite3.h>

/* the stage views of schema/ntp.sql that readers query */
#define NTP_DB_HOST_STAGES "host_stages"
#define NTP_DB_TARGET_STAGES "target_stages"

/*
 * SQLite's defensive settings on db (DEFENSIVE, trusted_schema off, no
 * extension loading, a length limit) and a work limit: every statement on
 * db together may run a budget of virtual machine steps, a fixed part plus
 * one proportional to the bytes of the files ntp_db__own_views() added.
 * Past it a statement fails with SQLITE_INTERRUPT (ntp_db__fail() says
 * why).  A second call on db does nothing.  0 or NTP_EXIT_FAILURE (printed).
 */
int ntp_db__guard(sqlite3 *db);

/*
 * ntprof's own definitions of the stage views over the recording path,
 * open in db as schema ("main", or an ATTACHed name), as TEMP views: what
 * a reader queries is these, whatever views the file holds.  For "main"
 * they are named as in the file (host_stages: unqualified names find TEMP
 * first), for another schema S "S_host_stages" (ntp_db__view_name()).
 * Checks first that the tables they read are ordinary tables with
 * ntprof's columns (not views, virtual tables or generated columns).  Adds
 * the file's size to db's work budget.  0 or an NTP_EXIT_* code, printed
 * with the path.
 */
int ntp_db__own_views(sqlite3 *db, const char *schema, const char *path);

/*
 * Add the file at path, open in db as schema, to db's work budget (its size
 * and its -wal's) and to the files a failure can name.  0 or an NTP_EXIT_*
 * code, printed.
 */
int ntp_db__budget_add(sqlite3 *db, const char *schema, const char *path);
/* the path schema of db was opened from (caller frees), or NULL */
char *ntp_db__schema_path(sqlite3 *db, const char *schema);

/* the name a reader queries for view (NTP_DB_HOST_STAGES, ...) of schema */
const char *ntp_db__view_name(char *buf, size_t len, const char *schema, const char *view);

/*
 * Open path again for reading on a connection of its own (a reader's
 * worker thread; the file was checked by ntp_db__open_read()): read-only,
 * NOMUTEX, guarded, ntprof's views.  0 or an NTP_EXIT_* code, printed.
 */
int ntp_db__open_again(sqlite3 **db, const char *path);

/*
 * The exit code of db's last error: damage (SQLITE_CORRUPT, NOTADB), the
 * work limit (INTERRUPT), a missing table or column and a wrong type are
 * NTP_EXIT_CORRUPT, the rest NTP_EXIT_FAILURE.
 */
int ntp_db__error_code(sqlite3 *db);

/* prints "PATH: WHAT: why" for db's last error; its ntp_db__error_code() */
int ntp_db__fail(sqlite3 *db, const char *path, const char *what);

#endif
