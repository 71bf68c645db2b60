// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof's own stage views over a recording, and the check that its tables
 * are ntprof's (lib/ntp/db_guard.c says why).  What the embedded schema
 * defines is read once, by running it on an in-memory database: its views'
 * text and its tables' columns come from SQLite, not from a parser here, so
 * schema/ntp.sql stays the one definition of each.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_fail.h"
#include "lib/ntp/db_own.h"
#include "lib/ntp/db_schema.h"

/* ---- what the embedded schema defines ------------------------------------- */

#define MAX_TABLES 16
#define MAX_VIEWS 4
#define MAX_COLS 48

struct own_table {
	char *name;
	char *cols[MAX_COLS];
	int notnull[MAX_COLS];
	/*
	 * A column with a DEFAULT is an addition (schema/CHANGES: additions keep
	 * the version): files of earlier writers lack it, and may.
	 */
	int added[MAX_COLS];
	char *dflt[MAX_COLS];	/* its default's SQL, what a file without it reads */
	int ncols;
	int strict;
};

struct own_view {
	char *name;
	char *body;		/* from "AS" on */
};

static struct {
	struct own_table tables[MAX_TABLES];
	int ntables;
	struct own_view views[MAX_VIEWS];
	int nviews;
	int err;		/* the schema could not be read: a build error */
} own;

static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static char *dup_col(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return strdup(t ? t : "");
}

/* the view's text after its name: "AS SELECT ..." */
static char *view_body(const char *sql, const char *name)
{
	const char *p = strstr(sql, name);

	if (!p)
		return NULL;
	p += strlen(name);
	while (*p == ' ' || *p == '\n' || *p == '\t')
		p++;
	return strncmp(p, "AS", 2) ? NULL : strdup(p);
}

/*
 * The schema run on a scratch in-memory database, which then says its
 * tables' columns and its views' text: no parser of SQL text here.
 */
static void load_own(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc;

	own.err = 1;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, ntp_schema_sql, NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_schema"
			       " WHERE type IN ('table', 'view') ORDER BY rowid", -1, &st,
			       NULL) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);

		if (!strcmp(type, "view")) {
			struct own_view *v = &own.views[own.nviews];

			if (own.nviews == MAX_VIEWS)
				goto out;
			v->name = dup_col(st, 1);
			v->body = view_body((const char *)sqlite3_column_text(st, 2), v->name);
			if (!v->name || !v->body)
				goto out;
			own.nviews++;
		} else {
			if (own.ntables == MAX_TABLES)
				goto out;
			own.tables[own.ntables].name = dup_col(st, 1);
			if (!own.tables[own.ntables++].name)
				goto out;
		}
	}
	if (rc != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	for (int i = 0; i < own.ntables; i++) {
		struct own_table *t = &own.tables[i];
		char sql[256];

		snprintf(sql, sizeof(sql), "SELECT name, \"notnull\", (SELECT strict FROM"
			 " pragma_table_list WHERE schema = 'main' AND name = '%s'),"
			 " dflt_value IS NOT NULL, dflt_value FROM pragma_table_info('%s') ORDER BY cid",
			 t->name, t->name);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			goto out;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && t->ncols < MAX_COLS) {
			t->notnull[t->ncols] = sqlite3_column_int(st, 1);
			t->strict = sqlite3_column_int(st, 2);
			t->added[t->ncols] = sqlite3_column_int(st, 3);
			if (!(t->dflt[t->ncols] = dup_col(st, 4)) ||
			    !(t->cols[t->ncols++] = dup_col(st, 0)))
				goto out;
		}
		if (rc != SQLITE_DONE)
			goto out;
		sqlite3_finalize(st);
		st = NULL;
	}
	own.err = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
}

const char *ntp_db__own_table(int i)
{
	pthread_once(&own_once, load_own);
	return !own.err && i >= 0 && i < own.ntables ? own.tables[i].name : NULL;
}

/* ---- ntprof's views over a file ------------------------------------------- */

const char *ntp_db__view_name(char *buf, size_t len, const char *schema, const char *view)
{
	if (!strcmp(schema, "main"))
		snprintf(buf, len, "%s", view);
	else
		snprintf(buf, len, "%s_%s", schema, view);
	return buf;
}

