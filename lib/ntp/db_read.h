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

/* "file:PATH?mode=MODE" for ATTACH, every byte but unreserved ones and '/' escaped; caller frees; NULL without memory */
char *ntp_db__file_uri(const char *path, const char *mode);

#endif
