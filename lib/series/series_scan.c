// SPDX-License-Identifier: GPL-2.0
/*
 * series: the rows, in the order of their start (series_scan.h).  The
 * stages are the schema's views' (host_stages, target_stages) and the
 * join's (temp.joined), as report reads them: nothing is recomputed here.
 * One table says, for each kind of rows, the query's columns and where
 * the read filters find theirs, so that the scan and the count of --top's
 * groups read the same rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model_sql.h"
#include "lib/ntp/db_read.h"
#include "lib/series/series_scan.h"

struct rows_desc {
	/* column 0 the file (from 0), 1..3 the key (io_type, bytes, name), 4 the start */
	const char *key;
	const char *stages;           /* 5 e2e, then the view's stages */
	const char *from;             /* FROM ... WHERE ..., to which the read filters are added */
	const char *order;
	struct ntp_read_cols filter;
};

static const struct rows_desc rows_descs[] = {
	[NTP_SERIES_ROWS_HOST] = {
		"0, s.io_type, s.bytes, s.namespace, s.h_start_ns",
		"s.e2e_ns, s.block_ns, s.driver_ns, s.network_star_ns",
		" FROM host_stages AS s WHERE 1",
		/* ties broken by id: the same order on every run */
		" ORDER BY s.h_start_ns, s.id",
		{ .io_type = "s.io_type", .bytes = "s.bytes", .qid = "s.qid",
		  .names = { "s.namespace", "s.path" }, .time = "s.h_start_ns" },
	},
	[NTP_SERIES_ROWS_TARGET] = {
		"0, s.io_type, s.bytes, s.device, s.t_recv_ns",
		"s.residence_ns, s.target_driver_ns, s.storage_ns",
		" FROM target_stages AS s WHERE 1",
		" ORDER BY s.t_recv_ns, s.id",
		{ .io_type = "s.io_type", .bytes = "s.bytes", .qid = "s.qid",
		  .names = { "s.device" }, .time = "s.t_recv_ns" },
	},
	[NTP_SERIES_ROWS_JOINED] = {
		"j.host_file, j.io_type, j.bytes, j.namespace, j.h_start_ns",
		"j.e2e_ns, j.block_ns, j.driver_ns, j.network_ns, j.target_driver_ns, j.storage_ns",
		" FROM temp.joined AS j WHERE 1",
		/* seq: host file by host file, by (h_start_ns, host id) within one */
		" ORDER BY j.seq",
		{ .io_type = "j.io_type", .bytes = "j.bytes", .qid = "j.qid",
		  .names = { "j.namespace", "j.path" }, .time = "j.h_start_ns",
		  .file = "j.host_file" },
	},
};

const struct ntp_read_cols *ntp_series__filter_cols(enum ntp_series_rows rows)
{
	return &rows_descs[rows].filter;
}

/*
 * --by's key in place of (io_type, bytes, name), as report --by names its
 * rows (lib/diag/diag_by.h): "nvme0 q1"; "fio 1234", "cpu 3", "io_cpu 0", or
 * "(not recorded)" where the file has no such column or the command no value
 */
static const char queue_name[][64] = {
	[NTP_SERIES_ROWS_HOST] = "coalesce(s.controller, '') || ' q' || s.qid",
	[NTP_SERIES_ROWS_JOINED] = "coalesce(j.controller, '') || ' q' || j.qid",
};
#define PROCESS_NAME "CASE WHEN h.pid IS NULL THEN '(not recorded)'" \
		     " ELSE coalesce(nullif(h.comm, ''), '-') || ' ' || h.pid END"
#define CPU_NAME "CASE WHEN h.cpu IS NULL THEN '(not recorded)' ELSE 'cpu ' || h.cpu END"
#define IO_CPU_NAME "CASE WHEN h.io_cpu IS NULL THEN '(not recorded)'" \
		    " ELSE 'io_cpu ' || h.io_cpu END"

/* the key's columns (file, io_type, bytes, name, start) and the FROM of rows, grouped by by */
static int key_from(sqlite3 *db, const struct rows_desc *d, enum ntp_series_rows rows,
		    enum ntp_diag_by_key by, char **key, char **from)
{
	const char *file = rows == NTP_SERIES_ROWS_JOINED ? "j.host_file" : "0";
	const char *start = strrchr(d->key, ',') + 1;
	/* host_io's column of the key, where the file has it */
	bool pid = by == NTP_DIAG_BY_PROCESS ?
		   ntp_db__has_column(db, "main", "host_io", "pid") &&
		   ntp_db__has_column(db, "main", "host_io", "comm") :
		   by == NTP_DIAG_BY_CPU ? ntp_db__has_column(db, "main", "host_io", "cpu") :
		   by == NTP_DIAG_BY_IO_CPU && ntp_db__has_column(db, "main", "host_io", "io_cpu");
	const char *name = by == NTP_DIAG_BY_QUEUE ? queue_name[rows] :
			   !pid ? "'(not recorded)'" :
			   by == NTP_DIAG_BY_PROCESS ? PROCESS_NAME :
			   by == NTP_DIAG_BY_CPU ? CPU_NAME : IO_CPU_NAME;
	int n;

