// SPDX-License-Identifier: GPL-2.0
/*
 * dump: the sampled commands of a recording as CSV (RFC 4180 quoting, but
 * Unix line ends, as sqlite3 -csv on Unix writes), one row per
 * command in the order they were written.  The raw columns come from host_io,
 * the derived ones from the host_stages view; one table below gives both the
 * header row and the SELECT, so the names cannot drift from the values.
 * Column names are a stable interface (ntprof-dump(1)): add, never rename.
 * The application's columns follow (host_app_stages); a recording made
 * before them has the same header and empty fields there.
 * A target recording alone has its own table of columns, from target_io
 * and the target_stages view, and joined recordings theirs, from
 * temp.joined.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fmt/csv.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/outfile.h"
#include "lib/cli/pager.h"
#include "lib/join/join.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_read.h"
#include "lib/dump/dump.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_check.h"
#include "lib/model/model_files.h"

struct dump_col {
	const char *name;     /* header, and the SQL expression's alias */
	const char *expr;     /* over host_io h and host_stages s */
};

static const struct dump_col dump_cols[] = {
	{ "id", "h.id" },
	{ "h_start_ns", "h.h_start_ns" },
	{ "h_queue_ns", "h.h_queue_ns" },
	{ "h_cmd_sent_ns", "h.h_cmd_sent_ns" },
	{ "h_r2t_ns", "h.h_r2t_ns" },
	{ "h_data_sent_ns", "h.h_data_sent_ns" },
	{ "h_recv_ns", "h.h_recv_ns" },
	{ "h_done_ns", "h.h_done_ns" },
	{ "opcode", "h.opcode" },
	{ "io_type", "s.io_type" },
	{ "cid", "h.cid" },
	{ "slba", "h.slba" },
	{ "nlb", "h.nlb" },
	{ "bytes", "h.bytes" },
	{ "qid", "h.qid" },
	{ "nsid", "h.nsid" },
	{ "cntlid", "h.cntlid" },
	{ "controller", "h.controller" },
	{ "namespace", "h.namespace" },
	{ "path", "h.path" },
	{ "status", "h.status" },
	{ "flags", "h.flags" },
	{ "e2e_ns", "s.e2e_ns" },
	{ "block_ns", "s.block_ns" },
	{ "driver_ns", "s.driver_ns" },
	{ "network_star_ns", "s.network_star_ns" },
};

/* after dump_cols: from host_app_stages a, or NULL where a recording has no such view */
static const struct dump_col app_cols[] = {
	{ "h_app_submit_ns", "a.h_app_submit_ns" },
	{ "h_app_done_ns", "a.h_app_done_ns" },
	{ "h_app_reap_ns", "a.h_app_reap_ns" },
	{ "app_kind", "a.app_kind" },
	{ "pid", "a.pid" },
	{ "tid", "a.tid" },
	{ "comm", "a.comm" },
	{ "cgroup_id", "a.cgroup_id" },
	{ "submit_ns", "a.submit_ns" },
	{ "complete_ns", "a.complete_ns" },
	{ "reap_ns", "a.reap_ns" },
	{ "app_e2e_ns", "a.app_e2e_ns" },
};

/*
 * A target recording alone: its commands as the target recorded them
 * (target_io t), on its clock, then the target_stages view's (s) stages.
 */
static const struct dump_col target_cols[] = {
	{ "id", "t.id" },
	{ "t_recv_ns", "t.t_recv_ns" },
	{ "t_r2t_ns", "t.t_r2t_ns" },
	{ "t_submit_ns", "t.t_submit_ns" },
	{ "t_cmpl_ns", "t.t_cmpl_ns" },
	{ "t_sent_ns", "t.t_sent_ns" },
	{ "opcode", "t.opcode" },
	{ "io_type", "s.io_type" },
	{ "cid", "t.cid" },
	{ "slba", "t.slba" },
	{ "nlb", "t.nlb" },
	{ "bytes", "t.bytes" },
	{ "qid", "t.qid" },
	{ "nsid", "t.nsid" },
	{ "cntlid", "t.cntlid" },
	{ "device", "t.device" },
	{ "status", "t.status" },
	{ "flags", "t.flags" },
	{ "residence_ns", "s.residence_ns" },
	{ "target_driver_ns", "s.target_driver_ns" },
	{ "storage_ns", "s.storage_ns" },
};

