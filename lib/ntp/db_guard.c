// SPDX-License-Identifier: GPL-2.0
/*
 * Reading recordings from anywhere: a .ntp file is made to be copied
 * between machines, so a reader treats every file as untrusted.  What a
 * file could make SQLite execute on a read-only connection, and what
 * covers each:
 *
 *   views        the readers query the stage views; the file's own could
 *                be anything (an endless recursive CTE, a cross join).
 *                ntprof's definitions, from the embedded schema/ntp.sql
 *                (the one text of each view), are created as TEMP views
 *                on every reading connection, which unqualified names find
 *                first; the attached files of a join get theirs by name
 *                (ntp0_host_stages).  And SQLITE_DBCONFIG_ENABLE_VIEW off
 *                disables every view but TEMP ones (SQLite >= 3.35), so a
 *                file's view cannot even be reached by mistake.
 *   tables       a "table" the readers read could be a view or a virtual
 *                table by that name, or have generated columns (computed
 *                on read), or hold text and NULLs where times belong: each
 *                table of schema/ntp.sql in the file must be an ordinary
 *                CREATE TABLE, STRICT where ntprof's is, with ntprof's
 *                columns, NOT NULL where they are and none generated, else
 *                the file is corrupt.  (What a damaged page still holds
 *                against its declaration, the readers count as impossible
 *                commands: lib/report/report_groups.h.)
 *   triggers     fire on writes only; the connection is read-only and
 *                query_only, and SQLITE_DBCONFIG_ENABLE_TRIGGER is off.
 *   CHECK, DEFAULT, partial and expression indexes
 *                are evaluated when rows are written, never when read: an
 *                index on an expression is read as stored.
 *   functions    trusted_schema off: the file's schema may call no
 *                function that is not innocuous; DEFENSIVE: no
 *                writable_schema, no shadow-table writes.  No extension
 *                can be loaded (the default, said again).
 *   collations   only SQLite's built-in ones exist here; a file naming
 *                another fails to prepare (a corrupt file).
 *   the schema   is parsed once, in time linear in its size.
 *
 * Our own queries are then linear in the rows (a scan, or lookups by
 * id), so a file's work is proportional to its size.  Still, no query may
 * run unbounded, whatever was missed above or whatever a damaged b-tree
 * does: a progress handler stops every statement on the connection once
 * together they have run more virtual machine steps than a file of its
 * size can need (NTP_DB_BUDGET_BASE plus NTP_DB_BUDGET_PER_BYTE per byte
 * of the file and its -wal, fifty times what the readers were measured
 * to need: under one step a byte for the heaviest, dump and a joined
 * --stages=detail).  A string
 * longer than NTP_DB_MAX_LENGTH is an error too (zeroblob(1e9) would be
 * allowed otherwise).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_schema.h"

#define NTP_DB_BUDGET_BASE (20LL * 1000 * 1000)
#define NTP_DB_BUDGET_PER_BYTE 50LL
#define NTP_DB_MAX_LENGTH (16 * 1024 * 1024)
/* the progress handler runs every this many steps */
#define NTP_DB_STEP_GRAIN 4096

/* ---- what the embedded schema defines ------------------------------------- */

#define MAX_TABLES 8
#define MAX_VIEWS 4
#define MAX_COLS 32

