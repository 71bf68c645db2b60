// SPDX-License-Identifier: GPL-2.0
/*
 * The five stages of every matched command, without temp.joined
 * (lib/join/join.h): each target file's target_stages (read while the join
 * ran: join_ahead.c) and each host file's host_stages read once, in storage
 * order, and put together by the matches' load indexes.  Reading a row by id costs several times reading
 * it in a scan; the summary report needs nothing but the stages, so it
 * reads them this way.  The stages are the schema views' own (host_stages,
 * target_stages, ntprof's definitions whatever the file holds:
 * lib/ntp/db_guard.h); the one thing done here is what temp.joined does too:
 * network = network* - residence (lib/join_rows.c).  A host file whose
 * host_io has the application's columns is read from host_app_stages, which
 * has host_stages' columns and the application's stages (schema/ntp.sql).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/checked.h"
#include "lib/core/jobs.h"
#include "lib/join/join_priv.h"
#include "lib/ntp/db_guard.h"

#define NONE UINT32_MAX

struct ntp_jtstages;
static void host_stages(struct ntp_join_stages *s, sqlite3_stmt *st, int e2e_col,
			const struct ntp_jtstages *tv);

/* the host columns read, in this order; the application's after them, when the file has them */
#define HOST_COLS "io_type, bytes, namespace, e2e_ns, block_ns, driver_ns, network_star_ns," \
	" path, qid, h_start_ns"
/* the first of the application's columns, after HOST_COLS (and id, first in a range) */
#define APP_COL 10

/* SELECT [id,] HOST_COLS [, the application's] FROM the host view of schema ... */
static void host_sql(char *sql, size_t len, const char *schema, bool app, bool range)
{
	char view[64];

	snprintf(sql, len, "SELECT %s" HOST_COLS "%s FROM temp.\"%s\"%s ORDER BY id",
		 range ? "id, " : "", app ? ", " NTP_DB_APP_COLS : "",
		 ntp_db__view_name(view, sizeof(view), schema,
				   app ? NTP_DB_HOST_APP_STAGES : NTP_DB_HOST_STAGES),
		 range ? " WHERE id BETWEEN ?1 AND ?2" : "");
}

/* columns first.. of st's row (HOST_COLS, then the application's when app) into s */
static void host_row(struct ntp_join_stages *s, sqlite3_stmt *st, int first, int fi,
		     const struct ntp_jtstages *tv, bool app)
{
	s->host_file = fi;
	s->io_type = (const char *)sqlite3_column_text(st, first);
	s->bytes = sqlite3_column_int64(st, first + 1);
	s->ns = (const char *)sqlite3_column_text(st, first + 2);
	host_stages(s, st, first + 3, tv);
	s->path = (const char *)sqlite3_column_text(st, first + 7);
	s->qid = sqlite3_column_int64(st, first + 8);
	s->h_start_ns = sqlite3_column_int64(st, first + 9);
	if (app)
		ntp_db__app_row(st, first + APP_COL, &s->app);
	else
		s->app = (struct ntp_app_row){ NTP_APP_ROW_NONE };
}

/* the host's columns from e2e on, and the target's: network = network* - residence */
static void host_stages(struct ntp_join_stages *s, sqlite3_stmt *st, int e2e_col,
			const struct ntp_jtstages *tv)
{
	s->not_number = tv->not_number || !ntp_join__integers(st, e2e_col, 4);
	s->overflow = false;
	s->e2e = sqlite3_column_int64(st, e2e_col);
	s->stage[0] = sqlite3_column_int64(st, e2e_col + 1);
	s->stage[1] = sqlite3_column_int64(st, e2e_col + 2);
	/* as temp.joined's network_ns */
	s->stage[2] = ntp_checked__sub(sqlite3_column_int64(st, e2e_col + 3), tv->residence,
				       &s->overflow);
	s->stage[3] = tv->target_driver;
	s->stage[4] = tv->storage;
}

/* slot[load index] = the match of that row, for the rows of one side */
static uint32_t *slots(const struct ntp_join *j, size_t n, int host)
{
	uint32_t *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	ntp_join__huge_pages(s, (n ? n : 1) * sizeof(*s));	/* the target's: written out of order */
	memset(s, 0xff, (n ? n : 1) * sizeof(*s));
	for (size_t i = 0; i < j->nmatches; i++)
		s[host ? j->matches[i].hidx : j->matches[i].tidx] = (uint32_t)i;
	return s;
}

/* every host row in storage order, counting load indexes: ids that are not dense */
static int read_hosts(struct ntp_join *j, const uint32_t *slot, const struct ntp_jtstages *tv,
		      const bool *app, ntp_join_stages_fn fn, void *ctx)
{
	size_t idx = 0;

	for (int fi = 0; fi < j->nfiles; fi++) {
		char sql[384];
		sqlite3_stmt *st;
		int rc, err = 0;

		if (!(j->files[fi].sides & NTP_JOIN_HOST))
			continue;
		host_sql(sql, sizeof(sql), j->files[fi].schema, app[fi], false);
		if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
			return ntp_db__fail(j->db, j->files[fi].path, "reading the host stages");
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			uint32_t m = idx < j->host_rows ? slot[idx] : NONE;
			struct ntp_join_stages s;

			idx++;
			if (m == NONE)
				continue;
			host_row(&s, st, 0, fi, &tv[m], app[fi]);
			err = fn(ctx, &s);
		}
		sqlite3_finalize(st);
		if (err)
			return err;
		if (rc != SQLITE_DONE)
			return ntp_db__fail(j->db, j->files[fi].path, "reading the host stages");
	}
	return 0;
}