/*
 * Joined commands: one row per matched command of temp.joined (lib/join/join.h),
 * the identity as the host saw it, then both sides' raw times, each on its
 * own clock, then the five stages.  Files are numbered from 1, in the order
 * given.
 */
static const struct dump_col joined_cols[] = {
	{ "host_file", "j.host_file + 1" },
	{ "target_file", "j.target_file + 1" },
	{ "host_id", "j.host_id" },
	{ "target_id", "j.target_id" },
	{ "opcode", "j.opcode" },
	{ "io_type", "j.io_type" },
	{ "cid", "j.cid" },
	{ "slba", "j.slba" },
	{ "nlb", "j.nlb" },
	{ "bytes", "j.bytes" },
	{ "qid", "j.qid" },
	{ "nsid", "j.nsid" },
	{ "cntlid", "j.cntlid" },
	{ "controller", "j.controller" },
	{ "namespace", "j.namespace" },
	{ "device", "j.device" },
	{ "status", "j.status" },
	{ "t_status", "j.t_status" },
	{ "h_start_ns", "j.h_start_ns" },
	{ "h_queue_ns", "j.h_queue_ns" },
	{ "h_cmd_sent_ns", "j.h_cmd_sent_ns" },
	{ "h_r2t_ns", "j.h_r2t_ns" },
	{ "h_data_sent_ns", "j.h_data_sent_ns" },
	{ "h_recv_ns", "j.h_recv_ns" },
	{ "h_done_ns", "j.h_done_ns" },
	{ "t_recv_ns", "j.t_recv_ns" },
	{ "t_r2t_ns", "j.t_r2t_ns" },
	{ "t_submit_ns", "j.t_submit_ns" },
	{ "t_cmpl_ns", "j.t_cmpl_ns" },
	{ "t_sent_ns", "j.t_sent_ns" },
	{ "offset_ns", "j.offset_ns" },
	{ "e2e_ns", "j.e2e_ns" },
	{ "block_ns", "j.block_ns" },
	{ "driver_ns", "j.driver_ns" },
	{ "network_ns", "j.network_ns" },
	{ "target_driver_ns", "j.target_driver_ns" },
	{ "storage_ns", "j.storage_ns" },
};

struct dump_table {
	const struct dump_col *cols;
	size_t ncols;
	const struct dump_col *more;    /* then these, or NULL */
	size_t nmore;
	bool more_null;                 /* ... as NULL: the recording lacks them */
	const char *from;     /* FROM ... WHERE ..., to which the read filters are added */
	const char *order;    /* ORDER BY ... */
	struct ntp_read_cols filter;   /* where the read filters find their columns */
};

static const struct dump_table host_table = {
	dump_cols, sizeof(dump_cols) / sizeof(dump_cols[0]),
	app_cols, sizeof(app_cols) / sizeof(app_cols[0]), false,
	" FROM host_io AS h JOIN host_stages AS s ON s.id = h.id"
	" JOIN host_app_stages AS a ON a.id = h.id WHERE 1", " ORDER BY h.id",
	{ .io_type = "s.io_type", .bytes = "h.bytes", .qid = "h.qid",
	  .names = { "h.namespace", "h.path" }, .time = "h.h_start_ns" },
};

/* a recording made before the application's columns */
static const struct dump_table host_table_old = {
	dump_cols, sizeof(dump_cols) / sizeof(dump_cols[0]),
	app_cols, sizeof(app_cols) / sizeof(app_cols[0]), true,
	" FROM host_io AS h JOIN host_stages AS s ON s.id = h.id WHERE 1", " ORDER BY h.id",
	{ .io_type = "s.io_type", .bytes = "h.bytes", .qid = "h.qid",
	  .names = { "h.namespace", "h.path" }, .time = "h.h_start_ns" },
};

