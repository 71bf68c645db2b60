// SPDX-License-Identifier: GPL-2.0
/* A target recording's backend counters (model_backend.h). */
#include <errno.h>
#include <stdio.h>

#include "lib/core/grow.h"
#include "lib/model/model_backend.h"
#include "lib/model/model_source.h"
#include "lib/model/model_sql.h"

/* does schema hold table? */
static bool has_table(sqlite3 *db, const char *schema, const char *table)
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

int ntp_backend__read(struct ntp_source *s, int i, bool *has, struct ntp_backend_dev **v,
		      size_t *n)
{
	const char *schema = s->files[i].schema, *path = s->files[i].path;
	char sql[512];
	sqlite3_stmt *st;
	int rc;

	if (!has_table(s->db, schema, "backend_stats"))
		return 0;
	*has = true;
	snprintf(sql, sizeof(sql),
		 "SELECT device, total(queue_ms) * 1e6 / total(interval_ns), max(depth)"
		 " FROM \"%s\".backend_stats WHERE interval_ns > 0 GROUP BY 1", schema);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_report__db_fail(s->db, path, "cannot read the backend's counters");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *dev = sqlite3_column_text(st, 0);
		struct ntp_backend_dev *b;

		if (ntp_grow__for((void **)v, *n, sizeof(**v))) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		b = &(*v)[(*n)++];
		snprintf(b->dev, sizeof(b->dev), "%s", dev ? (const char *)dev : "");
		b->aqu = sqlite3_column_double(st, 1);
		b->depth = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
	}
	return ntp_report__rows_end(s->db, path, st, rc, "cannot read the backend's counters");
}