	*key = *from = NULL;
	if (by == NTP_DIAG_BY_NONE)
		n = asprintf(key, "%s", d->key);
	else
		n = asprintf(key, "%s, '', 0, %s,%s", file, name, start);
	if (n >= 0)
		n = pid ? asprintf(from, " FROM host_stages AS s LEFT JOIN host_io AS h"
				   " ON h.id = s.id WHERE 1") : asprintf(from, "%s", d->from);
	if (n < 0) {
		free(*key);
		*key = NULL;
		return -1;
	}
	return 0;
}

/* "SELECT <cols> <from>", to which the read filters and tail are added */
static int prepare(sqlite3 *db, const char *from, const char *cols,
		   const struct ntp_read_where *w, const char *tail, const char *path,
		   sqlite3_stmt **st)
{
	char *head;
	int rc;

	if (asprintf(&head, "SELECT %s%s", cols, from) < 0) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	rc = ntp_read_filter__prepare(db, head, w, tail, st);
	free(head);
	return rc ? ntp_report__db_fail(db, path, "cannot read the commands") : 0;
}

int ntp_series__scan(struct ntp_series_acc *a, sqlite3 *db, enum ntp_series_rows rows,
		     enum ntp_diag_by_key by, const struct ntp_read_where *w, const char *path)
{
	const struct rows_desc *d = &rows_descs[rows];
	sqlite3_stmt *st;
	char *key, *from, *cols = NULL;
	int rc, err = 0;

	if (key_from(db, d, rows, by, &key, &from) ||
	    asprintf(&cols, "%s, %s", key, d->stages) < 0) {
		free(key);
		free(from);
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = prepare(db, from, cols, w, d->order, path, &st);
	free(key);
	free(from);
	free(cols);
	if (err)
		return err;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_series_row row = {
			.file = sqlite3_column_int(st, 0) + 1,
			.io_type = (const char *)sqlite3_column_text(st, 1),
			.bytes = sqlite3_column_int64(st, 2),
			.ns = (const char *)sqlite3_column_text(st, 3),
			.t_ns = sqlite3_column_int64(st, 4),
			.e2e = sqlite3_column_int64(st, 5),
		};

		for (int s = 0; s < a->nstages; s++)
			row.stage[s] = sqlite3_column_int64(st, 6 + s);
		err = ntp_series_acc__add(a, &row);
	}
	if (err) {
		sqlite3_finalize(st);
		return err;
	}
	return ntp_report__rows_end(db, path, st, rc, "cannot read the commands");
}

void ntp_series__free_groups(struct ntp_report_group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(groups[i].io_type);
		free(groups[i].ns);
	}
	free(groups);
}

int ntp_series__groups(sqlite3 *db, enum ntp_series_rows rows, enum ntp_diag_by_key by,
		       const struct ntp_read_where *w, const char *path,
		       struct ntp_report_group **groups, size_t *n)
{
	const struct rows_desc *d = &rows_descs[rows];
	struct ntp_report_group *g = NULL;
	size_t cap = 0;
	sqlite3_stmt *st;
	char *key, *from, *cols = NULL;
	int rc, err;

	*groups = NULL;
	*n = 0;
	/* the key's four columns, the start's place taken by the count */
	if (key_from(db, d, rows, by, &key, &from) ||
	    asprintf(&cols, "%.*s count(*)", (int)(strrchr(key, ',') - key + 1), key) < 0) {
		free(key);
		free(from);
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = prepare(db, from, cols, w, " GROUP BY 1, 2, 3, 4", path, &st);
	free(key);
	free(from);
	free(cols);
	if (err)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *io = (const char *)sqlite3_column_text(st, 1);
		const char *ns = (const char *)sqlite3_column_text(st, 3);
		struct ntp_report_group *x;

		if (*n == cap) {
			size_t c = cap ? 2 * cap : 64;
			void *p = realloc(g, c * sizeof(*g));

			if (!p)
				goto nomem;
			g = p;
			cap = c;
		}
		x = &g[*n];
		memset(x, 0, sizeof(*x));
		x->host_file = sqlite3_column_int(st, 0) + 1;
		x->bytes = sqlite3_column_int64(st, 2);
		x->e2e.n = (size_t)sqlite3_column_int64(st, 4);
		x->io_type = strdup(io ? io : "");
		x->ns = strdup(ns ? ns : "");
		(*n)++;
		if (!x->io_type || !x->ns)
			goto nomem;
	}
	*groups = g;
	return ntp_report__rows_end(db, path, st, rc, "cannot read the commands");
nomem:
	sqlite3_finalize(st);
	ntp_series__free_groups(g, *n);
	*n = 0;
	ntp_error("%s: %s", path, strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}