struct own_table {
	char *name;
	char *cols[MAX_COLS];
	int notnull[MAX_COLS];
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
			 " pragma_table_list WHERE schema = 'main' AND name = '%s')"
			 " FROM pragma_table_info('%s') ORDER BY cid", t->name, t->name);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			goto out;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && t->ncols < MAX_COLS) {
			t->notnull[t->ncols] = sqlite3_column_int(st, 1);
			t->strict = sqlite3_column_int(st, 2);
			if (!(t->cols[t->ncols++] = dup_col(st, 0)))
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

/* ---- the work budget -------------------------------------------------------- */

/* the files a connection reads, by schema: what a failure names */
#define MAX_FILES 64

struct budget {
	sqlite3_int64 left;
	int nfiles;
	struct {
		char schema[32];
		char *path;
	} files[MAX_FILES];
};

static void budget_free(void *arg)
{
	struct budget *b = arg;

	for (int i = 0; i < b->nfiles; i++)
		free(b->files[i].path);
	free(b);
}

static int budget_step(void *arg)
{
	struct budget *b = arg;

	b->left -= NTP_DB_STEP_GRAIN;
	return b->left < 0;	/* nonzero: SQLITE_INTERRUPT */
}

/*
 * ntp_guard_add(bytes, schema, path): more budget for a file of that size,
 * open as schema (the one handle on the budget)
 */
static void budget_add(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct budget *b = sqlite3_user_data(ctx);
	sqlite3_int64 n = sqlite3_value_int64(argv[0]), add;
	const char *schema = (const char *)sqlite3_value_text(argv[1]);
	const char *path = (const char *)sqlite3_value_text(argv[2]);

	if (n < 0 || __builtin_mul_overflow(n, NTP_DB_BUDGET_PER_BYTE, &add) ||
	    __builtin_add_overflow(b->left, add, &b->left))
		b->left = INT64_MAX;
	if (schema && path && b->nfiles < MAX_FILES) {
		snprintf(b->files[b->nfiles].schema, sizeof(b->files[0].schema), "%s", schema);
		b->files[b->nfiles].path = strdup(path);
		if (b->files[b->nfiles].path)
			b->nfiles++;
	}
	sqlite3_result_null(ctx);
}

/* ntp_guard_path(schema): the path that schema was opened from, or NULL */
static void budget_path(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct budget *b = sqlite3_user_data(ctx);
	const char *schema = (const char *)sqlite3_value_text(argv[0]);

	sqlite3_result_null(ctx);
	for (int i = 0; schema && i < b->nfiles; i++)
		if (!strcmp(b->files[i].schema, schema))
			sqlite3_result_text(ctx, b->files[i].path, -1, SQLITE_TRANSIENT);
}

int ntp_db__guard(sqlite3 *db)
{
	struct budget *b;
	sqlite3_stmt *st;
	int ok = 1;

	/* once per connection: a second call (the next ATTACHed file) keeps the budget */
	if (sqlite3_prepare_v2(db, "SELECT ntp_guard_add(0, NULL, NULL)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		ntp_error("%s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	b->left = NTP_DB_BUDGET_BASE;
	/* the connection frees b when it closes: the function's destructor */
	if (sqlite3_create_function_v2(db, "ntp_guard_add", 3, SQLITE_UTF8 | SQLITE_DIRECTONLY, b,
				       budget_add, NULL, NULL, budget_free) != SQLITE_OK ||
	    sqlite3_create_function_v2(db, "ntp_guard_path", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, b,
				       budget_path, NULL, NULL, NULL) != SQLITE_OK) {
		ntp_error("cannot guard the connection: %s", sqlite3_errmsg(db));
		return NTP_EXIT_FAILURE;
	}
	sqlite3_progress_handler(db, NTP_DB_STEP_GRAIN, budget_step, b);
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) == SQLITE_OK;
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) == SQLITE_OK;
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL) == SQLITE_OK;
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL) == SQLITE_OK;
	/* before 3.35 this would disable the TEMP views as well */
	if (sqlite3_libversion_number() >= 3035000)
		ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL) == SQLITE_OK;
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, NTP_DB_MAX_LENGTH);
	if (!ok) {
		ntp_error("cannot guard the connection: %s", sqlite3_errmsg(db));
		return NTP_EXIT_FAILURE;
	}
	return 0;
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
 * Table t of the file as ntprof wrote it: an ordinary table with every
 * column of the schema and none generated.  Extra columns are allowed (a
 * later version may add some).  0, or the code of what is wrong, printed.
 */
static int check_table(sqlite3 *db, const char *schema, const char *path,
		       const struct own_table *t)
{
	char sql[160], *text;
	sqlite3_stmt *st;
	int kind, rc, found[MAX_COLS] = { 0 };

	kind = table_in_file(db, schema, t->name, &text);
	if (kind < 0)
		return ntp_db__fail(db, path, "reading the schema");
	if (kind == 0)		/* absent: whether it must be is the reader's to say */
		return 0;
	if (kind == 2 || strncasecmp(text, "CREATE TABLE", 12)) {
		ntp_error("%s: corrupt: %s is not an ordinary table (%.40s...): a file ntprof did not write",
			  path, t->name, text);
		free(text);
		return NTP_EXIT_CORRUPT;
	}
	free(text);
	/* STRICT and NOT NULL as ntprof's: no text, no NULL where a time belongs */
	snprintf(sql, sizeof(sql), "SELECT strict FROM pragma_table_list WHERE schema = ?2 AND name = ?1");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(db, path, "reading the schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) < t->strict;
	sqlite3_finalize(st);
	if (rc) {
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
		if (!found[i]) {
			ntp_error("%s: corrupt: table %s has no column %s", path, t->name, t->cols[i]);
			return NTP_EXIT_CORRUPT;
		}
	}
	return 0;
}

/* view v over schema: its body with each table of the schema qualified */
static char *temp_view_sql(const struct own_view *v, const char *schema)
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
				fprintf(m, "FROM \"%s\".%s", schema, own.tables[i].name);
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

static long long file_bytes(const char *path, const char *suffix)
{
	char name[4096];
	struct stat st;

	if (snprintf(name, sizeof(name), "%s%s", path, suffix) >= (int)sizeof(name) ||
	    stat(name, &st))
		return 0;
	return (long long)st.st_size;
}

static int add_budget(sqlite3 *db, const char *schema, const char *path)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT ntp_guard_add(?1, ?2, ?3)", -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(db, path, "guarding the connection");
	sqlite3_bind_int64(st, 1, file_bytes(path, "") + file_bytes(path, "-wal"));
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : ntp_db__fail(db, path, "guarding the connection");
}

