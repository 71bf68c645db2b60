/* SPDX-License-Identifier: GPL-2.0 */
/* ntprof's own views over a recording, whatever views the file holds (db_own.c). */
#ifndef NTP_DB_OWN_H
#define NTP_DB_OWN_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* the stage views of schema/ntp.sql that readers query */
#define NTP_DB_HOST_STAGES "host_stages"
#define NTP_DB_TARGET_STAGES "target_stages"
/*
 * The points the stage views' stages are differences of, in the order of
 * struct ntp_host_points and struct ntp_target_points (lib/core/stages.h),
 * for readers that difference them there.
 */
#define NTP_DB_HOST_POINT_COLS "h_start_ns, h_queue_ns, sent_ns, r2t_host_ns, recv_ns, h_done_ns"
#define NTP_DB_HOST_NPOINTS 6
#define NTP_DB_TARGET_POINT_COLS "t_recv_ns, submit_ns, cmpl_ns, r2t_wait_ns, t_sent_ns"
#define NTP_DB_TARGET_NPOINTS 5
/* where the recorded stamps the join bounds a command by are among them */
#define NTP_DB_HOST_POINT_START 0	/* h_start_ns */
#define NTP_DB_HOST_POINT_QUEUE 1	/* h_queue_ns */
#define NTP_DB_HOST_POINT_DONE 5	/* h_done_ns */
#define NTP_DB_TARGET_POINT_RECV 0	/* t_recv_ns */
#define NTP_DB_TARGET_POINT_SENT 4	/* t_sent_ns */

/* what a row's points are, for a reader that differences them in C */
enum ntp_db_points {
	NTP_DB_POINTS_INT,	/* all integers */
	NTP_DB_POINTS_REAL,	/* one is a real: what SQLite makes of an integer sum that overflows */
	NTP_DB_POINTS_OTHER,	/* one is text, a blob or NULL: no number */
};

/*
 * Columns first..first+n-1 of st's row into v, as sqlite3_column_int64
 * gives them, and what they are: the kind of the first that is no integer
 * (report and join class its command by it: an overflow, or not a
 * number).  One call into the statement a column, not two (its type, then
 * its value): those calls were an eighth of a joined report's CPU time.
 * The values are read on the thread that steps st, as SQLite asks of
 * values it calls unprotected.
 */
static inline enum ntp_db_points ntp_db__points(sqlite3_stmt *st, int first, int n, int64_t *v)
{
	enum ntp_db_points kind = NTP_DB_POINTS_INT;

	for (int c = 0; c < n; c++) {
		sqlite3_value *x = sqlite3_column_value(st, first + c);
		int type = sqlite3_value_type(x);

		if (type != SQLITE_INTEGER && kind == NTP_DB_POINTS_INT)
			kind = type == SQLITE_FLOAT ? NTP_DB_POINTS_REAL : NTP_DB_POINTS_OTHER;
		v[c] = sqlite3_value_int64(x);
	}
	return kind;
}

/*
 * ntprof's own definitions of the stage views over the recording path,
 * open in db as schema ("main", or an ATTACHed name), as TEMP views: what
 * a reader queries is these, whatever views the file holds.  For "main"
 * they are named as in the file (host_stages: unqualified names find TEMP
 * first), for another schema S "S_host_stages" (ntp_db__view_name()).
 * Checks first that the tables they read are ordinary tables with
 * ntprof's columns (not views, virtual tables or generated columns).  0 or
 * an NTP_EXIT_* code, printed with the path.
 */
int ntp_db__own_views(sqlite3 *db, const char *schema, const char *path);

/* the name of the i-th table of the embedded schema, NULL past the last */
const char *ntp_db__own_table(int i);

/* the name a reader queries for view (NTP_DB_HOST_STAGES, ...) of schema */
const char *ntp_db__view_name(char *buf, size_t len, const char *schema, const char *view);

#endif
