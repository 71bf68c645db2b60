// SPDX-License-Identifier: GPL-2.0
/*
 * report: a host recording's summary (NTP_VIEW_HOST): every sampled
 * command's stages, from the host_stages view, into one set of samples per
 * group, then each group's summary.
 *
 * The stages are host_stages' (schema/ntp.sql), the single definition of
 * them: read as the view's points (h_start_ns, h_queue_ns, sent_ns,
 * r2t_host_ns, recv_ns, h_done_ns, each with the view's fallbacks) and
 * differenced by lib/core/stages.c, which tests/unit/test_stages.c holds to
 * the view's own stage columns.  SQLite computes each stage column anew with
 * the fallbacks under it; the points are a fifth of the scan's time less.
 * The view is read in storage order, without ORDER BY: sorting ten million
 * rows by group inside SQLite costs more than the whole report, and every
 * group's samples must be held for its percentiles anyway, so the peak memory
 * is the same either way (4 x 8 bytes per command, plus one sort buffer).
 *
 * Evaluating the view is most of the cost, so large recordings are read by
 * one thread per CPU (at most MAX_WORKERS), each on its own connection and
 * its own range of ids; the groups are merged before they are summarized.
 *
 * A file whose host_io has the application's columns is read from
 * host_app_stages instead, which has host_stages' columns and the
 * application's stages (schema/ntp.sql) over host_io alone, in the same one
 * scan: no second view joined row by row.
 *
 * For the diagnosis, the same rows also give its evidence
 * (model_evidence.h): the view joined to host_io for the send deferral's
 * flag, each reader gathering its own until it holds too many rows.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/jobs.h"
#include "lib/core/stages.h"
#include "lib/ntp/db_app.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_own.h"
#include "lib/model/model_evidence.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_groups.h"
#include "lib/model/model.h"
#include "lib/model/model_scan.h"
#include "lib/model/model_sql.h"

/* the host view's stages after e2e: block, driver, network* */
#define HOST_STAGES 3
/* the view's points they are differences of (lib/ntp/db_own.h), from column 3 on */
#define POINTS NTP_DB_HOST_POINT_COLS
#define NPOINTS NTP_DB_HOST_NPOINTS
#define MAX_WORKERS 4
/* below this many commands a second thread costs more than it saves */
#define ROWS_PER_WORKER 100000

struct worker {
	const char *path;
	ntp_reopen_fn reopen;         /* the file again, on the worker's own connection */
	void *reopen_ctx;
	int64_t lo, hi;               /* ids lo..hi */
	const struct ntp_read_where *where;  /* the read filters; NULL: none */
	bool app;                     /* the file has the application's columns */
	const char *from;             /* the rows with the evidence's columns; NULL: no evidence */
	struct ntp_evidence_acc *ev;  /* the diagnosis' evidence (model_evidence.h) */
	bool ev_full;                 /* ev held too many rows, and was dropped */
	struct ntp_group_set set;
	uint64_t rows;
	int rc;                       /* NTP_EXIT_* */
};

/* the read filters' columns in host_stages (model_filter.h) */
static const struct ntp_read_cols host_cols = {
	.io_type = "io_type", .bytes = "bytes", .qid = "qid",
	.names = { "namespace", "path" }, .time = "h_start_ns",
};

/* -1 when a row's points are integers, else why its command is impossible (model.h) */
static int points_why(enum ntp_db_points kind)
{
	switch (kind) {
	case NTP_DB_POINTS_INT:
		return -1;
	case NTP_DB_POINTS_REAL:
		return NTP_IMPOSSIBLE_OVERFLOW;
	case NTP_DB_POINTS_OTHER:
		break;
	}
	return NTP_IMPOSSIBLE_NOT_NUMBER;
}