/* a target alone: --session names its backend devices, --time is by t_recv on its clock */
static const struct dump_table target_table = {
	target_cols, sizeof(target_cols) / sizeof(target_cols[0]), NULL, 0, false,
	" FROM target_io AS t JOIN target_stages AS s ON s.id = t.id WHERE 1", " ORDER BY t.id",
	{ .io_type = "s.io_type", .bytes = "t.bytes", .qid = "t.qid", .names = { "t.device" },
	  .time = "t.t_recv_ns" },
};

static const struct dump_table joined_table = {
	joined_cols, sizeof(joined_cols) / sizeof(joined_cols[0]), NULL, 0, false,
	/* seq is (host_file, h_start_ns, host_id) order, without a sort (lib/join/join_rows.c) */
	" FROM temp.joined AS j WHERE 1", " ORDER BY j.seq",
	{ .io_type = "j.io_type", .bytes = "j.bytes", .qid = "j.qid",
	  .names = { "j.namespace", "j.path" }, .time = "j.h_start_ns", .file = "j.host_file" },
};

/* the application's columns are the file's (record since they exist), or NULL */
static bool has_app_view(sqlite3 *db)
{
	sqlite3_stmt *st;
	bool yes = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type = 'view'"
			       " AND name = 'host_app_stages'", -1, &st, NULL))
		return false;
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* SELECT the columns FROM ...: the read filters and the order follow */
static char *build_sql(const struct dump_table *t)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);

	if (!m)
		return NULL;
	fputs("SELECT ", m);
	for (size_t i = 0; i < t->ncols; i++)
		fprintf(m, "%s%s AS %s", i ? ", " : "", t->cols[i].expr, t->cols[i].name);
	for (size_t i = 0; i < t->nmore; i++)
		fprintf(m, ", %s AS %s", t->more_null ? "NULL" : t->more[i].expr, t->more[i].name);
	fputs(t->from, m);
	if (fclose(m)) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* RFC 4180: quote a field holding a separator, a quote or a line break (as -t does) */
static void put_text(FILE *f, const char *s)
{
	ntp_csv__text(f, s, ",");
}

