// SPDX-License-Identifier: GPL-2.0
/*
 * A joined recording written (lib/join/join.h, ntprof-join(1)): the rows of
 * a host side and a target side as they were recorded, each side's times
 * on its own clock, and what the join made of them: join_pairs (one row
 * per matched command, from temp.join_matches), join_clock (the offset
 * line and the counts) and join_meta (each recording's meta as it was).
 * The file has the recording schema (schema/ntp.sql), so its
 * joined_stages view is the join's five stages to plain sqlite3, and
 * join_stored.c reads the pairing back for ntprof.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join.h"
#include "lib/join/join_base.h"
#include "lib/ntp/db_key.h"
#include "lib/ntp/db_read.h"
#include "lib/ntp/db_schema.h"

#define OUT "ntp_out"

static int exec(sqlite3 *db, const char *sql, const char *what)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	       ntp_join__sql_fail(db, what);
}

/* the empty file at path gets the recording schema, on a connection of its own */
static int create_schema(const char *path)
{
	sqlite3 *db = NULL;
	int err = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		ntp_error("%s: cannot open the new recording: %s", path,
			  db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NTP_EXIT_FAILURE;
	}
	/* as record's: 16 KiB pages (lib/ntp/db_write.c) */
	err = exec(db, "PRAGMA page_size = 16384", "creating the joined recording");
	if (!err)
		err = exec(db, ntp_schema_sql, "creating the joined recording");
	if (sqlite3_close(db) != SQLITE_OK && !err)
		err = ntp_join__sql_fail(db, "creating the joined recording");
	return err;
}

/* ntp_join_key(cid, slba, nlb, qid, nsid, cntlid, opcode): join_key as record writes it */
static void key_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_key k = {
		sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]),
		sqlite3_value_int64(argv[2]), sqlite3_value_int64(argv[3]),
		sqlite3_value_int64(argv[4]), sqlite3_value_int64(argv[5]),
		sqlite3_value_int64(argv[6]),
	};

	(void)argc;
	sqlite3_result_int64(ctx, (sqlite3_int64)ntp_key__hash(&k));
}

/*
 * The joined recording's rows have their join_key, whether the recording
 * they come from has the column or not, so that reading it again (a join
 * of a "-r both" file made from it, say) need not compute them: the key of
 * a row without one, made as record makes it.
 */
static const char *key_expr(sqlite3 *db, const char *from, const char *table)
{
	char sql[160];

	if (strcmp(table, "host_io") && strcmp(table, "target_io"))
		return NULL;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s', '%s')"
		 " WHERE name = 'join_key'", table, from);
	return ntp_join__query_int(db, sql, 0) ?
	       "coalesce(join_key, ntp_join_key(cid, slba, nlb, qid, nsid, cntlid, opcode))" :
	       "ntp_join_key(cid, slba, nlb, qid, nsid, cntlid, opcode)";
}

/*
 * INSERT INTO out.table SELECT ... FROM from.table [WHERE where]: the
 * columns both have, so that a recording of an older writer (fewer
 * columns, their defaults) copies too; join_key made where it is missing.
 */
