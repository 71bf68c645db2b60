// SPDX-License-Identifier: GPL-2.0
/*
 * A joined recording written (lib/join/join.h, ntprof-join(1)): the rows of
 * every host side and target side as they were recorded, each side's times
 * on its own clock, and what the join made of them: join_pairs (one row
 * per matched command, from temp.join_matches), join_clock (each
 * combination's offset line, and the counts) and join_meta (each
 * recording's meta as it was).
 * The file has the recording schema (schema/ntp.sql), so its
 * joined_stages view is the join's five stages to plain sqlite3, and
 * join_stored.c reads the pairing back for ntprof.
 */
#include <inttypes.h>
#include <stdbool.h>
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
 * columns, their defaults) copies too; join_key made where it is missing;
 * id + shift for id, which puts a second recording's rows after the
 * first's.
 */
static int copy_rows(sqlite3 *db, const char *from, const char *table, const char *where,
		     int64_t shift)
{
	static const char cols_sql[] =
		"SELECT group_concat('\"' || o.name || '\"', ', '),"
		" group_concat(CASE o.name WHEN 'id' THEN '\"id\" + ' || ?3 ELSE '\"' || o.name || '\"'"
		" END, ', ') FROM pragma_table_info(?1, '" OUT "') o"
		" WHERE o.name IN (SELECT name FROM pragma_table_info(?1, ?2)) AND o.name <> 'join_key'";
	const char *key = key_expr(db, from, table);
	sqlite3_stmt *st;
	char *cols = NULL, *vals = NULL, *sql;
	int err = 0;

	if (sqlite3_prepare_v2(db, cols_sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(db, "copying the recordings");
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, from, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, shift);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	    sqlite3_column_text(st, 1)) {
		cols = strdup((const char *)sqlite3_column_text(st, 0));
		vals = strdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (!cols || !vals) {
		free(cols);
		free(vals);
		return 0;	/* the recording has no such table: nothing to copy */
	}
	if (asprintf(&sql, "INSERT INTO " OUT ".\"%s\" (%s%s) SELECT %s%s%s FROM \"%s\".\"%s\"%s%s",
		     table, cols, key ? ", join_key" : "", vals, key ? ", " : "", key ? key : "", from,
		     table, where ? " WHERE " : "", where ? where : "") < 0) {
		free(cols);
		free(vals);
		return ntp_join__nomem();
	}
	err = exec(db, sql, "copying the recordings");
	free(sql);
	free(cols);
	free(vals);
	return err;
}

static int copy_meta(sqlite3 *db, const char *from, const char *side)
{
	char sql[192];

	snprintf(sql, sizeof(sql), "INSERT INTO " OUT ".join_meta SELECT '%s', key, value"
		 " FROM \"%s\".meta", side, from);
	return exec(db, sql, "copying the meta");
}

static int write_clock(struct ntp_join *j, int pair, bool numbered)
{
	static const char sql[] =
		"INSERT INTO " OUT ".join_clock (clock, estimated, t0_ns, offset_ns, drift,"
		" tolerance_ns, candidates, support, matched, unmatched_host, unmatched_target,"
		" rejected, host_file, target_file, pair) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
	static const char sql_old[] =
		"INSERT INTO " OUT ".join_clock (clock, estimated, t0_ns, offset_ns, drift,"
		" tolerance_ns, candidates, support, matched, unmatched_host, unmatched_target,"
		" rejected, host_file, target_file) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14)";
	const struct ntp_join_pair *p = &j->pairs[pair];
	sqlite3_stmt *st;
	int err;

	if (sqlite3_prepare_v2(j->db, numbered ? sql : sql_old, -1, &st, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "writing the clock estimate");
	sqlite3_bind_text(st, 1, ntp_join__clock_key(p->clock), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, p->estimated);
	sqlite3_bind_int64(st, 3, p->t0_ns);
	sqlite3_bind_double(st, 4, p->offset_ns);
	sqlite3_bind_double(st, 5, p->drift);
	sqlite3_bind_double(st, 6, p->tol_ns);
	sqlite3_bind_int64(st, 7, p->candidates);
	sqlite3_bind_int64(st, 8, p->support);
	sqlite3_bind_int64(st, 9, j->npairs == 1 ? j->counts.matched : p->matched);
	sqlite3_bind_int64(st, 10, j->counts.unmatched_host);
	sqlite3_bind_int64(st, 11, j->counts.unmatched_target);
	sqlite3_bind_int64(st, 12, j->counts.rejected);
	sqlite3_bind_text(st, 13, j->files[p->host_file].path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, j->files[p->target_file].path, -1, SQLITE_STATIC);
	if (numbered)
		sqlite3_bind_int(st, 15, pair);
	err = sqlite3_step(st) == SQLITE_DONE ? 0 :
	      ntp_join__sql_fail(j->db, "writing the clock estimate");
	sqlite3_finalize(st);
	return err;
}

/* "CASE col WHEN 0 THEN b0 ... ELSE 0 END": a file's id shift by its index */
static void shift_case(FILE *m, const char *col, const int64_t *base, int n)
{
	fprintf(m, "CASE %s", col);
	for (int f = 0; f < n; f++)
		fprintf(m, " WHEN %d THEN %" PRId64, f, base[f]);
	fputs(" ELSE 0 END", m);
}

/* the pairs, each id shifted as its file's rows were, and its combination numbered */
static int write_pairs(struct ntp_join *j, const int64_t *hbase, const int64_t *tbase)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int err;

	if (!m)
		return ntp_join__nomem();
	fputs("INSERT INTO " OUT ".join_pairs (host_id, target_id, offset_ns, h_occ, t_occ, pair)"
	      " SELECT host_id + ", m);
	shift_case(m, "host_file", hbase, j->nfiles);
	fputs(", target_id + ", m);
	shift_case(m, "target_file", tbase, j->nfiles);
	fputs(", offset_ns, h_occ, t_occ, pair FROM temp.join_matches ORDER BY seq", m);
	if (fclose(m))
		return ntp_join__nomem();
	err = exec(j->db, sql, "writing the pairs");
	free(sql);
	return err;
}

/* the pairs of a "-r both" recording into it, whose join_pairs may be an older writer's */
static int store_pairs(struct ntp_join *j)
{
	return exec(j->db, "INSERT INTO " OUT ".join_pairs (host_id, target_id, offset_ns, h_occ,"
		    " t_occ) SELECT host_id, target_id, offset_ns, h_occ, t_occ"
		    " FROM temp.join_matches ORDER BY seq", "writing the pairs");
}

/* the rows of side s's table (host_io or target_io) so far: the next file's ids follow */
static int64_t next_base(struct ntp_join *j, const char *table)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM " OUT ".%s", table);
	return ntp_join__query_int(j->db, sql, 0);
}

