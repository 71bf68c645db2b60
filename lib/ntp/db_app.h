/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The application's side of a sampled host command, as the readers take it
 * from the view host_app_stages (schema/ntp.sql; ntprof-report(1), "The
 * application's stages"): whether a file has it, and one row's stages.
 */
#ifndef NTP_DB_APP_H
#define NTP_DB_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

/* the view a reader of a file with the application's columns queries (db_own.c) */
#define NTP_DB_HOST_APP_STAGES "host_app_stages"

/* the columns of host_app_stages a reader takes, in this order, from its first */
#define NTP_DB_APP_COLS "submit_ns, complete_ns, reap_ns, app_e2e_ns"
#define NTP_DB_APP_NCOLS 4

enum ntp_app_row_state {
	NTP_APP_ROW_NONE,         /* no h_app_submit or no h_app_done: not the application's */
	NTP_APP_ROW_OK,
	NTP_APP_ROW_NOT_NUMBER,   /* a stamp that is text, or a real */
	NTP_APP_ROW_OVERFLOW,     /* a difference SQLite could not hold in 64 bits */
};

/* one command's application stages; reap is 0 when there was no reap */
struct ntp_app_row {
	enum ntp_app_row_state state;
	bool reaped;          /* h_app_reap given: app_e2e ends there, else at h_app_done */
	int64_t submit, complete, reap, app_e2e;
};

/*
 * Does host_io of schema ("main", or an ATTACHed name) have the
 * application's columns (a file of a writer since they exist)?  1, 0, or
 * -1 when the schema cannot be read.
 */
int ntp_db__has_app(sqlite3 *db, const char *schema);

/* columns first .. first + NTP_DB_APP_NCOLS - 1 of st's row (NTP_DB_APP_COLS) */
void ntp_db__app_row(sqlite3_stmt *st, int first, struct ntp_app_row *out);

#endif