static int table_in_file(sqlite3 *db, const char *schema, const char *table, char **sql_out)
{
	char sql[160];
	sqlite3_stmt *st;
	int rc;

	*sql_out = NULL;
	snprintf(sql, sizeof(sql), "SELECT type, sql FROM \"%s\".sqlite_schema WHERE name = ?1",
		 schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *text = (const char *)sqlite3_column_text(st, 1);

		*sql_out = strdup(text ? text : "");
		rc = type && !strcmp(type, "table") ? 1 : 2;
		if (!*sql_out)
			rc = -1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Which of ntprof's tables the file has as STRICT (bit i: own.tables[i]),
 * in one pragma: PRAGMA table_list prepares every view of every schema
 * whose columns it has not counted yet, whatever it is asked for, and a
 * pragma a table cost as much as the rest of opening a file.  0, or the
 * code of the error, printed.
 */
static int strict_tables(sqlite3 *db, const char *schema, const char *path, unsigned *bits)
{
	sqlite3_stmt *st;
	int rc;

	*bits = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, strict FROM pragma_table_list WHERE schema = ?1"
			       " AND type = 'table'", -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(db, path, "reading the schema");
	sqlite3_bind_text(st, 1, schema, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		for (int i = 0; i < own.ntables && name; i++)
			if (!strcasecmp(name, own.tables[i].name) && sqlite3_column_int(st, 1))
				*bits |= 1u << i;
	}
	if (rc != SQLITE_DONE)
		rc = ntp_db__fail(db, path, "reading the schema");
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

/*
 * Table t of the file as ntprof wrote it: an ordinary table with every
 * column of the schema and none generated.  Extra columns are allowed (a
 * later version may add some).  0, or the code of what is wrong, printed.
 */
static int check_table(sqlite3 *db, const char *schema, const char *path,
		       const struct own_table *t, int strict, int *found)
{
	char sql[160], *text;
	sqlite3_stmt *st;
	int kind, rc;

	memset(found, 0, MAX_COLS * sizeof(*found));
	kind = table_in_file(db, schema, t->name, &text);
	if (kind < 0)
		return ntp_db__fail(db, path, "reading the schema");
	if (kind == 0) {	/* absent: whether it must be is the reader's to say */
		for (int i = 0; i < t->ncols; i++)
			found[i] = 1;	/* and nothing to make up in the views */
		return 0;
	}
	if (kind == 2 || strncasecmp(text, "CREATE TABLE", 12)) {
		ntp_error("%s: corrupt: %s is not an ordinary table (%.40s...): a file ntprof did not write",
			  path, t->name, text);
		free(text);
		return NTP_EXIT_CORRUPT;
	}
	free(text);
	/* STRICT and NOT NULL as ntprof's: no text, no NULL where a time belongs */
	if (!strict && t->strict) {
		ntp_error("%s: corrupt: table %s is not STRICT: a file ntprof did not write", path,
			  t->name);
		return NTP_EXIT_CORRUPT;
	}
	snprintf(sql, sizeof(sql), "SELECT name, hidden, \"notnull\" FROM pragma_table_xinfo(?1, ?2)");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(db, path, "reading the schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (sqlite3_column_int(st, 1)) {
			ntp_error("%s: corrupt: %s.%s is a generated column: a file ntprof did not write",
				  path, t->name, name ? name : "?");
			sqlite3_finalize(st);
			return NTP_EXIT_CORRUPT;
		}
		for (int i = 0; i < t->ncols && name; i++) {
			if (strcasecmp(name, t->cols[i]))
				continue;
			found[i] = 1;
			if (t->notnull[i] && !sqlite3_column_int(st, 2)) {
				ntp_error("%s: corrupt: %s.%s may be NULL: a file ntprof did not write",
					  path, t->name, name);
				sqlite3_finalize(st);
				return NTP_EXIT_CORRUPT;
			}
		}
	}
	if (rc != SQLITE_DONE) {
		rc = ntp_db__fail(db, path, "reading the schema");
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	for (int i = 0; i < t->ncols; i++) {
		if (!found[i] && !t->added[i]) {
			ntp_error("%s: corrupt: table %s has no column %s", path, t->name, t->cols[i]);
			return NTP_EXIT_CORRUPT;
		}
	}
	return 0;
}

/*
 * "schema".table, or where the file's table lacks columns of later writers
 * (additions: schema/CHANGES), a subquery that has them at their defaults,
 * so that the views read every file alike.  SQLite flattens it: no cost.
 */
static void qualified_table(FILE *m, const char *schema, const struct own_table *t,
			    const int *found)
{
	int whole = 1;

	for (int i = 0; i < t->ncols; i++)
		whole &= found[i];
	if (whole) {
		fprintf(m, "\"%s\".%s", schema, t->name);
		return;
	}
	fputs("(SELECT *", m);
	for (int i = 0; i < t->ncols; i++)
		if (!found[i])
			fprintf(m, ", %s AS %s", t->dflt[i], t->cols[i]);
	fprintf(m, " FROM \"%s\".%s)", schema, t->name);
}

/* view v over schema: its body with each table of the schema qualified */
static char *temp_view_sql(const struct own_view *v, const char *schema,
			   int (*found)[MAX_COLS])
{
	char name[96], *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	const char *p = v->body;

	if (!m)
		return NULL;
	fprintf(m, "CREATE TEMP VIEW \"%s\" ", ntp_db__view_name(name, sizeof(name), schema, v->name));
	while (*p) {
		int done = 0;

		for (int i = 0; i < own.ntables && !done; i++) {
			size_t n = strlen(own.tables[i].name);

			if (!strncmp(p, "FROM ", 5) && !strncmp(p + 5, own.tables[i].name, n) &&
			    (p[5 + n] == '\n' || p[5 + n] == ' ' || p[5 + n] == ')' || !p[5 + n])) {
				fputs("FROM ", m);
				qualified_table(m, schema, &own.tables[i], found[i]);
				p += 5 + n;
				done = 1;
			}
		}
		if (!done)
			fputc(*p++, m);
	}
	if (fclose(m)) {
		free(sql);
		return NULL;
	}
	return sql;
}

int ntp_db__own_views(sqlite3 *db, const char *schema, const char *path)
{
	/* found[table][column]: the file's table has the column */
	int found[MAX_TABLES][MAX_COLS];
	unsigned strict;
	int err;

	pthread_once(&own_once, load_own);
	if (own.err) {
		ntp_error("%s: the embedded schema cannot be read (a build error)", path);
		return NTP_EXIT_FAILURE;
	}
	err = strict_tables(db, schema, path, &strict);
	for (int i = 0; i < own.ntables && !err; i++)
		err = check_table(db, schema, path, &own.tables[i], !!(strict & (1u << i)), found[i]);
	for (int i = 0; i < own.nviews && !err; i++) {
		char *sql = temp_view_sql(&own.views[i], schema, found);

		if (!sql) {
			ntp_error("%s: %s", path, strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
			err = ntp_db__fail(db, path, "creating ntprof's views");
		free(sql);
	}
	return err;
}
