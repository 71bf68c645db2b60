/* SPDX-License-Identifier: GPL-2.0 */
/* A failure on a reading connection, named with its file and its exit code (db_fail.c). */
#ifndef NTP_DB_FAIL_H
#define NTP_DB_FAIL_H

#include <stddef.h>
#include <sqlite3.h>

/* room for the line of a failure: a path and SQLite's message */
#define NTP_DB_FAIL_LINE 8192

/*
 * The exit code of db's last error: damage (SQLITE_CORRUPT, NOTADB), the
 * work limit (INTERRUPT), a missing table or column and a wrong type are
 * NTP_EXIT_CORRUPT, the rest NTP_EXIT_FAILURE.
 */
int ntp_db__error_code(sqlite3 *db);

/* prints "PATH: WHAT: why" for db's last error; its ntp_db__error_code() */
int ntp_db__fail(sqlite3 *db, const char *path, const char *what);

/*
 * The same line into buf (len bytes, cut to fit) instead of stderr: a
 * worker thread's, for the caller to print once it knows it is the error.
 */
int ntp_db__fail_text(sqlite3 *db, const char *path, const char *what, char *buf, size_t len);

#endif
