// SPDX-License-Identifier: GPL-2.0
/*
 * series: the rows, in the order of their start (series_scan.h).  The
 * stages are the schema's views' (host_stages, target_stages) and the
 * join's (temp.joined), as report reads them: nothing is recomputed here.
 */
#include <errno.h>

#include "lib/cli/exit.h"
#include "lib/model/model_sql.h"
#include "lib/series/series_scan.h"

/* column 0 the file (from 0), 1..3 the key, 4 the start, 5 e2e, then the stages */
static int read_rows(struct ntp_series_acc *a, sqlite3 *db, const char *path, const char *sql)
{
	sqlite3_stmt *st;
	int rc, err = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return ntp_report__db_fail(db, path, "cannot read the commands");
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

int ntp_series__scan_one(struct ntp_series_acc *a, sqlite3 *db, const char *path, bool target)
{
	/* ties broken by id: the same order on every run */
	static const char host_sql[] =
		"SELECT 0, io_type, bytes, namespace, h_start_ns, e2e_ns, block_ns, driver_ns,"
		" network_star_ns FROM host_stages ORDER BY h_start_ns, id";
	static const char target_sql[] =
		"SELECT 0, io_type, bytes, device, t_recv_ns, residence_ns, target_driver_ns,"
		" storage_ns FROM target_stages ORDER BY t_recv_ns, id";

	return read_rows(a, db, path, target ? target_sql : host_sql);
}

int ntp_series__scan_joined(struct ntp_series_acc *a, struct ntp_join *j, const char *path)
{
	/* seq: host file by host file, by (h_start_ns, host id) within one */
	static const char sql[] =
		"SELECT host_file, io_type, bytes, namespace, h_start_ns, e2e_ns, block_ns,"
		" driver_ns, network_ns, target_driver_ns, storage_ns FROM temp.joined ORDER BY seq";

	return read_rows(a, ntp_join__db(j), path, sql);
}