static int copy_rows(sqlite3 *db, const char *from, const char *table, const char *where)
{
	static const char cols_sql[] =
		"SELECT group_concat('\"' || o.name || '\"', ', ') FROM pragma_table_info(?1, '" OUT "') o"
		" WHERE o.name IN (SELECT name FROM pragma_table_info(?1, ?2)) AND o.name <> 'join_key'";
	const char *key = key_expr(db, from, table);
	sqlite3_stmt *st;
	char *cols = NULL, *sql;
	int err = 0;

	if (sqlite3_prepare_v2(db, cols_sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(db, "copying the recordings");
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, from, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		cols = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!cols)
		return 0;	/* the recording has no such table: nothing to copy */
	if (asprintf(&sql, "INSERT INTO " OUT ".\"%s\" (%s%s) SELECT %s%s%s FROM \"%s\".\"%s\"%s%s",
		     table, cols, key ? ", join_key" : "", cols, key ? ", " : "", key ? key : "", from,
		     table, where ? " WHERE " : "", where ? where : "") < 0) {
		free(cols);
		return ntp_join__nomem();
	}
	err = exec(db, sql, "copying the recordings");
	free(sql);
	free(cols);
	return err;
}

static int copy_meta(sqlite3 *db, const char *from, const char *side)
{
	char sql[192];

	snprintf(sql, sizeof(sql), "INSERT INTO " OUT ".join_meta SELECT '%s', key, value"
		 " FROM \"%s\".meta", side, from);
	return exec(db, sql, "copying the meta");
}

static int write_clock(struct ntp_join *j, const struct ntp_join_pair *p)
{
	static const char sql[] =
		"INSERT INTO " OUT ".join_clock VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		" ?11, ?12, ?13, ?14)";
	sqlite3_stmt *st;
	int err;

	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "writing the clock estimate");
	sqlite3_bind_text(st, 1, ntp_join__clock_key(p->clock), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, p->estimated);
	sqlite3_bind_int64(st, 3, p->t0_ns);
	sqlite3_bind_double(st, 4, p->offset_ns);
	sqlite3_bind_double(st, 5, p->drift);
	sqlite3_bind_double(st, 6, p->tol_ns);
	sqlite3_bind_int64(st, 7, p->candidates);
	sqlite3_bind_int64(st, 8, p->support);
	sqlite3_bind_int64(st, 9, j->counts.matched);
	sqlite3_bind_int64(st, 10, j->counts.unmatched_host);
	sqlite3_bind_int64(st, 11, j->counts.unmatched_target);
	sqlite3_bind_int64(st, 12, j->counts.rejected);
	sqlite3_bind_text(st, 13, j->files[p->host_file].path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, j->files[p->target_file].path, -1, SQLITE_STATIC);
	err = sqlite3_step(st) == SQLITE_DONE ? 0 :
	      ntp_join__sql_fail(j->db, "writing the clock estimate");
	sqlite3_finalize(st);
	return err;
}

static int write_pairs(struct ntp_join *j)
{
	return exec(j->db, "INSERT INTO " OUT ".join_pairs SELECT host_id, target_id, offset_ns,"
		    " h_occ, t_occ FROM temp.join_matches ORDER BY seq", "writing the pairs");
}

