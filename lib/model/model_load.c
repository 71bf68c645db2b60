// SPDX-License-Identifier: GPL-2.0
/*
 * report: the one model (model.h) of whatever recordings were given.
 * The files decide its kind: several files, or one "-r both" file, are
 * joined (lib/join/join.h pairs the commands and estimates the clocks); one
 * host recording is reported alone, its network and target as network*; one
 * target recording alone shows the target's stages and its residence.  Each
 * file's header is read by model_header.c, and the commands are streamed
 * into the groups: a host recording's summary by model_scan.c's parallel
 * scan of host_stages, a joined one's as the join reads (model_join.c),
 * every other view by model_view.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"
#include "lib/model/model_app.h"
#include "lib/model/model_header.h"
#include "lib/model/model_join.h"
#include "lib/model/model_load.h"
#include "lib/model/model_meta_check.h"
#include "lib/model/model_order.h"
#include "lib/model/model.h"
#include "lib/model/model_paths.h"
#include "lib/model/model_scan.h"
#include "lib/model/model_view.h"

static int copy_join(struct ntp_report *r, struct ntp_join *j)
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

/* n x N / duration of the file the group's commands came from (of its --time window) */
static void estimate_rates(struct ntp_report *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		struct ntp_report_group *g = &r->groups[i];
		const struct ntp_report_header *h;
		int64_t span;

		g->est_rate = -1;
		if (g->host_file < 1 || g->host_file > r->nfiles)
			continue;
		h = &r->files[g->host_file - 1].hdr;
		/* with --time, the commands of the window over the window's length */
		span = ntp_read_filter__window_ns(r->filter, h->duration_ns);
		if (span > 0 && h->sample_one_in > 0)
			g->est_rate = (double)g->e2e.n * (double)h->sample_one_in /
				      ((double)span / 1e9);
	}
}

/*
 * one recording, no join: its header and its commands on one connection;
 * host_rows as the opening counted them (ntp_db__open_read_counted)
 */
static int load_one(struct ntp_report *r, sqlite3 *db, const char *path, int64_t host_rows)
{
	int rc;

	r->files[0].sides = r->kind == NTP_REPORT_TARGET ? NTP_JOIN_TARGET : NTP_JOIN_HOST;
	rc = ntp_report__load_file_counted(&r->files[0], db, path, host_rows, -1);
	if (rc)
		return rc;
	if (r->view == NTP_VIEW_HOST)
		return ntp_report__scan_host(r, db, path);
	return ntp_report__scan_view(r, db, path);
}

/*
 * The summary is made as the join reads the files (model_join.h); every
 * other view of joined recordings is read through temp.joined.
 */
static int load_joined(struct ntp_report *r, const char *const *paths, int n)
{
	int64_t hrows[NTP_JOIN_MAX_FILES], trows[NTP_JOIN_MAX_FILES];
	struct ntp_join_opts jo = { 0 };
	struct ntp_report_join *rj = NULL;
	struct ntp_join *j;
	int rc = 0;

	if (r->view == NTP_VIEW_JOINED)
		rc = ntp_report_join__new(&rj, r, &jo);
	/* the join checks the files first: a refusal is its one line */
	if (!rc)
		rc = ntp_join__open(&j, paths, n, &jo);
	if (rc) {
		ntp_report_join__free(rj);
		return rc;
	}
	if (rj)
		rc = ntp_report_join__prepare(rj, j, paths[0]);
	if (!rc)
		rc = ntp_join__run(j);
	if (!rc)
		rc = copy_join(r, j);
	if (!rc)
		rc = rj ? ntp_report_join__scan(rj, j, paths[0]) :
		     ntp_report__scan_view(r, ntp_join__db(j), paths[0]);
	for (int i = 0; i < n; i++)
		ntp_join__file_rows(j, i, &hrows[i], &trows[i]);
	ntp_join__close(j);
	ntp_report_join__free(rj);
	for (int i = 0; i < n && !rc; i++) {
		sqlite3 *db;

		/* checked when the join opened it (ntp_db__open_read): not counted again */
		rc = ntp_db__open_again(&db, paths[i]);
		if (!rc) {
			rc = ntp_report__load_file_counted(&r->files[i], db, paths[i], hrows[i],
							   trows[i]);
			sqlite3_close(db);
		}
	}
	return rc;
}

