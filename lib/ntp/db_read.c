// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a .ntp recording for reading (report, dump, compare).
 *
 * Each way a file can be wrong gets its own exit code and one line, checked
 * from the outside in: the file itself, the SQLite header, application_id,
 * user_version, ntprof's tables, then their structure.  The file is opened
 * read-only and with query_only set, and how it is opened depends on its
 * state (db_state.h): a reader never creates, changes or removes anything
 * beside a recording, whether finished, left in WAL mode by a killed
 * recorder, or still being written.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/jobs.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_read.h"
#include "lib/ntp/db_schema.h"
#include "lib/ntp/db_state.h"

#define SQLITE_HEADER_LEN 100
static const char sqlite_magic[16] = "SQLite format 3";	/* with its NUL */

/* the tables every version so far has; each is walked once at open */
static const char *const required_tables[] = { "meta", "hooks", "host_io", "intervals" };

static unsigned int be16(const unsigned char *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static unsigned int be32(const unsigned char *p)
{
	return (unsigned int)p[0] << 24 | (unsigned int)p[1] << 16 |
	       (unsigned int)p[2] << 8 | p[3];
}

/*
 * What can be told from the first 100 bytes and the size without SQLite:
 * not SQLite at all, or truncated (size not a whole number of pages, or
 * fewer pages than the header's valid page count); and the file's state,
 * which says how it is opened (*f).
 */
static int check_file(const char *path, struct ntp_db_file *f)
{
	unsigned char h[SQLITE_HEADER_LEN];
	unsigned int page_size, pages;
	struct stat st;
	ssize_t n;
	int fd, wal;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ntp_error("%s: %s", path, strerror(errno));
		return NTP_EXIT_NOFILE;
	}
	if (fstat(fd, &st)) {
		ntp_error("%s: %s", path, strerror(errno));
		close(fd);
		return NTP_EXIT_NOFILE;
	}
	if (!S_ISREG(st.st_mode)) {
		ntp_error("%s: %s", path, S_ISDIR(st.st_mode) ? strerror(EISDIR) :
			  "not a regular file (SQLite needs to seek in it)");
		close(fd);
		return NTP_EXIT_NOFILE;
	}
	n = pread(fd, h, sizeof(h), 0);
	if (n < 0) {
		ntp_error("%s: %s", path, strerror(errno));
		close(fd);
		return NTP_EXIT_NOFILE;
	}
	close(fd);

	ntp_db__state(path, h, (size_t)n, f);
	/*
	 * A recording killed mid-run (or that ran out of disk) keeps its
	 * committed pages in FILE-wal: the database file may then end in a
	 * short page, and only SQLite, reading both, can judge it.
	 */
	wal = f->state == NTP_DB_WAL ||
	      (f->state == NTP_DB_LIVE && n > 19 && h[19] == 2);
	if (n == 0) {
		ntp_error("%s: empty file, not an SQLite database", path);
		return NTP_EXIT_NOTSQLITE;
	}
	if (memcmp(h, sqlite_magic, n < 16 ? (size_t)n : 16)) {
		ntp_error("%s: not an SQLite database (no \"SQLite format 3\" header)", path);
		return NTP_EXIT_NOTSQLITE;
	}
	if (n < SQLITE_HEADER_LEN) {
		ntp_error("%s: truncated: %zd bytes, shorter than the SQLite header", path, n);
		return NTP_EXIT_CORRUPT;
	}

	switch (f->state) {
	case NTP_DB_LIVE:
		if (f->exclusive && n > 19 && h[19] == 2) {
			char who[32] = "another process";

			if (f->holder > 0)
				snprintf(who, sizeof(who), "process %d", (int)f->holder);
			ntp_error("%s: held exclusively by %s, which writes it (a recording on a file"
				  " system without shared memory maps): it can be read once that ends",
				  path, who);
			return NTP_EXIT_NOFILE;
		}
		break;
	case NTP_DB_WAL_MISSING:
		if (!f->ntp_header) {
			ntp_error("%s: its recording is in %s-wal, which is missing (a recording that"
				  " did not end keeps its data there: copy %s-wal with it)", path, path,
				  path);
			return NTP_EXIT_NOFILE;
		}
		break;
	case NTP_DB_HOT_JOURNAL:
		ntp_error("%s: a write to it was interrupted and %s-journal holds what undoes it;"
			  " 'ntprof finish %s' rolls it back", path, path, path);
		return NTP_EXIT_NOFILE;
	default:
		break;
	}

	page_size = be16(h + 16);
	if (page_size == 1)
		page_size = 65536;
	if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1))) {
		ntp_error("%s: corrupt: invalid page size %u in the SQLite header", path, page_size);
		return NTP_EXIT_CORRUPT;
	}
	if (wal)
		return 0;
	if (st.st_size % page_size) {
		ntp_error("%s: truncated: %lld bytes is not a whole number of %u-byte pages",
			  path, (long long)st.st_size, page_size);
		return NTP_EXIT_CORRUPT;
	}
	/* the header's page count is only valid when its version counter matches */
	pages = be32(h + 28);
	if (pages && be32(h + 24) == be32(h + 92) &&
	    (unsigned long long)st.st_size < (unsigned long long)pages * page_size) {
		ntp_error("%s: truncated: %lld bytes, the SQLite header says %u pages of %u bytes",
			  path, (long long)st.st_size, pages, page_size);
		return NTP_EXIT_CORRUPT;
	}
	return 0;
}

