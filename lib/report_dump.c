// SPDX-License-Identifier: GPL-2.0
/*
 * dump: the sampled commands of a recording as CSV (RFC 4180 quoting, but
 * Unix line ends, as sqlite3 -csv on Unix writes), one row per
 * command in the order they were written.  The raw columns come from host_io,
 * the derived ones from the host_stages view; one table below gives both the
 * header row and the SELECT, so the names cannot drift from the values.
 * Column names are a stable interface (ntprof-dump(1)): add, never rename.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/db.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/report.h"

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
#define NCOLS (sizeof(dump_cols) / sizeof(dump_cols[0]))

static char *build_sql(void)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);

	if (!m)
		return NULL;
	fputs("SELECT ", m);
	for (size_t i = 0; i < NCOLS; i++)
		fprintf(m, "%s%s AS %s", i ? ", " : "", dump_cols[i].expr, dump_cols[i].name);
	fputs(" FROM host_io AS h JOIN host_stages AS s ON s.id = h.id ORDER BY h.id", m);
	if (fclose(m)) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* RFC 4180: quote a field holding a separator, a quote or a line break */
static void put_text(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
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

static void put_row(FILE *f, sqlite3_stmt *st)
{
	for (size_t i = 0; i < NCOLS; i++) {
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

/* writing over the recording being read would destroy it */
static int same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* SQLite's own word on damage is "corrupt"; anything else is a runtime failure */
static int read_fail(sqlite3 *db, const char *path)
{
	int code = sqlite3_errcode(db);

	ntp_error("%s: cannot read the commands: %s", path, sqlite3_errmsg(db));
	return code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? NTP_EXIT_CORRUPT : NTP_EXIT_FAILURE;
}

static int dump_rows(sqlite3 *db, const char *path, FILE *f)
{
	sqlite3_stmt *st;
	char *sql = build_sql();
	int rc;

	if (!sql) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc)
		return read_fail(db, path);
	for (size_t i = 0; i < NCOLS; i++)
		fprintf(f, "%s%s", i ? "," : "", dump_cols[i].name);
	fputc('\n', f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		put_row(f, st);
	if (rc != SQLITE_DONE) {
		rc = read_fail(db, path);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

int ntp_dump__run(const char *path, const struct ntp_dump_opts *o)
{
	const char *out = o->output && strcmp(o->output, "-") ? o->output : NULL;
	sqlite3 *db;
	FILE *f = stdout;
	int rc;

	if (out && same_file(out, path)) {
		ntp_error("%s: the output is the recording itself: choose another -o FILE", out);
		return NTP_EXIT_USAGE;
	}
	rc = ntp_db__open_read(&db, path);
	if (rc)
		return rc;
	if (out) {
		f = fopen(out, "w");
		if (!f) {
			ntp_error("%s: cannot create the CSV file: %s", out, strerror(errno));
			sqlite3_close(db);
			return NTP_EXIT_FAILURE;
		}
	}
	rc = dump_rows(db, path, f);
	sqlite3_close(db);
	if (!out)
		return rc;
	if ((ferror(f) | fclose(f)) && !rc) {
		ntp_error("%s: cannot write the CSV file: %s", out, strerror(errno));
		rc = NTP_EXIT_FAILURE;
	}
	/* no half-written CSV left behind to be mistaken for a whole one */
	if (rc)
		unlink(out);
	return rc;
}
