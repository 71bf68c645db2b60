/* SPDX-License-Identifier: GPL-2.0 */
/* A failure on a reading connection, named with its file and its exit code (db_fail.c). */
#ifndef NTP_DB_FAIL_H
#define NTP_DB_FAIL_H

#include <sqlite3.h>

/*
 * The exit code of db's last error: damage (SQLITE_CORRUPT, NOTADB), the
 * work limit (INTERRUPT), a missing table or column and a wrong type are
 * NTP_EXIT_CORRUPT, the rest NTP_EXIT_FAILURE.
 */
int ntp_db__error_code(sqlite3 *db);

/* prints "PATH: WHAT: why" for db's last error; its ntp_db__error_code() */
int ntp_db__fail(sqlite3 *db, const char *path, const char *what);

#endif