static int read_rows(struct worker *w, sqlite3 *db)
{
	static const char sql[] =
		"SELECT io_type, bytes, namespace, " POINTS " "
		"FROM host_stages WHERE id BETWEEN ?1 AND ?2";
	static const char app_sql[] =
		"SELECT io_type, bytes, namespace, " POINTS ", "
		NTP_DB_APP_COLS " FROM " NTP_DB_HOST_APP_STAGES " WHERE id BETWEEN ?1 AND ?2";
	/* the evidence's columns after the points and the application's */
	const int ev_first = 3 + NPOINTS + (w->app ? NTP_DB_APP_NCOLS : 0);
	char ev_sql[1024];
	sqlite3_stmt *st;
	int rc, ev = 0;

	if (w->from)
		snprintf(ev_sql, sizeof(ev_sql), "SELECT io_type, bytes, namespace, " POINTS "%s, "
			 NTP_EVIDENCE_COLS " FROM %s WHERE id BETWEEN ?1 AND ?2",
			 w->app ? ", " NTP_DB_APP_COLS : "", w->from);
	/* the range's parameters are bound after the filters' (named :rfN, never ?1 or ?2) */
	if (ntp_read_filter__prepare(db, w->from ? ev_sql : w->app ? app_sql : sql, w->where, NULL,
				     &st))
		return ntp_report__db_fail(db, w->path, "cannot read the commands");
	sqlite3_bind_int64(st, 1, w->lo);
	sqlite3_bind_int64(st, 2, w->hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *io_type = (const char *)sqlite3_column_text(st, 0);
		int64_t bytes = sqlite3_column_int64(st, 1);
		const char *ns = (const char *)sqlite3_column_text(st, 2);
		int64_t p[NPOINTS];
		enum ntp_db_points kind = ntp_db__points(st, 3, NPOINTS, p);
		int why = points_why(kind);
		struct ntp_host_stages hs = { 0 };
		struct ntp_app_row app = { NTP_APP_ROW_NONE };
		int64_t v[HOST_STAGES];
		ssize_t k;

		if (why < 0 && !ntp_stages__host_points(&(struct ntp_host_points){
				p[0], p[1], p[2], p[3], p[4], p[5] }, &hs))
			why = NTP_IMPOSSIBLE_OVERFLOW;
		v[0] = hs.block;
		v[1] = hs.driver;
		v[2] = hs.network_star;
		if (w->app)
			ntp_db__app_row(st, 3 + NPOINTS, &app);
		/* a recording alone: every group is of its one file */
		k = ntp_group_set__find(&w->set, 1, io_type ? io_type : "", bytes, ns ? ns : "");
		if (k >= 0 && why >= 0)
			ntp_group_set__impossible(&w->set, (size_t)k, why);
		else if (k < 0 || ntp_group_set__add_app(&w->set, (size_t)k, hs.e2e, v, &app)) {
			rc = -ENOMEM;
			break;
		}
		/* the points h_start_ns, h_queue_ns, sent_ns and h_done_ns, as read */
		if (w->ev)
			ev = ntp_evidence__add(w->ev, st, &(struct ntp_evidence_in){
				(const unsigned char *)io_type, (const unsigned char *)ns, bytes,
				p[0], p[1], p[2], p[NPOINTS - 1], kind == NTP_DB_POINTS_INT,
				3, 4, 5, 3 + NPOINTS - 1, ev_first, (size_t)k + 1 });
		if (ev == -ENOMEM) {
			rc = -ENOMEM;
			break;
		}
		if (ev == NTP_EVIDENCE_FULL) {
			/* many groups: the evidence is left to a scan of its own (model_evidence.h) */
			ntp_evidence__acc_free(w->ev);
			w->ev = NULL;
			w->ev_full = true;
			ev = 0;
		}
		w->rows++;
	}
	return ntp_report__rows_end(db, w->path, st, rc, "cannot read the commands");
}

/*
 * Each worker has its own connection: SQLite serializes the calls on one.
 * NOMUTEX because only this thread ever uses it (lib/ntp/db_guard.h,
 * ntp_db__open_again).
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	sqlite3 *db = NULL;

	/* guarded, with ntprof's host_stages: never the file's (lib/ntp/db_guard.h) */
	w->rc = w->reopen(w->reopen_ctx, 0, &db);
	if (w->rc)
		return NULL;
	w->rc = read_rows(w, db);
	sqlite3_close(db);
	return NULL;
}