/* the exit code and one line for an SQLite error met while checking */
static int sqlite_failure(sqlite3 *db, const char *path, int rc, const char *doing)
{
	/* damage, the work limit, a schema SQLite cannot read ("unsupported file format") */
	if (ntp_db__error_code(db) == NTP_EXIT_CORRUPT && (rc & 0xff) != SQLITE_NOTADB)
		return ntp_db__fail(db, path, doing);
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		ntp_error("%s: not an SQLite database: %s", path, sqlite3_errmsg(db));
		return NTP_EXIT_NOTSQLITE;
	case SQLITE_RANGE:
		ntp_error("%s: corrupt: %s: %s", path, doing, sqlite3_errmsg(db));
		return NTP_EXIT_CORRUPT;
	default:
		ntp_error("%s: cannot read: %s: %s", path, doing, sqlite3_errmsg(db));
		return NTP_EXIT_NOFILE;
	}
}

/* run a one-value query; *out gets the integer */
static int query_int(sqlite3 *db, const char *path, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sqlite_failure(db, path, rc, sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		*out = 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : sqlite_failure(db, path, rc, sql);
}

static int table_exists(sqlite3 *db, const char *name, int *exists)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*exists = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * Is a line of quick_check's about a value rather than the structure: a
 * NULL where the table says NOT NULL, or a value of another type in a
 * STRICT column?  Those the readers count as impossible commands
 * (lib/model/model_groups.h), as they count a stage that goes backwards.
 */
static bool value_line(const char *line)
{
	return !strncmp(line, "NULL value in ", 14) ||
	       (!strncmp(line, "non-", 4) && strstr(line, " value in "));
}

/*
 * The tables of one row a command: the largest by far, whose check is
 * what costs (one more walk of every page), so that it runs on a thread of
 * its own while the reader reads (ntp_db__check_start()).
 */
static const char *const command_tables[] = { "host_io", "target_io", "join_pairs" };

static bool command_table(const char *table)
{
	for (size_t i = 0; i < sizeof(command_tables) / sizeof(command_tables[0]); i++)
		if (!strcmp(table, command_tables[i]))
			return true;
	return false;
}

/*
 * The structure of the file's tables, by SQLite's quick_check of each of
 * ntprof's tables (and the schema's own): every page of the table and its
 * indexes walked, every cell measured against its page's accounting, and
 * every row's record decoded.  A damaged page is then found wherever it
 * is and whichever command reads the file: not only a page that cannot
 * be read, which the readers would meet too, but one that reads as fewer
 * rows (a cell count or a child pointer lost), which no reader could tell
 * from a shorter recording.  Only ntprof's tables: their columns were
 * found ntprof's (no generated column, db_own.c), so the check evaluates
 * no expression of the file's.  quick_check reports the b-trees first and
 * each row's values after: up to 100 lines are read a table, and any that
 * is not about a value is damage.  commands: the tables of one row a
 * command (command_tables), else every other one and the schema.
 */
static int check_structure(sqlite3 *db, const char *path, bool commands)
{
	const char *table, *line, *nl;
	char sql[128];
	sqlite3_stmt *st;
	int rc, exists;

	for (int i = commands ? 0 : -1; (table = i < 0 ? "sqlite_schema" : ntp_db__own_table(i));
	     i++) {
		if (i >= 0 && command_table(table) != commands)
			continue;
		if (i >= 0) {
			rc = table_exists(db, table, &exists);
			if (rc != SQLITE_OK)
				return sqlite_failure(db, path, rc, "reading the schema");
			if (!exists)
				continue;
		}
		snprintf(sql, sizeof(sql), "PRAGMA main.quick_check(\"%s\")", table);
		rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		if (rc != SQLITE_OK)
			return sqlite_failure(db, path, rc, "checking its structure");
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			line = (const char *)sqlite3_column_text(st, 0);
			if (!line || !strcmp(line, "ok"))
				continue;
			/* "*** in database main ***\nPage 4: btreeInitPage() returns error code 11" */
			nl = strrchr(line, '\n');
			line = nl ? nl + 1 : line;
			if (value_line(line))
				continue;
			ntp_error("%s: corrupt: SQLite's check of its structure: %s", path, line);
			sqlite3_finalize(st);
			return NTP_EXIT_CORRUPT;
		}
		if (rc != SQLITE_DONE) {
			rc = sqlite_failure(db, path, rc, "checking its structure");
			sqlite3_finalize(st);
			return rc;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

/* application_id, user_version and the tables every version has */
static int check_db(sqlite3 *db, const char *path)
{
	int64_t app_id, version;
	size_t i;
	int err, rc, exists;

	err = query_int(db, path, "PRAGMA application_id", &app_id);
	if (err)
		return err;
	if (app_id != NTP_DB_APPLICATION_ID) {
		if (app_id)
			ntp_error("%s: not an ntprof recording (SQLite application_id 0x%08llx, not 0x%08x)",
				  path, (unsigned long long)(uint32_t)app_id, NTP_DB_APPLICATION_ID);
		else
			ntp_error("%s: not an ntprof recording (SQLite database without application_id)",
				  path);
		return NTP_EXIT_NOTNTP;
	}

	err = query_int(db, path, "PRAGMA user_version", &version);
	if (err)
		return err;
	if (version > NTP_DB_SCHEMA_VERSION) {
		ntp_error("%s: recording has schema version %lld; this ntprof reads versions %d to %d: use a newer ntprof",
			  path, (long long)version, NTP_DB_MIN_READABLE, NTP_DB_SCHEMA_VERSION);
		return NTP_EXIT_TOONEW;
	}
	if (version < NTP_DB_MIN_READABLE) {
		ntp_error("%s: not an ntprof recording (schema version %lld; this ntprof reads versions %d to %d)",
			  path, (long long)version, NTP_DB_MIN_READABLE, NTP_DB_SCHEMA_VERSION);
		return NTP_EXIT_NOTNTP;
	}

	for (i = 0; i < sizeof(required_tables) / sizeof(required_tables[0]); i++) {
		rc = table_exists(db, required_tables[i], &exists);
		if (rc != SQLITE_OK)
			return sqlite_failure(db, path, rc, "reading the schema");
		if (!exists) {
			ntp_error("%s: corrupt: the recording has no table %s", path,
				  required_tables[i]);
			return NTP_EXIT_CORRUPT;
		}
	}
	return 0;
}

int ntp_db__open_read(sqlite3 **dbp, const char *path)
{
	int64_t host_rows;
	int err = ntp_db__open_read_counted(dbp, path, &host_rows);

	/* and the tables of one row a command, here and now */
	if (!err)
		err = check_structure(*dbp, path, true);
	if (err) {
		sqlite3_close(*dbp);
		*dbp = NULL;
	}
	return err;
}

/*
 * A connection reading path, in the state f that its check found
 * (lib/ntp/db_state.h): read-only, opened as that state needs so that
 * nothing is made, changed or removed beside the file, no checkpoint at
 * close; flags are more SQLITE_OPEN_* flags (NOMUTEX).  Neither guarded
 * nor checked.  0, or an NTP_EXIT_* code after one line.
 */
static int ntp_db__connect(sqlite3 **dbp, const char *path, const struct ntp_db_file *f, int flags)
{
	sqlite3 *db = NULL;
	char *uri;
	int err, rc;

	*dbp = NULL;
	uri = ntp_db__read_uri(path, f->state);
	if (!uri) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | flags, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		err = db ? sqlite_failure(db, path, rc, "opening")
			 : (ntp_error("%s: %s", path, strerror(ENOMEM)), NTP_EXIT_FAILURE);
		sqlite3_close(db);
		return err;
	}
	sqlite3_extended_result_codes(db, 1);
	/* nothing is written when the connection closes: no checkpoint of a FILE-wal */
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/* before the first read, which opens the log: its index then stays in memory */
	if (ntp_db__read_exclusive(f->state) &&
	    sqlite3_exec(db, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK) {
		err = sqlite_failure(db, path, sqlite3_errcode(db), "opening");
		sqlite3_close(db);
		return err;
	}
	/* a live file's writer may hold a lock a moment (its commit, its checkpoint) */
	if (f->state == NTP_DB_LIVE)
		sqlite3_busy_timeout(db, 10000);
	*dbp = db;
	return 0;
}

static int open_read(sqlite3 **dbp, const char *path, int64_t *host_rows, bool finishing);

int ntp_db__open_read_counted(sqlite3 **dbp, const char *path, int64_t *host_rows)
{
	return open_read(dbp, path, host_rows, false);
}

int ntp_db__open_check(sqlite3 **dbp, const char *path)
{
	int64_t host_rows;

	return open_read(dbp, path, &host_rows, true);
}

static int open_read(sqlite3 **dbp, const char *path, int64_t *host_rows, bool finishing)
{
	struct ntp_db_file f;
	sqlite3 *db = NULL;
	int err;

	*dbp = NULL;
	*host_rows = -1;
	err = check_file(path, &f);
	if (err)
		return err;
	if (f.state == NTP_DB_WAL_MISSING)
		ntp_warn("%s: left in WAL mode without its %s-wal: read as it is, without what was"
			 " committed to %s-wal since its last checkpoint", path, path, path);
	/* record spools the commands and writes them into FILE when it ends (db_write.h) */
	if (!finishing && ntp_db__has_spool(path))
		ntp_warn("%s: its commands are in %s%s until %s: read without them", path, path,
			 NTP_SPOOL_SUFFIX, f.state == NTP_DB_LIVE ? "its recording ends" :
			 "ntprof finish writes them into it");
	ntp_debug("%s: opened %s", path, f.state == NTP_DB_LIVE ? "as a file in use (SQLite's locks)" :
		  f.state == NTP_DB_WAL ? "with its -wal, its index in memory" :
		  "immutable");

	err = ntp_db__connect(&db, path, &f, 0);
	if (err)
		return err;
	/* no view, trigger or unbounded statement of the file's (db_guard.c) */
	err = ntp_db__guard(db);
	/* the work budget of a file its size first: the check reads every row */
	if (!err)
		err = ntp_db__budget_add(db, "main", path);
	if (!err)
		err = check_db(db, path);
	/* ntprof's tables as ntprof's, before SQLite checks anything in them */
	if (!err)
		err = ntp_db__own_views(db, "main", path);
	/* the tables of one row a command are the reader's to check: ntp_db__check_start() */
	if (!err)
		err = check_structure(db, path, false);
	if (!err)
		err = query_int(db, path, "SELECT count(*) FROM main.host_io", host_rows);
	/* a second guard besides READONLY: no statement may write (TEMP views made) */
	if (!err && sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
		err = sqlite_failure(db, path, sqlite3_errcode(db), "opening");
	if (err) {
		sqlite3_close(db);
		return err;
	}
	*dbp = db;
	return 0;
}

/*
 * The state of path again, for a file checked before (ntp_db__open_read):
 * 0, or NTP_EXIT_NOFILE after one line when it is gone or can no longer be
 * read as it was (its -wal gone, a write to it interrupted).
 */
static int ntp_db__open_state(const char *path, struct ntp_db_file *f)
{
	int e = ntp_db__probe(path, f);

	if (e) {
		ntp_error("%s: %s", path, strerror(-e));
		return NTP_EXIT_NOFILE;
	}
	if (f->state == NTP_DB_HOT_JOURNAL || (f->state == NTP_DB_WAL_MISSING && !f->ntp_header)) {
		ntp_error("%s: no longer as it was when it was checked: %s", path,
			  f->state == NTP_DB_HOT_JOURNAL ? "a write to it was interrupted" :
			  "its -wal is gone");
		return NTP_EXIT_NOFILE;
	}
	return 0;
}

int ntp_db__attach_read(sqlite3 *db, const char *path, const char *schema)
{
	struct ntp_db_file f;
	sqlite3_stmt *st;
	char *uri;
	int err, rc;

	err = ntp_db__open_state(path, &f);
	if (err)
		return err;
	uri = ntp_db__read_uri(path, f.state);
	if (!uri) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	/*
	 * The locking mode a file attached next gets: exclusive before a WAL
	 * file's first read keeps its index in memory (db_state.h).  It
	 * changes none already attached in a way that matters: a WAL file's
	 * index stays in memory, an immutable file takes no locks.
	 */
	if (sqlite3_exec(db, ntp_db__read_exclusive(f.state) ? "PRAGMA locking_mode = EXCLUSIVE" :
			 "PRAGMA locking_mode = NORMAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "ATTACH ?1 AS ?2", -1, &st, NULL) != SQLITE_OK) {
		ntp_error("%s: cannot attach: %s", path, sqlite3_errmsg(db));
		free(uri);
		return NTP_EXIT_FAILURE;
	}
	sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	free(uri);
	if (rc != SQLITE_DONE) {
		ntp_error("%s: cannot attach: %s", path, sqlite3_errmsg(db));
		return NTP_EXIT_NOFILE;
	}
	/* a connection without URI support would have opened "file:..." read-write */
	if (sqlite3_db_readonly(db, schema) != 1) {
		ntp_error("%s: cannot attach read-only: the connection was not opened with "
			  "SQLITE_OPEN_URI", path);
		return NTP_EXIT_FAILURE;
	}
	if (f.state == NTP_DB_LIVE)
		sqlite3_busy_timeout(db, 10000);
	return 0;
}

int ntp_db__open_again(sqlite3 **dbp, const char *path)
{
	struct ntp_db_file f;
	sqlite3 *db = NULL;
	int err;

	*dbp = NULL;
	err = ntp_db__open_state(path, &f);
	if (!err)
		err = ntp_db__connect(&db, path, &f, SQLITE_OPEN_NOMUTEX);
	if (err)
		return err;
	err = ntp_db__guard(db);
	if (!err)
		err = ntp_db__guard_file(db, "main", path);
	if (!err && sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
		err = ntp_db__fail(db, path, "opening");
	if (err) {
		sqlite3_close(db);
		return err;
	}
	*dbp = db;
	return 0;
}

/* ---- the tables of one row a command, checked while the reader reads ---------- */

struct ntp_db_check {
	pthread_t thread;
	bool started;		/* a thread of its own (else checked at the start) */
	int n;
	char **paths;
	pthread_mutex_t lock;
	sqlite3 *db;		/* the connection checking now: interrupted by a stop */
	bool stop;
	int err;		/* the first damage in path order, its line in msg */
	char msg[NTP_DB_FAIL_LINE];
};

/* file i checked on a connection of its own: read-only, guarded, its work budget */
static int check_one(struct ntp_db_check *c, int i)
{
	const char *path = c->paths[i];
	struct ntp_db_file f;
	sqlite3 *db = NULL;
	int err;

	err = ntp_db__open_state(path, &f);
	if (!err)
		err = ntp_db__connect(&db, path, &f, SQLITE_OPEN_NOMUTEX);
	if (err)
		return err;
	pthread_mutex_lock(&c->lock);
	c->db = db;
	if (c->stop)
		sqlite3_interrupt(db);
	pthread_mutex_unlock(&c->lock);
	err = ntp_db__guard(db);
	if (!err)
		err = ntp_db__budget_add(db, "main", path);
	if (!err && sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
		err = sqlite_failure(db, path, sqlite3_errcode(db), "opening");
	if (!err)
		err = check_structure(db, path, true);
	pthread_mutex_lock(&c->lock);
	c->db = NULL;
	pthread_mutex_unlock(&c->lock);
	sqlite3_close(db);
	return err;
}

/* the files in turn, their lines held (not printed): the first failure is the verdict */
static void *check_run(void *arg)
{
	struct ntp_db_check *c = arg;

	ntp_err__hold(c->msg, sizeof(c->msg));
	for (int i = 0; i < c->n && !c->err; i++) {
		bool stop;

		pthread_mutex_lock(&c->lock);
		stop = c->stop;
		pthread_mutex_unlock(&c->lock);
		if (stop)
			break;
		c->err = check_one(c, i);
	}
	ntp_err__hold(NULL, 0);
	return NULL;
}

int ntp_db__check_start(struct ntp_db_check **cp, const char *const *paths, int n)
{
	struct ntp_db_check *c = calloc(1, sizeof(*c));

	*cp = NULL;
	if (!c || !(c->paths = calloc(n > 0 ? n : 1, sizeof(*c->paths))))
		goto nomem;
	pthread_mutex_init(&c->lock, NULL);
	for (int i = 0; i < n; i++) {
		c->paths[i] = strdup(paths[i]);
		if (!c->paths[i])
			goto nomem;
		c->n++;
	}
	/* one thread asked for, or no thread to be had: the check is made here */
	if (ntp_jobs__threads() > 1 && sqlite3_threadsafe() &&
	    !pthread_create(&c->thread, NULL, check_run, c))
		c->started = true;
	else
		check_run(c);
	*cp = c;
	return 0;
nomem:
	ntp_db__check_free(c);
	ntp_error("%s: %s", n > 0 ? paths[0] : "checking", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

int ntp_db__check_wait(struct ntp_db_check *c, char *msg, size_t len)
{
	if (len)
		msg[0] = '\0';
	if (!c)
		return 0;
	if (c->started) {
		pthread_join(c->thread, NULL);
		c->started = false;
	}
	if (c->err && len)
		snprintf(msg, len, "%s", c->msg);
	return c->err;
}

void ntp_db__check_free(struct ntp_db_check *c)
{
	if (!c)
		return;
	if (c->started) {
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		if (c->db)
			sqlite3_interrupt(c->db);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
	}
	for (int i = 0; c->paths && i < c->n; i++)
		free(c->paths[i]);
	free(c->paths);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

bool ntp_db__has_column(sqlite3 *db, const char *schema, const char *table, const char *col)
{
	sqlite3_stmt *st;
	bool yes;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1, ?2) WHERE name = ?3", -1,
			       &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, col, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}
