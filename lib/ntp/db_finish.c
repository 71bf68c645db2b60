// SPDX-License-Identifier: GPL-2.0
/* Finishing a recording in place (lib/ntp/db_finish.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/outfile.h"
#include "lib/ntp/db_finish.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_read.h"
#include "lib/ntp/db_state.h"
#include "lib/ntp/db_write.h"

/* one line for a failure of db while finishing path: SQLite's cause and the system's */
static int write_fail(sqlite3 *db, const char *path, const char *doing)
{
	int e = db ? sqlite3_system_errno(db) : ENOMEM;

	ntp_error("%s: cannot finish it in place: %s: %s%s%s", path, doing,
		  db ? sqlite3_errmsg(db) : strerror(ENOMEM), e && db ? ": " : "",
		  e && db ? strerror(e) : "");
	return NTP_EXIT_FAILURE;
}

/* a pragma's one row: the text of column col into buf */
static int pragma(sqlite3 *db, const char *path, const char *sql, int col, char *buf, size_t len)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return write_fail(db, path, sql);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = write_fail(db, path, sql);
		sqlite3_finalize(st);
		return rc;
	}
	snprintf(buf, len, "%s", sqlite3_column_text(st, col) ? (const char *)sqlite3_column_text(st, col) : "");
	sqlite3_finalize(st);
	return 0;
}

/* path opened read-write by URI, with extended codes and a 10 s busy wait; 0 or the exit */
static int open_rw(const char *path, sqlite3 **dbp)
{
	sqlite3 *db = NULL;
	char *uri;
	int err;

	*dbp = NULL;
	uri = ntp_db__file_uri(path, "rw");
	if (!uri) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		err = write_fail(db, path, "opening it to write");
		sqlite3_close(db);
		free(uri);
		return err;
	}
	free(uri);
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, 10000);
	*dbp = db;
	return 0;
}

/*
 * The file opened read-write as SQLite opens any: the log is read back,
 * or the interrupted write rolled back, at the first read; then the log
 * checkpointed into the file, and the file out of WAL mode.
 */
static int finish_in_place(const char *path)
{
	char busy[32], mode[32];
	sqlite3 *db;
	int err;

	err = open_rw(path, &db);
	if (err)
		return err;
	/* the file's own SQL never runs here either (lib/ntp/db_guard.h) */
	err = ntp_db__guard(db);
	if (!err)
		err = pragma(db, path, "PRAGMA wal_checkpoint(TRUNCATE)", 0, busy, sizeof(busy));
	if (!err && strcmp(busy, "0")) {
		ntp_error("%s: cannot finish it in place: another process is reading it", path);
		err = NTP_EXIT_FAILURE;
	}
	if (!err)
		err = pragma(db, path, "PRAGMA journal_mode = DELETE", 0, mode, sizeof(mode));
	if (!err && strcmp(mode, "delete")) {
		ntp_error("%s: cannot finish it in place: it stays in journal mode %s", path, mode);
		err = NTP_EXIT_FAILURE;
	}
	if (sqlite3_close(db) != SQLITE_OK && !err)
		err = write_fail(db, path, "closing it");
	return err;
}

/*
 * path's spool into rows, as record's close does it, on a connection of its
 * own: the file's SQL may run nothing (no triggers, no untrusted functions,
 * defensive), but no reader's work budget applies, which counts the file's
 * bytes and not the spool's.
 */
static int import_spool(const char *path, uint64_t *taken)
{
	sqlite3 *db;
	int err, ok = 1;

	err = open_rw(path, &db);
	if (err)
		return err;
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) == SQLITE_OK;
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) == SQLITE_OK;
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL) == SQLITE_OK;
	/* a failed import leaves FILE as it found it: its -wal too */
	ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) == SQLITE_OK;
	err = ok ? ntp_writer__import_spool(db, path, taken) : write_fail(db, path, "configuring");
	if (sqlite3_close(db) != SQLITE_OK && !err)
		err = write_fail(db, path, "closing it");
	return err;
}