static int id_range(sqlite3 *db, const char *path, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *st;
	int rc;

	/* two subqueries: SQLite finds a lone min() or max() in the B-tree, both at once by a scan */
	rc = ntp_report__one_row(db, path, "SELECT (SELECT min(id) FROM host_io),"
				 " (SELECT max(id) FROM host_io)", "cannot read the commands", &st);
	if (rc)
		return rc;
	*lo = sqlite3_column_int64(st, 0);
	*hi = sqlite3_column_type(st, 1) == SQLITE_NULL ? *lo - 1 : sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

static int nworkers(int64_t rows)
{
	long cpus = ntp_jobs__threads();
	int64_t n = rows / ROWS_PER_WORKER;

	if (!sqlite3_threadsafe())
		return 1;
	if (cpus > 0 && n > cpus)
		n = cpus;
	if (n > MAX_WORKERS)
		n = MAX_WORKERS;
	return n < 1 ? 1 : (int)n;
}

int ntp_report__scan_host(struct ntp_report *r, sqlite3 *db, const char *path, bool evidence,
			  ntp_reopen_fn reopen, void *reopen_ctx)
{
	char from[512];
	bool pid = false;
	struct worker w[MAX_WORKERS];
	struct ntp_read_where where = { .f = r->filter, .cols = &host_cols };
	static const char *const main_schema[] = { "main" };
	int64_t lo = 1, hi = 0, span;
	int n, rc, app;

	app = ntp_db__has_app(db, "main");
	if (app < 0)
		return ntp_report__db_fail(db, path, "cannot read the schema");
	rc = id_range(db, path, &lo, &hi);
	if (!rc)
		rc = ntp_read_filter__starts(&where, db, main_schema, 1, false, path);
	if (rc)
		return rc;
	span = hi - lo + 1;
	n = nworkers(span);
	memset(w, 0, sizeof(w));
	if (evidence) {
		/* only --by's table reads the tag count */
		unsigned cols = ntp_evidence__cols(db, "main") & ~NTP_EVIDENCE_BUSY;

		pid = cols & NTP_EVIDENCE_PID;
		ntp_evidence__from(from, sizeof(from), app ? NTP_DB_HOST_APP_STAGES :
				   NTP_DB_HOST_STAGES, "main", cols);
	}
	for (int i = 0; i < n && evidence; i++) {
		w[i].from = from;
		w[i].ev = ntp_evidence__acc_new(NTP_EVIDENCE_MAX_ROWS);
		if (!w[i].ev)
			rc = NTP_EXIT_FAILURE;
	}
	if (rc) {
		for (int i = 0; i < n; i++)
			ntp_evidence__acc_free(w[i].ev);
		ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
		return rc;
	}
	for (int i = 0; i < n; i++) {
		w[i].path = path;
		w[i].reopen = reopen;
		w[i].reopen_ctx = reopen_ctx;
		w[i].where = r->filter ? &where : NULL;
		w[i].app = app;
		w[i].set.nstages = HOST_STAGES;
		w[i].set.histograms = r->histograms;
		w[i].lo = lo + span * i / n;
		w[i].hi = lo + span * (i + 1) / n - 1;
	}
	/* the first share is read on this thread; one whose thread could not start, too */
	ntp_jobs__run(worker_main, w, sizeof(*w), n);

	/* one reader's evidence dropped: the evidence of every row is left to a scan of its own */
	for (int i = 0; i < n; i++)
		if (w[i].ev_full)
			for (int k = 0; k < n; k++) {
				ntp_evidence__acc_free(w[k].ev);
				w[k].ev = NULL;
			}
	rc = 0;
	for (int i = 0; i < n; i++) {
		if (!rc)
			rc = w[i].rc;
		if (!rc && i && (ntp_group_set__merge(&w[0].set, &w[i].set) ||
				 (w[0].ev && ntp_evidence__merge(w[0].ev, w[i].ev)))) {
			ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
			rc = NTP_EXIT_FAILURE;
		}
		r->total += w[i].rows;
		if (i) {
			ntp_group_set__free(&w[i].set);
			ntp_evidence__acc_free(w[i].ev);
		}
	}
	if (!rc && w[0].ev) {
		if (ntp_evidence__finish(w[0].ev, pid, &r->files[0].evidence)) {
			ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
			rc = NTP_EXIT_FAILURE;
		}
	} else {
		ntp_evidence__acc_free(w[0].ev);
	}
	/* the model takes the groups; only the samples are freed here */
	if (!rc && ntp_group_set__finish(&w[0].set, &r->groups, &r->ngroups)) {
		ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
		rc = NTP_EXIT_FAILURE;
	}
	ntp_group_set__free(&w[0].set);
	return rc;
}
