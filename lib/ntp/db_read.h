/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a .ntp recording (report, dump, compare, join): read-only, never
 * modifies the file, and checks application_id and user_version before
 * anything else (lib/ntp/db_schema.h).
 */
#ifndef NTP_DB_READ_H
#define NTP_DB_READ_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/ntp/db_state.h"

/*
 * Open a recording for reading.  On failure prints one line naming the file
 * and the cause and returns the distinct code: NTP_EXIT_NOFILE, _NOTSQLITE,
 * _NOTNTP, _TOONEW or _CORRUPT.  On success *db is open read-only.
 */
int ntp_db__open_read(sqlite3 **db, const char *path);
/*
 * The same, and *host_rows the count of host_io that the opening's check
 * makes (a walk of the whole table: a reader that needs the count takes
 * this one, not a second walk); -1 on failure.
 */
int ntp_db__open_read_counted(sqlite3 **db, const char *path, int64_t *host_rows);

/*
 * A connection reading path, in the state f that its check found
 * (lib/ntp/db_state.h): read-only, opened as that state needs so that
 * nothing is made, changed or removed beside the file, no checkpoint at
 * close; flags are more SQLITE_OPEN_* flags (NOMUTEX).  Neither guarded
 * nor checked.  0, or an NTP_EXIT_* code after one line.
 */
int ntp_db__connect(sqlite3 **db, const char *path, const struct ntp_db_file *f, int flags);
/*
 * The state of path again, for a file checked before (ntp_db__open_read):
 * 0, or NTP_EXIT_NOFILE after one line when it is gone or can no longer be
 * read as it was (its -wal gone, a write to it interrupted).
 */
int ntp_db__open_state(const char *path, struct ntp_db_file *f);
/*
 * The checked file at path ATTACHed read-only to db (opened with
 * SQLITE_OPEN_URI) as schema, the way its state needs (db_state.h).  Not
 * guarded: ntp_db__guard_file() follows.  0, or an NTP_EXIT_* code after
 * one line.
 */
int ntp_db__attach_read(sqlite3 *db, const char *path, const char *schema);

/*
 * Open path again for reading on a connection of its own (a reader's
 * worker thread; the file was checked by ntp_db__open_read()): read-only
 * as its state needs (lib/ntp/db_state.h), NOMUTEX, guarded, ntprof's
 * views.  0 or an NTP_EXIT_* code, printed.
 */
int ntp_db__open_again(sqlite3 **db, const char *path);

#endif