/*
 * Can path and its directory be written, where SQLite rewrites the one
 * and removes its side files from the other?  Asked first, so that a
 * finish that cannot end leaves the file as it was, not half done.
 */
static int check_writable(const char *path)
{
	char dir[4096];

	if (ntp_outfile__dir(path, dir, sizeof(dir))) {
		ntp_error("%s: %s", path, strerror(ENAMETOOLONG));
		return NTP_EXIT_FAILURE;
	}
	if (access(path, W_OK)) {
		ntp_error("%s: cannot finish it in place: %s", path, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	if (access(dir, W_OK | X_OK)) {
		ntp_error("%s: cannot finish it in place: directory %s: %s", path, dir, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* is path a recording a reader reads?  Its check's code after one line, or 0 */
static int check_readable(const char *path)
{
	sqlite3 *db;
	int err = ntp_db__open_check(&db, path);

	if (!err)
		sqlite3_close(db);
	return err;
}

int ntp_db__finish(const char *path, const struct ntp_finish_opts *o, struct ntp_finish_done *d)
{
	static const char *const done[] = {
		[NTP_DB_FINISHED] = "nothing to do",
		[NTP_DB_WAL] = "its -wal folded in",
		[NTP_DB_WAL_EMPTY] = "out of WAL mode, its -wal empty",
		[NTP_DB_WAL_MISSING] = "as it was, without its missing -wal",
		[NTP_DB_HOT_JOURNAL] = "the interrupted write rolled back",
	};
	struct ntp_db_file f, now;
	int err;

	d->did = NULL;
	d->spool = false;
	d->spooled = 0;
	err = ntp_db__probe(path, &f);
	if (err) {
		ntp_error("%s: %s", path, strerror(-err));
		return NTP_EXIT_NOFILE;
	}
	switch (f.state) {
	case NTP_DB_LIVE:
		if (f.holder > 0)
			ntp_error("%s: in use by process %d (a recording still running?): it is"
				  " finished when its writer ends", path, (int)f.holder);
		else
			ntp_error("%s: in use by another process (a recording still running?): it is"
				  " finished when its writer ends", path);
		return NTP_EXIT_FAILURE;
	case NTP_DB_FINISHED:
		err = check_readable(path);
		d->was = f.state;
		if (err || !ntp_db__has_spool(path)) {
			d->did = err ? NULL : done[f.state];
			return err;
		}
		break;
	case NTP_DB_WAL_MISSING:
		if (f.ntp_header && !o->without_wal) {
			ntp_error("%s: left in WAL mode and its %s-wal is missing: finishing it would"
				  " give up what %s-wal holds; put it back beside %s, or give"
				  " --without-wal to finish %s as it is", path, path, path, path, path);
			return NTP_EXIT_NOFILE;
		}
		/* fall through */
	case NTP_DB_WAL:
	case NTP_DB_WAL_EMPTY:
		/* a file that is not a readable recording is left as it is */
		err = check_readable(path);
		break;
	case NTP_DB_HOT_JOURNAL:
		/* what the write changed is read only once it is rolled back */
		if (!f.ntp_header) {
			ntp_error("%s: not an ntprof recording (its SQLite header has no ntprof"
				  " application_id): left as it is", path);
			return NTP_EXIT_NOTNTP;
		}
		break;
	}
	if (!err)
		err = check_writable(path);
	if (err)
		return err;
	d->was = f.state;
	d->did = done[f.state];
	d->spool = ntp_db__has_spool(path);
	if (o->dry_run)
		return 0;
	/* the spool first: the rows it gives go into the log that is then checkpointed */
	if (d->spool)
		err = import_spool(path, &d->spooled);
	if (!err)
		err = finish_in_place(path);
	/* as a reader finds it now: finished, and a recording */
	if (!err && (ntp_db__probe(path, &now) || now.state != NTP_DB_FINISHED)) {
		ntp_error("%s: cannot finish it in place: SQLite left it in WAL mode or with a journal",
			  path);
		err = NTP_EXIT_FAILURE;
	}
	if (!err)
		err = check_readable(path);
	if (err)
		d->did = NULL;
	return err;
}
