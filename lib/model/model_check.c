// SPDX-License-Identifier: GPL-2.0
/* The checks a set of recordings passes before it is read (lib/model/model_check.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/outfile.h"
#include "lib/model/model_check.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"
#include "lib/ntp/db_role.h"

int ntp_model__check_twice(const char *const *paths, int n)
{
	for (int i = 1; i < n; i++) {
		for (int k = 0; k < i; k++) {
			if (ntp_outfile__same_file(paths[i], paths[k])) {
				ntp_error("%s: the same recording given twice (as %s too)", paths[i],
					  paths[k]);
				return NTP_EXIT_USAGE;
			}
		}
	}
	return 0;
}

/*
 * The files' checks, one after another: counting every table walks each
 * table's pages, which takes as long as the file is large.  Checked a file
 * a thread, two 10M recordings took as long (bench/README.md, join_ab.py).
 * A check's failure is told alone, not what the damage made the reader say
 * on the way: the first in file order.
 */
int ntp_model__check_files(const char *const *paths, int n, int64_t *host_rows)
{
	for (int i = 0; i < n; i++)
		host_rows[i] = 0;
	for (int i = 0; i < n; i++) {
		char msg[1024] = "";
		sqlite3 *db;
		int err;

		ntp_err__hold(msg, sizeof(msg));
		err = ntp_db__open_read_counted(&db, paths[i], &host_rows[i]);
		ntp_err__hold(NULL, 0);
		if (err) {
			if (msg[0])
				ntp_error("%s", msg);
			return err;
		}
		sqlite3_close(db);
	}
	return 0;
}

/*
 * record writes the meta rows (role, transport, sample rate, ...) before its
 * first command, so a recording without any is damaged or was not written
 * by ntprof record: a report of it could only say "unknown" for every field
 * and estimate rates from a sample rate of 0.  It is refused instead (the
 * reader itself, lib/ntp, still opens it: the writer's own tests and a
 * live recording's first moments have no meta yet).  Recordings to be
 * joined are refused for their missing role (ntp_model__check_joinable).
 */
int ntp_model__check_meta(sqlite3 *db, const char *path)
{
	sqlite3_stmt *st;
	int rows = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM meta", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			rows = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (rows)
		return 0;   /* a failed count is left to the read that follows */
	ntp_error("%s: corrupt: the recording has no meta rows (role, transport, sample rate: "
		  "ntprof record writes them before any command)", path);
	return NTP_EXIT_CORRUPT;
}

static int strcmp_null(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* each file's role, from the roles table: its name and sides */
static int check_roles(sqlite3 *db, struct ntp_join_file *files, int n, unsigned int *all)
{
	for (int i = 0; i < n; i++) {
		char *role = ntp_meta__text_in(db, files[i].schema, NTP_META_ROLE);
		enum ntp_role r = ntp_role__find(role);

		if (r == NTP_ROLE_MAX) {
			if (role)
				ntp_error("cannot join %s: unknown role '%s' in its meta", files[i].path,
					  role);
			else
				ntp_error("cannot join %s: its meta has no role", files[i].path);
			free(role);
			return NTP_EXIT_MISMATCH;
		}
		free(role);
		files[i].role = ntp_roles[r].name;
		files[i].sides = ntp_roles[r].sides;
		*all |= ntp_roles[r].sides;
	}
	return 0;
}

/* a meta value to compare, as text: NULL when absent */
static char *agree_value(sqlite3 *db, const char *schema, enum ntp_meta_key k)
{
	int64_t v;
	char *t;

	if (ntp_meta[k].type == NTP_META_TEXT)
		return ntp_meta__text_in(db, schema, k);
	v = ntp_meta__int_in(db, schema, k, INT64_MIN);
	if (v == INT64_MIN || asprintf(&t, "%lld", (long long)v) < 0)
		return NULL;
	return t;
}

/* the keys the meta table (lib/ntp/db_meta.c) says joined recordings must agree on */
static int check_agree(sqlite3 *db, const struct ntp_join_file *files, int n)
{
	int err = 0;

	for (int k = 0; k < NTP_META_MAX && !err; k++) {
		const struct ntp_meta_desc *d = &ntp_meta[k];
		char *v0;

		if (!d->agree)
			continue;
		v0 = agree_value(db, files[0].schema, k);
		for (int i = 1; i < n && !err; i++) {
			char *v = agree_value(db, files[i].schema, k);

			if (strcmp_null(v0, v)) {
				ntp_error("cannot join %s and %s: %s %s and %s (%s)", files[0].path,
					  files[i].path, d->agree, v0 ? v0 : "(none)", v ? v : "(none)",
					  d->agree_hint);
				err = d->agree_exit ? d->agree_exit : NTP_EXIT_MISMATCH;
			}
			free(v);
		}
		free(v0);
	}
	return err;
}

/* a target side needs its tables: a "both" file of an old host-only writer has none */
static int check_target_tables(sqlite3 *db, const struct ntp_join_file *f)
{
	char sql[160];
	sqlite3_stmt *st;
	int n = 0;

	if (!(f->sides & NTP_SIDE_TARGET))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".sqlite_schema"
		 " WHERE name IN ('target_io', 'target_stages')", f->schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (n != 2) {
		ntp_error("cannot join %s: a %s recording without the target_io table", f->path,
			  f->role);
		return NTP_EXIT_MISMATCH;
	}
	return 0;
}

int ntp_model__check_joinable(sqlite3 *db, struct ntp_join_file *files, int n)
{
	unsigned int all = 0;
	int err;

	err = check_roles(db, files, n, &all);
	if (!err)
		err = check_agree(db, files, n);
	if (err)
		return err;
	if (!(all & NTP_SIDE_HOST)) {
		if (n == 1)
			ntp_error("cannot join %s alone: it is a target recording; give the host recording too",
				  files[0].path);
		else
			ntp_error("cannot join %s and the others: all are target recordings; a host recording is needed",
				  files[0].path);
		return NTP_EXIT_MISMATCH;
	}
	if (!(all & NTP_SIDE_TARGET)) {
		if (n == 1)
			ntp_error("cannot join %s alone: it is a host recording; give the target recording (-r target) too",
				  files[0].path);
		else
			ntp_error("cannot join %s and the others: all are host recordings; a target recording (-r target) is needed",
				  files[0].path);
		return NTP_EXIT_MISMATCH;
	}
	for (int i = 0; i < n; i++) {
		if (n > 1 && !strcmp(files[i].role, ntp_roles[NTP_ROLE_JOINED].name)) {
			ntp_error("cannot join %s with other recordings: it is a joined recording"
				  " (ntprof join) already; give it alone", files[i].path);
			return NTP_EXIT_MISMATCH;
		}
	}
	for (int i = 0; i < n && !err; i++)
		err = check_target_tables(db, &files[i]);
	return err;
}
