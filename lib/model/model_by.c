// SPDX-License-Identifier: GPL-2.0
/*
 * The host's commands in the order of a --by key (model_by.h): one query
 * of the rows the model's evidence reads (ntp_evidence__from), ordered by
 * the key's columns.
 */
#include <stdio.h>

#include "lib/model/model.h"
#include "lib/model/model_by.h"
#include "lib/model/model_evidence.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sql.h"
#include "lib/ntp/db_own.h"

const struct ntp_by_def ntp_by_defs[NTP_BY_MAX] = {
#define NTP_BY_ROW(k, w, p, o, os, oss, ord) [NTP_BY_##k] = { w, p, o, os, oss, ord },
	NTP_BY_KEYS(NTP_BY_ROW)
#undef NTP_BY_ROW
};

/* the columns the read filters test, in the FROM's rows */
static const struct ntp_read_cols host_cols = {
	.io_type = "io_type", .bytes = "bytes", .qid = "qid",
	.names = { "namespace", "path" }, .time = "h_start_ns",
};

/* the host rows of s's file i as a FROM, and r's read filters on them */
static int host_from(char *buf, size_t len, struct ntp_read_where *w,
		     const struct ntp_report *r, struct ntp_source *s, int i)
{
	const char *schema = s->files[i].schema;
	char view[64];

	*w = (struct ntp_read_where){ .f = r->filter, .cols = &host_cols };
	ntp_db__view_name(view, sizeof(view), schema, NTP_DB_HOST_STAGES);
	ntp_evidence__from(buf, len, view, schema, ntp_evidence__cols(s->db, schema));
	return ntp_read_filter__starts(w, s->db, &schema, 1, false, s->files[i].path);
}

int ntp_by__span_ns(const struct ntp_report *r, struct ntp_source *s, int i, int64_t window,
		    int64_t *span_ns)
{
	const char *path = s->files[i].path;
	struct ntp_read_where w;
	char from[1024], sql[1536];
	sqlite3_stmt *st;
	int rc;

	*span_ns = window;
	rc = host_from(from, sizeof(from), &w, r, s, i);
	if (rc)
		return rc;
	snprintf(sql, sizeof(sql), "SELECT count(*), min(h_start_ns), max(h_done_ns) FROM %s WHERE 1",
		 from);
	if (ntp_read_filter__prepare(s->db, sql, r->filter ? &w : NULL, NULL, &st))
		return ntp_report__db_fail(s->db, path, "cannot read the commands' span");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) >= NTP_BY_SPAN_MIN_N) {
		int64_t lo = sqlite3_column_int64(st, 1), hi = sqlite3_column_int64(st, 2), d;

		/* times that cannot be (a span past 64 bits) leave the window's */
		if (hi > lo && !__builtin_sub_overflow(hi, lo, &d) && (window <= 0 || d < window))
			*span_ns = d;
	}
	if (rc == SQLITE_ROW)
		rc = SQLITE_DONE;
	return ntp_report__rows_end(s->db, path, st, rc, "cannot read the commands' span");
}

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : "";
}

int ntp_by__each(const struct ntp_report *r, struct ntp_source *s, int i, enum ntp_by_key key,
		 ntp_by_cmd_fn fn, void *ctx)
{
	const char *path = s->files[i].path;
	struct ntp_read_where w;
	char from[1024], sql[1536], order[128];
	sqlite3_stmt *st;
	int rc, stop = 0;

	rc = host_from(from, sizeof(from), &w, r, s, i);
	if (rc)
		return rc;
	snprintf(sql, sizeof(sql),
		 "SELECT controller AS by_ctrl, qid AS by_qid, coalesce(ev_pid, -1) AS by_pid,"
		 " ev_comm, e2e_ns, h_done_ns - h_queue_ns, ev_deferred, sent_ns - h_queue_ns,"
		 " status != 0, coalesce(ev_cpu, -1) AS by_cpu, coalesce(ev_io_cpu, -1) AS by_io_cpu,"
		 " coalesce(ev_off_cpu, -1), coalesce(ev_busy, -1) FROM %s WHERE 1", from);
	snprintf(order, sizeof(order), " ORDER BY %s", ntp_by_defs[key].order);
	if (ntp_read_filter__prepare(s->db, sql, r->filter ? &w : NULL, order, &st))
		return ntp_report__db_fail(s->db, path, "cannot read the commands per key");
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_by_cmd c = {
			.ctrl = text(st, 0), .qid = sqlite3_column_int64(st, 1),
			.pid = sqlite3_column_int64(st, 2), .comm = text(st, 3),
			.e2e_ns = sqlite3_column_int64(st, 4), .held_ns = sqlite3_column_int64(st, 5),
			.deferred = sqlite3_column_int(st, 6), .delay_ns = sqlite3_column_int64(st, 7),
			.error = sqlite3_column_int(st, 8), .cpu = sqlite3_column_int64(st, 9),
			.io_cpu = sqlite3_column_int64(st, 10), .off_io_cpu = sqlite3_column_int(st, 11),
			.busy = sqlite3_column_int64(st, 12),
		};

		stop = fn(ctx, &c);
	}
	if (stop) {
		sqlite3_finalize(st);
		return stop;
	}
	return ntp_report__rows_end(s->db, path, st, rc, "cannot read the commands per key");
}