/* integers without printf: ten million rows of 26 columns add up */
static void put_int(FILE *f, int64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

static void put_row(FILE *f, sqlite3_stmt *st, size_t ncols)
{
	for (size_t i = 0; i < ncols; i++) {
		int col = (int)i;

		if (i)
			fputc(',', f);
		switch (sqlite3_column_type(st, col)) {
		case SQLITE_NULL:
			/* this kernel gave no hook for that point */
			break;
		case SQLITE_INTEGER:
			put_int(f, sqlite3_column_int64(st, col));
			break;
		default:
			put_text(f, (const char *)sqlite3_column_text(st, col));
			break;
		}
	}
	fputc('\n', f);
}

/* damage is corrupt, named by the file that has it (of joined ones too); else a failure */
static int read_fail(sqlite3 *db, const char *path)
{
	return ntp_db__fail(db, path, "cannot read the commands");
}

/* the rows of t that pass w, as CSV into f; *n counts them.  0 or NTP_EXIT_* */
static int dump_rows(sqlite3 *db, const struct dump_table *t, const struct ntp_read_where *w,
		     const char *path, FILE *f, uint64_t *n)
{
	sqlite3_stmt *st;
	char *sql = build_sql(t);
	int rc;

	if (!sql) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	rc = ntp_read_filter__prepare(db, sql, w, t->order, &st);
	free(sql);
	if (rc)
		return read_fail(db, path);
	for (size_t i = 0; i < t->ncols; i++)
		fprintf(f, "%s%s", i ? "," : "", t->cols[i].name);
	for (size_t i = 0; i < t->nmore; i++)
		fprintf(f, ",%s", t->more[i].name);
	fputc('\n', f);
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		put_row(f, st, t->ncols + t->nmore);
		(*n)++;
	}
	if (rc != SQLITE_DONE) {
		rc = read_fail(db, path);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * What is dumped: one host or target recording as it is, or the join of
 * several (or of one "-r both" or joined recording).  *j is set when
 * joined; 0 or NTP_EXIT_*.
 */
static int open_input(struct ntp_source *s, sqlite3 **db, struct ntp_join **j)
{
	int rc;

	*db = s->db;
	*j = NULL;
	if (!ntp_kind__joined(s->kind))
		return 0;
	rc = ntp_source__open_join(s, NULL, j);
	if (!rc)
		rc = ntp_join__run(*j);
	if (rc) {
		ntp_join__close(*j);
		*j = NULL;
		return rc;
	}
	*db = ntp_join__db(*j);
	return 0;
}

/* the read filters on the files of db: "main", or the join's "ntp<i>" */
static int filter_where(const struct ntp_dump_opts *o, sqlite3 *db, int nfiles,
			const struct dump_table *t, const char *path, struct ntp_read_where *w)
{
	char names[NTP_JOIN_MAX_FILES][8];
	const char *schemas[NTP_JOIN_MAX_FILES];
	bool joined = t == &joined_table;
	bool target = t == &target_table;

	memset(w, 0, sizeof(*w));
	w->f = &o->filter;
	w->cols = &t->filter;
	if (nfiles > NTP_JOIN_MAX_FILES)
		nfiles = NTP_JOIN_MAX_FILES;
	for (int i = 0; i < nfiles; i++) {
		if (joined)
			snprintf(names[i], sizeof(names[i]), "ntp%d", i);
		else
			snprintf(names[i], sizeof(names[i]), "main");
		schemas[i] = names[i];
	}
	return ntp_read_filter__starts(w, db, schemas, nfiles, target, path);
}

int ntp_dump__run(const char *const *paths, int npaths, const struct ntp_dump_opts *o)
{
	const char *out = o->output && strcmp(o->output, "-") ? o->output : NULL;
	struct ntp_source *s = NULL;
	struct ntp_join *j = NULL;
	sqlite3 *db;
	struct ntp_outfile of = { .f = stdout };
	const struct dump_table *t;
	struct ntp_read_where where;
	uint64_t nrows = 0;
	int rc;

	/* writing over the recording being read would destroy it */
	rc = ntp_outfile__check_not_input(out, paths, npaths, "-o");
	if (!rc)
		rc = ntp_model__check_twice(paths, npaths);
	/* before the join: a recording taken for -o's FILE is kept, and nothing is read */
	if (!rc && out)
		rc = ntp_outfile__check(out, "the CSV file");
	if (rc)
		return rc;
	rc = ntp_source__open_files(&s, paths, npaths, false);
	if (!rc)
		rc = open_input(s, &db, &j);
	if (!rc && out)
		rc = ntp_outfile__open(&of, out, "the CSV file");
	if (rc) {
		ntp_join__close(j);
		ntp_source__close(s);
		return rc;
	}
	t = j ? &joined_table : s->kind == NTP_KIND_TARGET ? &target_table :
	    has_app_view(db) ? &host_table : &host_table_old;
	rc = filter_where(o, db, j ? npaths : 1, t, paths[0], &where);
	if (!rc && !out)
		ntp_pager__start(o->no_pager, true);
	if (!rc)
		rc = dump_rows(db, t, &where, paths[0], of.f, &nrows);
	if (!rc && !nrows && ntp_read_filter__any(&o->filter))
		ntp_read_filter__warn_none(s, &o->filter, NULL);
	ntp_join__close(j);
	ntp_source__close(s);
	if (!out)
		return rc;
	/* a failed dump leaves no half-written CSV to be mistaken for a whole one */
	return ntp_outfile__close(&of, !rc) ?: rc;
}