int ntp_db__own_views(sqlite3 *db, const char *schema, const char *path)
{
	int err;

	pthread_once(&own_once, load_own);
	if (own.err) {
		ntp_error("%s: the embedded schema cannot be read (a build error)", path);
		return NTP_EXIT_FAILURE;
	}
	err = add_budget(db, schema, path);
	for (int i = 0; i < own.ntables && !err; i++)
		err = check_table(db, schema, path, &own.tables[i]);
	for (int i = 0; i < own.nviews && !err; i++) {
		char *sql = temp_view_sql(&own.views[i], schema);

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

int ntp_db__open_again(sqlite3 **dbp, const char *path)
{
	sqlite3 *db = NULL;
	int err;

	*dbp = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		ntp_error("%s: cannot open the recording again: %s", path,
			  db ? sqlite3_errmsg(db) : strerror(ENOMEM));
		sqlite3_close(db);
		return NTP_EXIT_NOFILE;
	}
	sqlite3_extended_result_codes(db, 1);
	err = ntp_db__guard(db);
	if (!err)
		err = ntp_db__own_views(db, "main", path);
	if (!err && sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
		err = ntp_db__fail(db, path, "opening");
	if (err) {
		sqlite3_close(db);
		return err;
	}
	*dbp = db;
	return 0;
}

/* ---- what an error means ------------------------------------------------------ */

int ntp_db__error_code(sqlite3 *db)
{
	const char *msg = sqlite3_errmsg(db);

	switch (sqlite3_errcode(db) & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_FORMAT:
	case SQLITE_INTERRUPT:
	case SQLITE_TOOBIG:
	case SQLITE_MISMATCH:
		return NTP_EXIT_CORRUPT;
	case SQLITE_ERROR:
		/* what a file without ntprof's tables and columns gives our statements */
		if (msg && (!strncmp(msg, "no such table", 13) || !strncmp(msg, "no such column", 14) ||
			    !strncmp(msg, "no such collation", 17) || strstr(msg, "malformed") ||
			    strstr(msg, "unsupported file format")))
			return NTP_EXIT_CORRUPT;
		return NTP_EXIT_FAILURE;
	default:
		return NTP_EXIT_FAILURE;
	}
}

/*
 * Which of the files ATTACHed to db is damaged: a statement over several
 * (the join's temp.joined) does not say.  The first whose quick_check
 * fails, by the path it was opened from; NULL when none does or db reads
 * one file.  Only after a failure: the check reads every page.
 */
static char *damaged_file(sqlite3 *db)
{
	sqlite3_stmt *st, *chk, *name;
	char *path = NULL, sql[96];

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_database_list"
			       " WHERE name NOT IN ('main', 'temp')", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	/* the work limit is spent on what failed: the check has its own, its size */
	sqlite3_progress_handler(db, 0, NULL, NULL);
	while (!path && sqlite3_step(st) == SQLITE_ROW) {
		const char *schema = (const char *)sqlite3_column_text(st, 0);
		int bad;

		snprintf(sql, sizeof(sql), "PRAGMA \"%s\".quick_check(1)", schema ? schema : "");
		if (!schema || sqlite3_prepare_v2(db, sql, -1, &chk, NULL) != SQLITE_OK)
			continue;
		bad = sqlite3_step(chk) != SQLITE_ROW ||
		      strcmp((const char *)sqlite3_column_text(chk, 0), "ok");
		sqlite3_finalize(chk);
		if (!bad || sqlite3_prepare_v2(db, "SELECT ntp_guard_path(?1)", -1, &name,
					       NULL) != SQLITE_OK)
			continue;
		sqlite3_bind_text(name, 1, schema, -1, SQLITE_STATIC);
		if (sqlite3_step(name) == SQLITE_ROW && sqlite3_column_text(name, 0))
			path = strdup((const char *)sqlite3_column_text(name, 0));
		sqlite3_finalize(name);
	}
	sqlite3_finalize(st);
	return path;
}

int ntp_db__fail(sqlite3 *db, const char *path, const char *what)
{
	int code = ntp_db__error_code(db), rc = sqlite3_errcode(db) & 0xff;
	char *msg = strdup(sqlite3_errmsg(db)), *damaged = NULL;

	/* the message first: what follows runs statements of its own */
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		damaged = damaged_file(db);
	if (damaged)
		path = damaged;
	if (rc == SQLITE_INTERRUPT)
		ntp_error("%s: corrupt: %s: stopped after more work than a recording of its size needs (a crafted or damaged file)",
			  path, what);
	else if (code == NTP_EXIT_CORRUPT)
		ntp_error("%s: corrupt: %s: %s", path, what, msg ? msg : "?");
	else
		ntp_error("%s: %s: %s", path, what, msg ? msg : "?");
	free(msg);
	free(damaged);
	return code;
}
