// SPDX-License-Identifier: GPL-2.0
/*
 * Every command's stages kept from the reading of the files to the scan
 * that follows the matching (lib/join/join_priv.h), for the summary report
 * (opts.tag): the join reads each file once, through ntprof's stage views
 * (lib/ntp/db_guard.h), and which host command goes with which target
 * command is known only at the end.  One record per command, at its load
 * index: the host's in a scratch file (lib/core/spill.h), at ten million
 * commands 380 MB, which in memory would be the join's peak; the target's
 * in memory, 13 bytes a command (join_priv.h: struct ntp_jtstages).
 *
 * A record holds the stages of the views: the host's e2e_ns, block_ns,
 * driver_ns and network_star_ns, the tag the caller gave the command; the
 * target's residence_ns, target_driver_ns and storage_ns.  The commands
 * that have the application's stages have them in a third file
 * (join_priv.h: struct ntp_jkeep).  They are read as the
 * views' points and differenced by lib/core/stages.c, which is what the
 * views do (tests/unit/test_stages.c holds the two to the same numbers),
 * for a third of the scan's time.  A point that is no number, a real (what
 * SQLite makes of a sum that overflows), or a difference that overflows
 * (where the view's stage is a real) makes the record's why say so: an
 * impossible command, classed as the host-only report classes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/stages.h"
#include "lib/join/join_priv.h"
#include "lib/ntp/db_app.h"
#include "lib/ntp/db_guard.h"

int ntp_join__keep_open(struct ntp_join *j)
{
	struct ntp_jkeep *k = calloc(1, sizeof(*k));
	int any_app = 0;

	if (!k)
		return ntp_join__nomem();
	k->host.fd = k->apps.fd = -1;
	j->keep = k;
	for (int fi = 0; fi < j->nfiles; fi++) {
		int has = j->files[fi].sides & NTP_JOIN_HOST ? ntp_db__has_app(j->db, j->files[fi].schema) :
			  0;

		if (has < 0)
			return ntp_db__fail(j->db, j->files[fi].path, "reading the schema");
		k->app[fi] = has > 0;
		any_app |= has > 0;
	}
	if (ntp_spill__open(&k->host, sizeof(struct ntp_jhstages)) ||
	    (any_app && ntp_spill__open(&k->apps, sizeof(struct ntp_app_row)))) {
		int e = k->host.err ? k->host.err : k->apps.err;

		if (e == ENOMEM)
			return ntp_join__nomem();
		ntp_error("join: cannot create a scratch file in %s (TMPDIR): %s", k->host.dir,
			  strerror(e));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

void ntp_join__keep_close(struct ntp_join *j)
{
	if (!j->keep)
		return;
	ntp_spill__close(&j->keep->host);
	ntp_spill__close(&j->keep->apps);
	free(j->keep->target);
	for (int w = 0; w < NTP_JOIN_READERS; w++)
		free(j->keep->wide[w].v);
	free(j->keep);
	j->keep = NULL;
}

int ntp_join__keep_fail(const struct ntp_join *j, const struct ntp_spill_run *run, char *msg,
			size_t len, int *err)
{
	const char *doing = run->writing ? "write" : "read back";

	if (run->err == ENOMEM)
		snprintf(msg, len, "join: %s", strerror(ENOMEM));
	else
		snprintf(msg, len, "join: cannot %s a scratch file in %s (TMPDIR): %s", doing,
			 j->keep->host.dir, strerror(run->err));
	*err = NTP_EXIT_FAILURE;
	return *err;
}

/*
 * Why points of kind k make no stages (NTP_JKEPT_OK when they do):
 * as report_scan.c classes a host recording's commands, a real is an
 * overflow, other values not a number, and so is a difference that
 * overflowed (differenced false).
 */
static uint8_t kept_why(enum ntp_db_points k, bool differenced)
{
	if (k == NTP_DB_POINTS_REAL)
		return NTP_JKEPT_OVERFLOW;
	if (k == NTP_DB_POINTS_OTHER)
		return NTP_JKEPT_NOT_NUMBER;
	return differenced ? NTP_JKEPT_OK : NTP_JKEPT_OVERFLOW;
}