/* join_meta's side of file f: host, target or both, numbered from the second of its kind on */
static void meta_side(const struct ntp_join *j, int f, char *buf, size_t len)
{
	int sides = j->files[f].sides, k = 1;
	const char *name = sides == (NTP_SIDE_HOST | NTP_SIDE_TARGET) ? "both" :
			   sides & NTP_SIDE_HOST ? "host" : "target";

	for (int i = 0; i < f; i++)
		k += j->files[i].sides == sides;
	if (k == 1)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s %d", name, k);
}

/* one file's side rows: all of a "-r both" recording's, else the side it has */
static const char *side_filter(const struct ntp_join_file *f)
{
	if (f->sides == (NTP_SIDE_HOST | NTP_SIDE_TARGET))
		return NULL;
	return f->sides & NTP_SIDE_HOST ? "side = 'host'" : "side = 'target'";
}

/* every table of the new file, in one transaction */
static int write_all(struct ntp_join *j)
{
	int64_t hbase[NTP_JOIN_MAX_FILES] = { 0 }, tbase[NTP_JOIN_MAX_FILES] = { 0 };
	int first_host = -1, err;
	char side[32];

	for (int f = 0; f < j->nfiles && first_host < 0; f++)
		if (j->files[f].sides & NTP_SIDE_HOST)
			first_host = f;
	err = exec(j->db, "BEGIN", "writing the joined recording");
	/* meta is the first host's (its start, stop and duration are the report's), role joined */
	if (!err)
		err = copy_rows(j->db, j->files[first_host].schema, "meta", NULL, 0);
	if (!err)
		err = exec(j->db, "INSERT OR REPLACE INTO " OUT ".meta VALUES ('role', 'joined')",
			   "writing the meta");
	/* each file's meta as it was, its side's hooks and intervals, its rows after the last's */
	for (int f = 0; f < j->nfiles && !err; f++) {
		const struct ntp_join_file *jf = &j->files[f];

		meta_side(j, f, side, sizeof(side));
		err = copy_meta(j->db, jf->schema, side);
		if (!err)
			err = copy_rows(j->db, jf->schema, "hooks", side_filter(jf), 0);
		if (!err)
			err = copy_rows(j->db, jf->schema, "intervals", side_filter(jf), 0);
		if (!err && (jf->sides & NTP_SIDE_HOST)) {
			hbase[f] = next_base(j, "host_io");
			err = copy_rows(j->db, jf->schema, "host_io", NULL, hbase[f]);
		}
		if (!err && (jf->sides & NTP_SIDE_TARGET)) {
			tbase[f] = next_base(j, "target_io");
			err = copy_rows(j->db, jf->schema, "target_io", NULL, tbase[f]);
		}
	}
	if (!err)
		err = write_pairs(j, hbase, tbase);
	for (int p = 0; p < j->npairs && !err; p++)
		err = write_clock(j, p, true);
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

/* what can be written: hosts and their targets, a pairing that found the commands */
static int check_writable(struct ntp_join *j)
{
	const struct ntp_join_pair *p = &j->pairs[0];
	const char *h, *t;

	if (is_joined(j)) {
		ntp_error("%s: a joined recording (ntprof join) already: give the recordings it was"
			  " made of", j->files[0].path);
		return NTP_EXIT_MISMATCH;
	}
	if (j->counts.matched && j->npairs >= 1)
		return 0;
	h = j->files[p->host_file].path;
	t = j->files[p->target_file].path;
	if (j->npairs == 1 && p->host_file == p->target_file)
		ntp_error("cannot join %s: none of its %" PRId64 " host commands matched one of"
			  " its %" PRId64 " target commands", h, j->counts.host_rows,
			  j->counts.target_rows);
	else if (j->npairs == 1)
		ntp_error("cannot join %s and %s: no clock offset pairs their commands (%" PRId64
			  " of %" PRId64 " candidate pairs agree, %" PRId64 " needed):"
			  " not a host and its target recorded at one time", h, t, p->support,
			  p->candidates, j->opts.min_support);
	else
		ntp_error("cannot join %s and the others: none of %" PRId64 " host commands matched"
			  " one of %" PRId64 " target commands: not hosts and their targets recorded"
			  " at one time", j->files[0].path, j->counts.host_rows,
			  j->counts.target_rows);
	return NTP_EXIT_MISMATCH;
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
		err = write_all(j);
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
		err = store_pairs(j);
	if (!err)
		err = write_clock(j, 0, false);
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
