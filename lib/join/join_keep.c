// SPDX-License-Identifier: GPL-2.0
/*
 * Every command's stages kept from the reading of the files to the scan
 * that follows the matching (lib/join/join_base.h), for the summary report
 * (opts.tag): the join reads each file once, through ntprof's stage views
 * (lib/ntp/db_guard.h), and which host command goes with which target
 * command is known only at the end.  One record per command, at its load
 * index: the host's in a scratch file (lib/core/spill.h), at ten million
 * commands 180 MB, which in memory would add to the join's peak; the
 * target's in memory, 9 bytes a command (join_base.h: struct ntp_jtstages).
 *
 * A record holds the stages of the views: the host's block_ns, driver_ns
 * and network_star_ns (e2e_ns is their sum), the tag the caller gave the
 * command; the target's target_driver_ns and storage_ns (residence_ns is
 * their sum).  The commands that have the application's stages have them
 * in a second scratch file (join_base.h: struct ntp_jkeep).  They are read as the
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
#include "lib/join/join_base.h"
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
		int has = j->files[fi].sides & NTP_SIDE_HOST ? ntp_db__has_app(j->db, j->files[fi].schema) :
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
	for (int w = 0; w < NTP_JOIN_READERS; w++) {
		free(j->keep->hwide[w].v);
		free(j->keep->twide[w].v);
	}
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
 * as model_scan.c classes a host recording's commands, a real is an
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

/* a stage in the 32 bits of a kept record, or not */
static bool narrow(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* a wide command's stages onto its reader's list; 0 or -ENOMEM */
static int wide_add(struct ntp_jwides *l, size_t idx, int64_t a, int64_t b, int64_t c)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ntp_jwide *p = realloc(l->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	l->v[l->n++] = (struct ntp_jwide){ (uint32_t)idx, { a, b, c } };
	return 0;
}

int ntp_join__keep_host(struct ntp_join *j, int w, int fi, size_t idx, sqlite3_stmt *st,
			int first, int64_t qid, int64_t h_start_ns, struct ntp_spill_run *run,
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
	struct ntp_jhstages rec = { .why = kept_why(k, ok) };
	struct ntp_app_row app = { NTP_APP_ROW_NONE };
	uint32_t tag = NTP_JOIN_UNTAGGED;

	if (j->opts.tag(j->opts.tag_ctx[w], &row, &tag))
		return -ENOMEM;
	rec.tag = tag;
	if (narrow(hs.block) && narrow(hs.driver) && narrow(hs.network_star)) {
		rec.block = (int32_t)hs.block;
		rec.driver = (int32_t)hs.driver;
		rec.network_star = (int32_t)hs.network_star;
	} else if (wide_add(&j->keep->hwide[w], idx, hs.block, hs.driver, hs.network_star)) {
		return -ENOMEM;
	} else {
		rec.why |= NTP_JKEPT_WIDE;
	}
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
		k->hwide[w].n = k->twide[w].n = 0;
	return k->target ? 0 : ntp_join__nomem();
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

	rec->why = kept_why(k, ok);
	if (narrow(ts.target_driver) && narrow(ts.storage)) {
		rec->target_driver = (int32_t)ts.target_driver;
		rec->storage = (int32_t)ts.storage;
		return 0;
	}
	rec->why |= NTP_JKEPT_WIDE;
	return wide_add(&j->keep->twide[w], idx, ts.target_driver, ts.storage, 0);
}

static int cmp_wide(const void *pa, const void *pb)
{
	const struct ntp_jwide *a = pa, *b = pb;

	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* the readers' lists l[0..] as one in l[0], by idx; 0 or -ENOMEM */
static int wides_merge(struct ntp_jwides *l)
{
	for (int w = 1; w < NTP_JOIN_READERS; w++) {
		if (!l[w].n)
			continue;
		if (l[0].n + l[w].n > l[0].cap) {
			struct ntp_jwide *p = realloc(l[0].v, (l[0].n + l[w].n) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			l[0].v = p;
			l[0].cap = l[0].n + l[w].n;
		}
		memcpy(l[0].v + l[0].n, l[w].v, l[w].n * sizeof(*l[w].v));
		l[0].n += l[w].n;
		l[w].n = 0;
	}
	/* a reader's ranges of several files are not one run of indexes: sorted whole */
	if (l[0].n > 1)
		qsort(l[0].v, l[0].n, sizeof(*l[0].v), cmp_wide);
	return 0;
}

int ntp_join__keep_wides(struct ntp_join *j)
{
	return wides_merge(j->keep->hwide) || wides_merge(j->keep->twide) ? -ENOMEM : 0;
}

/*
 * The stage the others add up to (join_base.h): a host's e2e, a target's
 * residence.  Where the parts did not overflow the sum fits 64 bits, but
 * two of them may add up beyond before the third brings it back: added
 * modulo 2^64, which then is the sum.  (Where they did, all are 0.)
 */
static int64_t sum_of(int64_t a, int64_t b, int64_t c)
{
	return (int64_t)((uint64_t)a + (uint64_t)b + (uint64_t)c);
}

/* the stages of wide command idx, which wides_merge() put in order in all */
static const int64_t *wide_of(const struct ntp_jwides *all, uint32_t idx)
{
	size_t lo = 0, hi = all->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (all->v[mid].idx <= idx)
			lo = mid;
		else
			hi = mid;
	}
	return all->v[lo].v;
}

uint8_t ntp_join__kept_target(const struct ntp_join *j, uint32_t idx,
			      struct ntp_target_stages *ts)
{
	const struct ntp_jtstages *rec = &j->keep->target[idx];

	if (rec->why & NTP_JKEPT_WIDE) {
		const int64_t *v = wide_of(&j->keep->twide[0], idx);

		ts->target_driver = v[0];
		ts->storage = v[1];
	} else {
		ts->target_driver = rec->target_driver;
		ts->storage = rec->storage;
	}
	ts->residence = sum_of(ts->target_driver, ts->storage, 0);
	return rec->why & ~NTP_JKEPT_WIDE;
}

uint8_t ntp_join__kept_host(const struct ntp_join *j, const struct ntp_jhstages *rec, uint32_t idx,
			    struct ntp_host_stages *hs)
{
	if (rec->why & NTP_JKEPT_WIDE) {
		const int64_t *v = wide_of(&j->keep->hwide[0], idx);

		hs->block = v[0];
		hs->driver = v[1];
		hs->network_star = v[2];
	} else {
		hs->block = rec->block;
		hs->driver = rec->driver;
		hs->network_star = rec->network_star;
	}
	hs->e2e = sum_of(hs->block, hs->driver, hs->network_star);
	return rec->why & ~NTP_JKEPT_WIDE;
}
