/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a .ntp recording (report, dump, compare, join): read-only, never
 * modifies the file, and checks application_id and user_version before
 * anything else (lib/ntp/db_schema.h).
 */
#ifndef NTP_DB_READ_H
#define NTP_DB_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sqlite3.h>

#include "lib/ntp/db_state.h"

/*
 * Open a recording for reading, its structure checked whole.  On failure
 * prints one line naming the file and the cause and returns the distinct
 * code: NTP_EXIT_NOFILE, _NOTSQLITE, _NOTNTP, _TOONEW or _CORRUPT.  On
 * success *db is open read-only.
 */
int ntp_db__open_read(sqlite3 **db, const char *path);
/*
 * The same but for the structure of the tables of one row a command
 * (host_io, target_io, join_pairs), which a reader checks while it reads
 * (ntp_db__check_start); and *host_rows the count of host_io that the
 * opening makes (a reader that needs the count takes this one, not a
 * second walk); -1 on failure.
 */
int ntp_db__open_read_counted(sqlite3 **db, const char *path, int64_t *host_rows);
/* ntp_db__open_read for ntprof finish: a spool beside path is not warned of, it is finished */
int ntp_db__open_check(sqlite3 **db, const char *path);

/*
 * The structure of the tables of one row a command of the recordings at
 * paths[0..n) (opened by ntp_db__open_read_counted before), checked on a
 * thread of their own, file after file, each on a connection of its own:
 * the check costs one more walk of every page, which then takes no longer
 * than what the reader does meanwhile.  With one thread (NTPROF_THREADS=1)
 * it is made here.  0, or NTP_EXIT_FAILURE after one line.
 */
struct ntp_db_check;
int ntp_db__check_start(struct ntp_db_check **c, const char *const *paths, int n);
/*
 * Its verdict, once it is made: 0, or the code of the first file in path
 * order that failed it and that failure's line in msg (not printed).  NULL
 * is 0.
 */
int ntp_db__check_wait(struct ntp_db_check *c, char *msg, size_t len);
/* free it, stopping it first if it still runs; NULL does nothing */
void ntp_db__check_free(struct ntp_db_check *c);

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

/* has table of the database schema ("main", an attached name) the column col? */
bool ntp_db__has_column(sqlite3 *db, const char *schema, const char *table, const char *col);

#endif
