// SPDX-License-Identifier: GPL-2.0
/*
 * report: the model of a report on joined recordings (a host and a target
 * recording, several of either, or one "-r both" recording), of
 * --stages=detail on one host recording, and of one target recording alone.
 * lib/join/join.h pairs the commands and estimates the clocks; here each file's
 * header is read as the report on one recording reads it, and the joined
 * rows are streamed into the groups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ntp/db_read.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/report/report_join.h"
#include "lib/report/report_model.h"
#include "lib/report/report_query.h"
#include "lib/report/report_sql.h"
#include "lib/report/report_view.h"

/* the rows of table, a count as every reader of it gets the count */
static int count_rows(sqlite3 *db, const char *path, const char *sql, const char *what,
		      uint64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	rc = ntp_report__one_row(db, path, sql, what, &st);
	if (rc)
		return rc;
	*n = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* the target side's counters, summed over its intervals, and its rows */
static int load_target_counts(struct ntp_jfile *f, sqlite3 *db)
{
	static const char sql[] =
		"SELECT total(seen), total(sampled), total(lost_ringbuf), total(lost_map) "
		"FROM intervals WHERE side = 'target'";
	sqlite3_stmt *st;
	int rc;

	rc = ntp_report__one_row(db, f->hdr.path, sql, "cannot read the intervals", &st);
	if (rc)
		return rc;
	f->t_seen = (uint64_t)sqlite3_column_double(st, 0);
	f->t_sampled = (uint64_t)sqlite3_column_double(st, 1);
	f->t_lost_ringbuf = (uint64_t)sqlite3_column_double(st, 2);
	f->t_lost_map = (uint64_t)sqlite3_column_double(st, 3);
	sqlite3_finalize(st);
	return count_rows(db, f->hdr.path, "SELECT count(*) FROM target_io",
			  "cannot read the target commands", &f->t_rows);
}

static int load_file(struct ntp_jfile *f, const char *path)
{
	sqlite3 *db;
	int rc;

	rc = ntp_db__open_read(&db, path);
	if (rc)
		return rc;
	rc = ntp_report__load_header(&f->hdr, db, path);
	if (!rc)
		rc = count_rows(db, path, "SELECT count(*) FROM host_io", "cannot read the commands",
				&f->hdr.rows);
	if (!rc && (f->sides & NTP_JOIN_TARGET))
		rc = load_target_counts(f, db);
	sqlite3_close(db);
	return rc;
}

static int copy_join(struct ntp_jreport *r, struct ntp_join *j)
{
	r->npairs = ntp_join__npairs(j);
	r->pairs = calloc(r->npairs ? r->npairs : 1, sizeof(*r->pairs));
	if (!r->pairs) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	for (int i = 0; i < r->npairs; i++)
		r->pairs[i] = *ntp_join__pair(j, i);
	ntp_join__counts(j, &r->counts);
	for (int i = 0; i < r->nfiles; i++)
		r->files[i].sides = ntp_join__file(j, i)->sides;
	return 0;
}

/* n x N / duration of the host file the group's commands came from */
static void estimate_rates(struct ntp_jreport *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		struct ntp_report_group *g = &r->groups[i];
		const struct ntp_report_header *h;

		g->est_rate = -1;
		if (g->host_file < 1 || g->host_file > r->nfiles)
			continue;
		h = &r->files[g->host_file - 1].hdr;
		if (h->duration_ns > 0 && h->sample_one_in > 0)
			g->est_rate = (double)g->e2e.n * (double)h->sample_one_in /
				      ((double)h->duration_ns / 1e9);
	}
}

/*
 * One recording, no join: a host's with --stages=detail, or a target's
 * alone.  Its own connection.
 */
static int scan_one(struct ntp_jreport *r, const char *path, int sides)
{
	sqlite3 *db;
	int rc;

	r->files[0].sides = sides;
	rc = ntp_db__open_read(&db, path);
	if (rc)
		return rc;
	rc = ntp_jreport__scan(r, db, path);
	sqlite3_close(db);
	return rc;
}

static int scan_joined(struct ntp_jreport *r, const char *const *paths, int n)
{
	struct ntp_join *j;
	int rc;

	/* the join checks the files first: a refusal is its one line */
	rc = ntp_join__open(&j, paths, n, NULL);
	if (rc)
		return rc;
	rc = ntp_join__run(j);
	if (!rc)
		rc = copy_join(r, j);
	if (!rc)
		rc = ntp_jreport__scan_join(r, j, paths[0]);
	ntp_join__close(j);
	return rc;
}

int ntp_jreport__load(struct ntp_jreport *r, const char *const *paths, int n,
		      enum ntp_jreport_kind kind, int detail)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->joined = kind == NTP_JREPORT_JOINED;
	r->target_only = kind == NTP_JREPORT_TARGET;
	switch (kind) {
	case NTP_JREPORT_JOINED:
		r->view = detail ? NTP_VIEW_JOINED_DETAIL : NTP_VIEW_JOINED;
		break;
	case NTP_JREPORT_HOST:
		r->view = NTP_VIEW_HOST_DETAIL;
		break;
	case NTP_JREPORT_TARGET:
		r->view = detail ? NTP_VIEW_TARGET_DETAIL : NTP_VIEW_TARGET;
		break;
	}
	if (!r->joined)
		n = 1;
	r->files = calloc(n, sizeof(*r->files));
	if (!r->files) {
		ntp_error("%s: %s", paths[0], strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	r->nfiles = n;
	if (r->joined)
		rc = scan_joined(r, paths, n);
	else
		rc = scan_one(r, paths[0], r->target_only ? NTP_JOIN_TARGET : NTP_JOIN_HOST);
	for (int i = 0; i < n && !rc; i++)
		rc = load_file(&r->files[i], paths[i]);
	for (int i = 0; i < n && !rc && detail; i++)
		rc = ntp_jreport__find_gaps(r, i);
	if (!rc)
		estimate_rates(r);
	return rc;
}

void ntp_jreport__free(struct ntp_jreport *r)
{
	for (int i = 0; i < r->nfiles; i++)
		ntp_report__free_header(&r->files[i].hdr);
	free(r->files);
	free(r->pairs);
	for (size_t i = 0; i < r->ngaps; i++)
		free(r->gaps[i].hook);
	free(r->gaps);
	for (size_t i = 0; i < r->ngroups; i++) {
		free(r->groups[i].io_type);
		free(r->groups[i].ns);
	}
	free(r->groups);
	memset(r, 0, sizeof(*r));
}