/* every table of the new file, in one transaction */
static int write_all(struct ntp_join *j, const struct ntp_join_pair *p)
{
	const char *hs = j->files[p->host_file].schema, *ts = j->files[p->target_file].schema;
	int one = p->host_file == p->target_file;
	int err;

	err = exec(j->db, "BEGIN", "writing the joined recording");
	/* meta is the host's (its start, stop and duration are the report's), role joined */
	if (!err)
		err = copy_rows(j->db, hs, "meta", NULL);
	if (!err)
		err = exec(j->db, "INSERT OR REPLACE INTO " OUT ".meta VALUES ('role', 'joined')",
			   "writing the meta");
	if (!err)
		err = copy_meta(j->db, hs, one ? "both" : "host");
	if (!err && !one)
		err = copy_meta(j->db, ts, "target");
	/* each side's rows from the file that holds it; one "-r both" file holds all */
	if (!err)
		err = copy_rows(j->db, hs, "hooks", one ? NULL : "side = 'host'");
	if (!err && !one)
		err = copy_rows(j->db, ts, "hooks", "side = 'target'");
	if (!err)
		err = copy_rows(j->db, hs, "intervals", one ? NULL : "side = 'host'");
	if (!err && !one)
		err = copy_rows(j->db, ts, "intervals", "side = 'target'");
	if (!err)
		err = copy_rows(j->db, hs, "host_io", NULL);
	if (!err)
		err = copy_rows(j->db, ts, "target_io", NULL);
	if (!err)
		err = write_pairs(j);
	if (!err)
		err = write_clock(j, p);
	if (!err)
		err = exec(j->db, "COMMIT", "writing the joined recording");
	else
		sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

/* one joined recording (ntprof join) given alone */
static bool is_joined(const struct ntp_join *j)
{
	return j->nfiles == 1 && j->files[0].role &&
	       !strcmp(j->files[0].role, ntp_roles[NTP_ROLE_JOINED].name);
}

/* what can be written: one host side, one target side, a pairing that found the commands */
static int check_writable(struct ntp_join *j)
{
	const struct ntp_join_pair *p = &j->pairs[0];
	const char *h, *t;

	if (is_joined(j)) {
		ntp_error("%s: a joined recording (ntprof join) already: give the recordings it was"
			  " made of", j->files[0].path);
		return NTP_EXIT_MISMATCH;
	}
	if (j->npairs != 1) {
		ntp_error("cannot write one joined recording of %d host and target combinations:"
			  " give one host recording and one target recording, or one '-r both'"
			  " recording", j->npairs);
		return NTP_EXIT_MISMATCH;
	}
	h = j->files[p->host_file].path;
	t = j->files[p->target_file].path;
	if (!p->estimated || !j->counts.matched) {
		if (p->host_file == p->target_file)
			ntp_error("cannot join %s: none of its %" PRId64 " host commands matched one of"
				  " its %" PRId64 " target commands", h, j->counts.host_rows,
				  j->counts.target_rows);
		else
			ntp_error("cannot join %s and %s: no clock offset pairs their commands (%" PRId64
				  " of %" PRId64 " candidate pairs agree, %" PRId64 " needed):"
				  " not a host and its target recorded at one time", h, t, p->support,
				  p->candidates, j->opts.min_support);
		return NTP_EXIT_MISMATCH;
	}
	return 0;
}

static int attach_out(struct ntp_join *j, const char *path)
{
	sqlite3_stmt *st;
	char *uri;
	int rc;

	uri = ntp_db__file_uri(path, "rw");
	if (!uri)
		return ntp_join__nomem();
	if (sqlite3_prepare_v2(j->db, "ATTACH ?1 AS " OUT, -1, &st, NULL) != SQLITE_OK) {
		free(uri);
		return ntp_join__sql_fail(j->db, "attaching the new recording");
	}
	sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	free(uri);
	if (rc != SQLITE_DONE)
		return ntp_join__sql_fail(j->db, "attaching the recording to write");
	return 0;
}

int ntp_join__write(struct ntp_join *j, const char *path)
{
	int err;

	if (sqlite3_create_function_v2(j->db, "ntp_join_key", 7, SQLITE_UTF8 | SQLITE_DETERMINISTIC |
				       SQLITE_DIRECTONLY, NULL, key_fn, NULL, NULL, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "writing the joined recording");

	err = check_writable(j);
	if (!err)
		err = create_schema(path);
	if (!err)
		err = attach_out(j, path);
	if (err)
		return err;
	/* the file is new and renamed into place only when whole: no journal needed */
	err = exec(j->db, "PRAGMA " OUT ".journal_mode = OFF", "writing the joined recording");
	if (!err)
		err = write_all(j, &j->pairs[0]);
	if (exec(j->db, "DETACH " OUT, "closing the joined recording") && !err)
		err = NTP_EXIT_FAILURE;
	return err;
}

/*
 * The pairing of a "-r both" recording written into it: the file is
 * ATTACHed a second time, read-write, beside the join's read-only view of
 * it; join_pairs and join_clock are replaced in one transaction.
 */
static int store_into(struct ntp_join *j, const char *path)
{
	static const char tables_sql[] =
		"SELECT count(*) FROM " OUT ".sqlite_schema WHERE type = 'table'"
		" AND name IN ('join_pairs', 'join_clock')";
	sqlite3_stmt *st;
	int err, n = 0;

	err = attach_out(j, path);
	if (err)
		return err;
	if (sqlite3_prepare_v2(j->db, tables_sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (n != 2) {
		ntp_error("%s: no join_pairs and join_clock tables to fill (a recording of an older"
			  " ntprof)", path);
		err = NTP_EXIT_FAILURE;
	}
	if (!err)
		err = exec(j->db, "BEGIN; DELETE FROM " OUT ".join_pairs; DELETE FROM " OUT
			   ".join_clock", "writing the pairs");
	if (!err)
		err = write_pairs(j);
	if (!err)
		err = write_clock(j, &j->pairs[0]);
	if (!err)
		err = exec(j->db, "COMMIT", "writing the pairs");
	else
		sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
	if (exec(j->db, "DETACH " OUT, "closing the recording") && !err)
		err = NTP_EXIT_FAILURE;
	return err;
}

int ntp_join__store(struct ntp_join *j)
{
	const char *path = j->files[0].path;

	/* a pairing it may hold already is replaced, not read */
	if (j->nfiles != 1 || is_joined(j) || !j->opts.fresh ||
	    j->files[0].sides != (NTP_SIDE_HOST | NTP_SIDE_TARGET)) {
		ntp_error("%s: not a '-r both' recording paired anew: its pairing is not its own to"
			  " store", path);
		return NTP_EXIT_MISMATCH;
	}
	return store_into(j, path);
}