int ntp_join__keep_host(struct ntp_join *j, int w, int fi, sqlite3_stmt *st, int first,
			int64_t qid, int64_t h_start_ns, struct ntp_spill_run *run,
			struct ntp_spill_run *apps)
{
	const int io_type = first, bytes = first + 1, ns = first + 2, path = first + 3;
	const int points = first + 4;	/* h_start_ns .. h_done_ns (join_read.c) */
	struct ntp_join_host_row row = {
		.host_file = fi,
		.io_type = (const char *)sqlite3_column_text(st, io_type),
		.bytes = sqlite3_column_int64(st, bytes),
		.ns = (const char *)sqlite3_column_text(st, ns),
		.path = (const char *)sqlite3_column_text(st, path),
		.qid = qid,
		.h_start_ns = h_start_ns,
	};
	int64_t v[NTP_DB_HOST_NPOINTS];
	struct ntp_host_stages hs = { 0 };
	enum ntp_db_points k = ntp_db__points(st, points, NTP_DB_HOST_NPOINTS, v);
	bool ok = k == NTP_DB_POINTS_INT &&
		  ntp_stages__host_points(&(struct ntp_host_points){ v[0], v[1], v[2], v[3], v[4], v[5] },
					  &hs);
	struct ntp_jhstages rec = {
		.e2e = hs.e2e, .block = hs.block, .driver = hs.driver,
		.network_star = hs.network_star, .why = kept_why(k, ok),
	};
	struct ntp_app_row app = { NTP_APP_ROW_NONE };
	uint32_t tag = NTP_JOIN_UNTAGGED;

	if (j->opts.tag(j->opts.tag_ctx[w], &row, &tag))
		return -ENOMEM;
	rec.tag = tag;
	if (apps)
		ntp_db__app_row(st, points + NTP_DB_HOST_NPOINTS, &app);
	rec.app = app.state != NTP_APP_ROW_NONE;
	if (rec.app && ntp_spill_run__put(apps, &app))
		return -apps->err;
	return ntp_spill_run__put(run, &rec);
}

int ntp_join__keep_targets(struct ntp_join *j, size_t n)
{
	struct ntp_jkeep *k = j->keep;

	free(k->target);
	k->target = malloc((n ? n : 1) * sizeof(*k->target));
	for (int w = 0; w < NTP_JOIN_READERS; w++)
		k->wide[w].n = 0;
	return k->target ? 0 : ntp_join__nomem();
}

/* a stage in the 32 bits of a kept record, or not */
static bool narrow(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

int ntp_join__keep_target(struct ntp_join *j, int w, size_t idx, sqlite3_stmt *st, int first)
{
	int64_t v[NTP_DB_TARGET_NPOINTS];
	struct ntp_target_stages ts = { 0 };
	enum ntp_db_points k = ntp_db__points(st, first, NTP_DB_TARGET_NPOINTS, v);
	bool ok = k == NTP_DB_POINTS_INT &&
		  ntp_stages__target_points(&(struct ntp_target_points){ v[0], v[1], v[2], v[3], v[4] },
					    &ts);
	struct ntp_jtstages *rec = &j->keep->target[idx];
	struct ntp_jwides *l = &j->keep->wide[w];

	rec->why = kept_why(k, ok);
	if (narrow(ts.residence) && narrow(ts.target_driver) && narrow(ts.storage)) {
		rec->residence = (int32_t)ts.residence;
		rec->target_driver = (int32_t)ts.target_driver;
		rec->storage = (int32_t)ts.storage;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ntp_jtwide *p = realloc(l->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	l->v[l->n++] = (struct ntp_jtwide){ (uint32_t)idx, ts.residence, ts.target_driver,
					    ts.storage };
	rec->why |= NTP_JKEPT_WIDE;
	return 0;
}

static int cmp_wide(const void *pa, const void *pb)
{
	const struct ntp_jtwide *a = pa, *b = pb;

	return (a->idx > b->idx) - (a->idx < b->idx);
}

int ntp_join__keep_wides(struct ntp_join *j)
{
	struct ntp_jwides *all = &j->keep->wide[0];

	for (int w = 1; w < NTP_JOIN_READERS; w++) {
		struct ntp_jwides *l = &j->keep->wide[w];

		if (!l->n)
			continue;
		if (all->n + l->n > all->cap) {
			struct ntp_jtwide *p = realloc(all->v, (all->n + l->n) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			all->v = p;
			all->cap = all->n + l->n;
		}
		memcpy(all->v + all->n, l->v, l->n * sizeof(*l->v));
		all->n += l->n;
		l->n = 0;
	}
	/* a reader's ranges of several files are not one run of indexes: sorted whole */
	if (all->n > 1)
		qsort(all->v, all->n, sizeof(*all->v), cmp_wide);
	return 0;
}

uint8_t ntp_join__kept_target(const struct ntp_join *j, uint32_t idx, int64_t *residence,
			      int64_t *target_driver, int64_t *storage)
{
	const struct ntp_jtstages *rec = &j->keep->target[idx];
	const struct ntp_jwides *all = &j->keep->wide[0];
	size_t lo = 0, hi = all->n;

	if (!(rec->why & NTP_JKEPT_WIDE)) {
		*residence = rec->residence;
		*target_driver = rec->target_driver;
		*storage = rec->storage;
		return rec->why;
	}
	/* ntp_join__keep_wides() sorted them: every wide record is there */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (all->v[mid].idx <= idx)
			lo = mid;
		else
			hi = mid;
	}
	*residence = all->v[lo].residence;
	*target_driver = all->v[lo].target_driver;
	*storage = all->v[lo].storage;
	return rec->why & ~NTP_JKEPT_WIDE;
}
