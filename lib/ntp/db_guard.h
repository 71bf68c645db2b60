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

#include "lib/ntp/db_fail.h"
#include "lib/ntp/db_own.h"

/*
 * SQLite's defensive settings on db (DEFENSIVE, trusted_schema off, no
 * extension loading, a length limit) and a work limit: every statement on
 * db together may run a budget of virtual machine steps, a fixed part plus
 * one proportional to the bytes of the files it reads.
 * Past it a statement fails with SQLITE_INTERRUPT (ntp_db__fail() says
 * why).  A second call on db does nothing.  0 or NTP_EXIT_FAILURE (printed).
 */
int ntp_db__guard(sqlite3 *db);

/*
 * Add the file at path, open in db as schema, to db's work budget (its size
 * and its -wal's) and to the files a failure can name.  0 or an NTP_EXIT_*
 * code, printed.
 */
int ntp_db__budget_add(sqlite3 *db, const char *schema, const char *path);

/*
 * What every reading connection does for each file it reads (main, or an
 * attached schema): its work budget, and ntprof's own views over it
 * (db_own.c).  0 or an NTP_EXIT_* code naming path.
 */
int ntp_db__guard_file(sqlite3 *db, const char *schema, const char *path);

#endif