/*
 * One range of every host file, on a connection of its own, once the
 * target's stages are in tv.  Part k of n reads the k-th n-th of each
 * file's dense ids.
 */
struct part {
	struct ntp_join *j;
	const uint32_t *slot;
	struct ntp_jtstages *tv;
	const bool *app;	/* per file: it has the application's columns */
	ntp_join_stages_fn fn;
	void *ctx;
	int k, n;		/* part k of n */
	int err;
};

static int read_host_range(struct part *pt, sqlite3 *db, const char *schema, int fi, int64_t lo,
			   int64_t hi)
{
	struct ntp_join *j = pt->j;
	char sql[384];
	sqlite3_stmt *st;
	int rc, err = 0;

	host_sql(sql, sizeof(sql), schema, pt->app[fi], true);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(db, j->files[fi].path, "reading the host stages");
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* dense ids: the load index is the id's place in the file */
		size_t idx = j->host_lo[fi] + (size_t)(sqlite3_column_int64(st, 0) - j->host_id0[fi]);
		uint32_t m = idx < j->host_lo[fi + 1] ? pt->slot[idx] : NONE;
		struct ntp_join_stages s;

		if (m == NONE)
			continue;
		host_row(&s, st, 1, fi, &pt->tv[m], pt->app[fi]);
		err = pt->fn(pt->ctx, &s);
	}
	sqlite3_finalize(st);
	if (err)
		return err;
	if (rc != SQLITE_DONE)
		return ntp_db__fail(db, j->files[fi].path, "reading the host stages");
	return 0;
}

/* part k of every host file; part 0 on the join's connection, the others on their own */
static void *read_part(void *arg)
{
	struct part *pt = arg;
	struct ntp_join *j = pt->j;

	for (int fi = 0; fi < j->nfiles && !pt->err; fi++) {
		int64_t n = (int64_t)(j->host_lo[fi + 1] - j->host_lo[fi]);
		int64_t lo = j->host_id0[fi] + n * pt->k / pt->n;
		int64_t hi = j->host_id0[fi] + n * (pt->k + 1) / pt->n - 1;
		const char *schema = j->files[fi].schema;
		sqlite3 *db = j->db;

		if (!(j->files[fi].sides & NTP_JOIN_HOST) || !n)
			continue;
		/* guarded, with ntprof's stage views (lib/ntp/db_guard.h) */
		if (pt->k) {
			pt->err = ntp_db__open_again(&db, j->files[fi].path);
			schema = "main";
		}
		if (!pt->err)
			pt->err = read_host_range(pt, db, schema, fi, lo, hi);
		if (pt->k)
			sqlite3_close(db);
	}
	return NULL;
}

/* pt[0..n) at once, part 0 on this thread; the first error */
static int run_parts(struct part *pt, int n)
{
	int err = 0;

	ntp_jobs__run(read_part, pt, sizeof(*pt), n);
	for (int k = 0; k < n && !err; k++)
		err = pt[k].err;
	return err;
}

/* the host side in nparts parts, part k with ctx[k] */
static int read_host_parts(struct ntp_join *j, int nparts, const uint32_t *slot,
			   struct ntp_jtstages *tv, const bool *app, ntp_join_stages_fn fn, void **ctx)
{
	struct part pt[NTP_JOIN_SCAN_PARTS];

	for (int k = 0; k < nparts; k++)
		pt[k] = (struct part){ j, slot, tv, app, fn, ctx[k], k, nparts, 0 };
	return run_parts(pt, nparts);
}

int ntp_join__scan_stages(struct ntp_join *j, int nparts, ntp_join_stages_fn fn, void **ctx)
{
	uint32_t *tslot = slots(j, j->target_rows, 0), *hslot = slots(j, j->host_rows, 1);
	struct ntp_jtstages *tv = malloc((j->nmatches ? j->nmatches : 1) * sizeof(*tv));
	bool app[NTP_JOIN_MAX_FILES] = { false };
	int err = 0;

	if (nparts < 1 || nparts > NTP_JOIN_SCAN_PARTS)
		nparts = 1;
	if (!tslot || !hslot || !tv) {
		free(tslot);
		free(hslot);
		free(tv);
		return ntp_join__nomem();
	}
	/* written in the target's order, read in the host's */
	ntp_join__huge_pages(tv, (j->nmatches ? j->nmatches : 1) * sizeof(*tv));
	/*
	 * The slots say all the scan needs of the matches, and nothing reads
	 * them after it (lib/join/join.h): at ten million commands they are
	 * 250 MB of the scan's peak.
	 */
	ntp_join__free_matches(j);
	for (int fi = 0; fi < j->nfiles && !err; fi++) {
		int has = j->files[fi].sides & NTP_JOIN_HOST ?
			  ntp_db__has_app(j->db, j->files[fi].schema) : 0;

		if (has < 0)
			err = ntp_db__fail(j->db, j->files[fi].path, "reading the schema");
		app[fi] = has > 0;
	}
	if (!err)
		err = ntp_join__ahead_targets(j, tslot, tv);
	free(tslot);
	/* ids that are not dense (rows deleted by hand): one scan, counting load indexes */
	if (!err)
		err = j->host_dense ? read_host_parts(j, nparts, hslot, tv, app, fn, ctx) :
				      read_hosts(j, hslot, tv, app, fn, ctx[0]);
	free(hslot);
	free(tv);
	return err;
}