static void free_group(struct ntp_report_group *g)
{
	free(g->io_type);
	free(g->ns);
	ntp_summary__free(&g->e2e);
	for (int s = 0; s < NTP_VIEW_MAX_STAGES; s++)
		ntp_summary__free(&g->stage[s]);
	ntp_summary__free(&g->app.e2e);
	for (int s = 0; s < NTP_APP_STAGES; s++)
		ntp_summary__free(&g->app.stage[s]);
}

void ntp_report__limit(struct ntp_report *r, double limit)
{
	size_t kept = 0;

	if (limit <= 0 || !r->total)
		return;
	r->percent_limit = limit;
	for (size_t i = 0; i < r->ngroups; i++) {
		if ((double)r->groups[i].e2e.n * 100.0 / (double)r->total >= limit) {
			r->groups[kept++] = r->groups[i];
		} else {
			free_group(&r->groups[i]);
			r->nhidden++;
		}
	}
	r->ngroups = kept;
}

static enum ntp_view_kind view_of(enum ntp_report_kind kind, bool detail)
{
	switch (kind) {
	case NTP_REPORT_JOINED:
		return detail ? NTP_VIEW_JOINED_DETAIL : NTP_VIEW_JOINED;
	case NTP_REPORT_TARGET:
		return detail ? NTP_VIEW_TARGET_DETAIL : NTP_VIEW_TARGET;
	default:
		return detail ? NTP_VIEW_HOST_DETAIL : NTP_VIEW_HOST;
	}
}

/*
 * Several files, a "-r both" one, or a joined recording (ntprof join: both
 * sides and its own pairing) are joined; one host or target file is alone.
 */
static enum ntp_report_kind kind_of(sqlite3 *db, int n)
{
	char *role = n > 1 ? NULL : ntp_meta__text(db, NTP_META_ROLE);
	enum ntp_report_kind kind = NTP_REPORT_HOST;

	if (n > 1 || (role && (!strcmp(role, "both") || !strcmp(role, "joined"))))
		kind = NTP_REPORT_JOINED;
	else if (role && !strcmp(role, "target"))
		kind = NTP_REPORT_TARGET;
	free(role);
	return kind;
}

int ntp_report__load(struct ntp_report *r, const char *const *paths, int n,
		     const struct ntp_report_load *lo)
{
	bool detail = lo && lo->detail;
	int64_t host_rows = -1;
	sqlite3 *db = NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	r->filter = lo && ntp_read_filter__any(lo->filter) ? lo->filter : NULL;
	r->histograms = lo && lo->histograms;
	if (n < 1)
		return NTP_EXIT_USAGE;
	/* one file twice is a slip of the command line, not a join */
	rc = ntp_report__check_twice(paths, n);
	if (rc)
		return rc;
	r->files = calloc(n, sizeof(*r->files));
	if (!r->files) {
		ntp_error("%s: %s", paths[0], strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	r->nfiles = n;
	if (n == 1) {
		rc = ntp_db__open_read_counted(&db, paths[0], &host_rows);
		if (!rc)
			rc = ntp_report__check_meta(db, paths[0]);
		if (rc) {
			sqlite3_close(db);
			return rc;
		}
	}
	r->kind = kind_of(db, n);
	r->view = view_of(r->kind, detail);
	if (r->kind != NTP_REPORT_JOINED)
		rc = load_one(r, db, paths[0], host_rows);
	sqlite3_close(db);
	if (!rc && r->kind == NTP_REPORT_JOINED)
		rc = load_joined(r, paths, n);
	/* the scans of model_view.c read it too, for their sub-stages; the join refused a mix */
	r->rdma = !rc && r->files[0].hdr.transport && !strcmp(r->files[0].hdr.transport, "rdma");
	for (int i = 0; i < n && !rc && detail; i++)
		rc = ntp_report__find_gaps(r, i);
	if (!rc)
		estimate_rates(r);
	r->app = !rc && ntp_report__any_app(r);
	if (!rc)
		rc = ntp_report__order(r, lo ? lo->sort : NULL);
	if (!rc && lo)
		ntp_report__limit(r, lo->percent_limit);
	return rc;
}

void ntp_report__free(struct ntp_report *r)
{
	for (int i = 0; i < r->nfiles; i++)
		ntp_report__free_header(&r->files[i].hdr);
	free(r->files);
	free(r->pairs);
	for (size_t i = 0; i < r->ngaps; i++)
		free(r->gaps[i].hook);
	free(r->gaps);
	for (size_t i = 0; i < r->ngroups; i++)
		free_group(&r->groups[i]);
	free(r->groups);
	memset(r, 0, sizeof(*r));
}
