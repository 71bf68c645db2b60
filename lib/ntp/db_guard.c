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
 *                commands: lib/model/model_groups.h.)
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_guard.h"

#define NTP_DB_BUDGET_BASE (20LL * 1000 * 1000)
#define NTP_DB_BUDGET_PER_BYTE 50LL
#define NTP_DB_MAX_LENGTH (16 * 1024 * 1024)
/* the progress handler runs every this many steps */
#define NTP_DB_STEP_GRAIN 4096

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
	/* closing writes nothing into a file read: no checkpoint of its -wal */
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) == SQLITE_OK;
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

static long long file_bytes(const char *path, const char *suffix)
{
	char name[4096];
	struct stat st;

	if (snprintf(name, sizeof(name), "%s%s", path, suffix) >= (int)sizeof(name) ||
	    stat(name, &st))
		return 0;
	return (long long)st.st_size;
}

int ntp_db__budget_add(sqlite3 *db, const char *schema, const char *path)
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

int ntp_db__guard_file(sqlite3 *db, const char *schema, const char *path)
{
	int err = ntp_db__budget_add(db, schema, path);

	return err ? err : ntp_db__own_views(db, schema, path);
}
