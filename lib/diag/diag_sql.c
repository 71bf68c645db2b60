// SPDX-License-Identifier: GPL-2.0
/* The host rows the diagnosis reads beside the stages (diag_sql.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag/diag_sql.h"
#include "lib/model/model_files.h"
#include "lib/model/model_sql.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_own.h"
#include "lib/ntp/db_read.h"

/* the columns the read filters test, in the host query's FROM */
static const struct ntp_read_cols host_cols = {
	.io_type = "io_type", .bytes = "bytes", .qid = "qid",
	.names = { "namespace", "path" }, .time = "h_start_ns",
};

int ntp_diag__span_ns(sqlite3 *db, const char *path, const char *from,
		      const struct ntp_read_where *w, bool filtered, int64_t window,
		      int64_t *span_ns)
{
	char sql[1536];
	sqlite3_stmt *st;
	int rc;

	*span_ns = window;
	snprintf(sql, sizeof(sql), "SELECT count(*), min(h_start_ns), max(h_done_ns) FROM %s WHERE 1",
		 from);
	if (ntp_read_filter__prepare(db, sql, filtered ? w : NULL, NULL, &st))
		return ntp_report__db_fail(db, path, "cannot read the commands' span");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) >= NTP_DIAG_SPAN_MIN_N) {
		int64_t lo = sqlite3_column_int64(st, 1), hi = sqlite3_column_int64(st, 2), d;

		/* times that cannot be (a span past 64 bits) leave the window's */
		if (hi > lo && !__builtin_sub_overflow(hi, lo, &d) && (window <= 0 || d < window))
			*span_ns = d;
	}
	if (rc == SQLITE_ROW)
		rc = SQLITE_DONE;
	return ntp_report__rows_end(db, path, st, rc, "cannot read the commands' span");
}

bool ntp_diag__has_table(sqlite3 *db, const char *schema, const char *table)
{
	char sql[160];
	sqlite3_stmt *st;
	bool yes;

	snprintf(sql, sizeof(sql), "SELECT 1 FROM \"%s\".sqlite_schema WHERE type = 'table'"
		 " AND name = ?1", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int ntp_diag__host_from(char *buf, size_t len, struct ntp_read_where *w, bool *has_pid,
			bool *has_cpu, const struct ntp_report *r, struct ntp_source *s, int i)
{
	const char *schema = s->files[i].schema;
	char view[64];

	*w = (struct ntp_read_where){ .f = r->filter, .cols = &host_cols };
	/* the processes, where the file has the application's columns */
	*has_pid = ntp_db__has_column(s->db, schema, "host_io", "pid") &&
		   ntp_db__has_column(s->db, schema, "host_io", "comm");
	/* the CPUs, where the file has them */
	*has_cpu = ntp_db__has_column(s->db, schema, "host_io", "cpu") &&
		   ntp_db__has_column(s->db, schema, "host_io", "io_cpu");
	ntp_db__view_name(view, sizeof(view), schema, NTP_DB_HOST_STAGES);
	snprintf(buf, len,
		 "(SELECT v.io_type, v.bytes, v.namespace, v.path, v.controller, v.qid, v.status,"
		 " v.h_start_ns, v.h_queue_ns, v.sent_ns, v.h_done_ns, v.e2e_ns,"
		 " (h.flags & 32) != 0 AS deferred, %s AS pid, %s AS comm,"
		 " %s AS cpu, %s AS io_cpu, %s AS queue_in_flight"
		 " FROM \"%s\" v JOIN \"%s\".host_io h ON h.id = v.id)",
		 *has_pid ? "h.pid" : "NULL", *has_pid ? "h.comm" : "NULL",
		 *has_cpu ? "h.cpu" : "NULL", *has_cpu ? "h.io_cpu" : "NULL",
		 ntp_db__has_column(s->db, schema, "host_io", "queue_in_flight") ?
		 "h.queue_in_flight" : "NULL", view, schema);
	return ntp_read_filter__starts(w, s->db, &schema, 1, false, s->files[i].path);
}

int64_t ntp_diag__depth_in(const char *v, const char *ctrl)
{
	int64_t depth = -1;
	size_t n = strlen(ctrl);

	/* "nvme0=128 nvme1=32" */
	for (const char *p = v; p && *p; ) {
		const char *end = strchr(p, ' ');

		if (n && !strncmp(p, ctrl, n) && p[n] == '=')
			depth = strtoll(p + n + 1, NULL, 10);
		p = end ? end + 1 : p + strlen(p);
	}
	return depth > 0 ? depth : -1;
}

int64_t ntp_diag__ctrl_depth(const struct ntp_source *s, int file, const char *ctrl)
{
	char *v = ntp_source__meta_text(s, file, NTP_META_HOST_QUEUE_DEPTH);
	int64_t depth = ntp_diag__depth_in(v, ctrl);

	free(v);
	return depth;
}
