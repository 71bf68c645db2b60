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

/* meta value as text (caller frees), or NULL when absent */
char *ntp_db__meta_text(sqlite3 *db, const char *key);
/* the same from the recording ATTACHed as schema */
char *ntp_db__meta_text_in(sqlite3 *db, const char *schema, const char *key);
/* meta value as integer, or def when absent */
int64_t ntp_db__meta_int(sqlite3 *db, const char *key, int64_t def);

#endif
