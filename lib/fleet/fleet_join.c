// SPDX-License-Identifier: GPL-2.0
/*
 * The join in the engine (lib/fleet/fleet_join.h): which runs, the clock
 * from a sample read back, and the pairing in one statement.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/stage_table.h"
#include "lib/core/tmpdir.h"
#include "lib/fleet/fleet_join.h"
#include "lib/join/join.h"
#include "lib/model/model_files.h"
#include "lib/ntp/db_role.h"
#include "lib/ntp/db_schema.h"

/* the line of one (host run, target run) */
struct line {
	enum ntp_join_clock clock;
	int estimated;
	int64_t t0, base;
	double a, drift, tol;
	int64_t candidates, support;
};

/* ---- the clock from a sample ------------------------------------------------------- */

static int nomem(void)
{
	ntp_error("%s", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

static int exec(sqlite3 *db, const char *sql, const char *path)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		ntp_error("%s: %s", path, sqlite3_errmsg(db));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* the keys sampled: every occurrence of about one key in 1 / frac */
static void sample_cond(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t, char *buf,
			size_t len)
{
	int64_t most = h->host_rows > t->target_rows ? h->host_rows : t->target_rows;
	int64_t k = most <= NTP_FLEET_SAMPLE_ROWS ? 1000000 :
		    (int64_t)ceil(1e6 * NTP_FLEET_SAMPLE_ROWS / (double)most);

	snprintf(buf, len, "cityHash64(join_key) %% 1000000 < %" PRId64, k);
}

/* a new recording at path: the schema and the meta a join checks */
static int new_sample(const struct ntp_fleet_run *r, const char *path, const char *role,
		      const char *boot_id, sqlite3 **db)
{
	sqlite3_stmt *st = NULL;
	char sql[320];

	if (sqlite3_open(path, db) != SQLITE_OK) {
		ntp_error("%s: %s", path, *db ? sqlite3_errmsg(*db) : strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (exec(*db, ntp_schema_sql, path))
		return NTP_EXIT_FAILURE;
	snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES ('role', '%s'), ('transport', ?1), "
		 "('sample_one_in', %" PRId64 "), ('hash_version', %" PRId64 "), ('boot_id', ?2)",
		 role, r->sample_one_in, r->hash_version);
	if (sqlite3_prepare_v2(*db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, r->transport, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, boot_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	ntp_error("%s: %s", path, sqlite3_errmsg(*db));
	sqlite3_finalize(st);
	return NTP_EXIT_FAILURE;
}

/*
 * A side's sample into the recording db (at path): each command's key and
 * the points the join bounds it by.
 */
static int add_sample(struct ntp_fleet *f, const struct ntp_fleet_run *r, bool target,
		      const char *cond, sqlite3 *db, const char *path, int64_t *rows)
{
	struct ntp_ch_reply rep;
	sqlite3_stmt *st = NULL;
	char *line, *fld[16];
	const char *sql;
	int n, err;

	*rows = 0;
	err = ntp_ch__queryf(f->ch, &rep, 0,
			     "SELECT id, join_key, cntlid, qid, cid, nsid, slba, nlb, opcode, bytes, %s "
			     "FROM %s WHERE run_id = %" PRIu64 " AND push_id = %" PRIu64 " AND side = %d "
			     "AND %s ORDER BY id FORMAT TabSeparated",
			     target ? "t_recv_ns, submit_ns, cmpl_ns, t_sent_ns, ''" :
				      "h_start_ns, h_queue_ns, sent_ns, recv_ns, h_done_ns",
			     ntp_fleet__table(f, NTP_FLEET_CMDS, false), r->run_id, r->push_id,
			     target ? 2 : 1, cond);
	if (err)
		return err;
	if (target)
		sql = "INSERT INTO target_io (id, join_key, cntlid, qid, cid, nsid, slba, nlb, opcode, "
		      "bytes, t_recv_ns, t_submit_ns, t_cmpl_ns, t_sent_ns, device) "
		      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,'')";
	else
		sql = "INSERT INTO host_io (id, join_key, cntlid, qid, cid, nsid, slba, nlb, opcode, "
		      "bytes, h_start_ns, h_queue_ns, h_cmd_sent_ns, h_recv_ns, h_done_ns, controller, "
		      "namespace, path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'','','')";
	if (exec(db, "BEGIN", path) || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	for (line = rep.body; (n = ntp_ch__tsv_next(&line, fld, 16)) >= 0;) {
		if (n < 15)
			continue;
		sqlite3_reset(st);
		for (int i = 0; i < (target ? 14 : 15); i++)
			sqlite3_bind_int64(st, i + 1, strtoll(fld[i], NULL, 10));
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		(*rows)++;
	}
	sqlite3_finalize(st);
	ntp_ch_reply__free(&rep);
	return exec(db, "COMMIT", path);
fail:
	ntp_error("%s: %s", path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	ntp_ch_reply__free(&rep);
	return NTP_EXIT_FAILURE;
}

/*
 * The line of (h, t): ntprof's join of a sample of both runs, written as
 * recordings of their own (one "-r both" recording for one run; two of one
 * boot id on one clock), so that the estimate, and on one clock the line 0
 * with its support, are the join's own.
 */
static int estimate(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		    const struct ntp_fleet_run *t, struct line *l)
{
	char dir[4096], hp[4200], tp[4200], cond[96];
	const char *paths[2] = { hp, tp };
	bool one = h == t;
	const char *hboot = l->clock == NTP_JOIN_CLOCK_TWO ? "host" : "one";
	const char *tboot = l->clock == NTP_JOIN_CLOCK_TWO ? "target" : "one";
	struct ntp_source *s = NULL;
	struct ntp_join *j = NULL;
	sqlite3 *hdb = NULL, *tdb = NULL;
	int64_t hn = 0, tn = 0;
	int err;

	snprintf(dir, sizeof(dir), "%s/ntprof-fleet-XXXXXX", ntp_tmpdir());
	if (!mkdtemp(dir)) {
		ntp_error("%s: %s", dir, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	snprintf(hp, sizeof(hp), "%s/host.ntp", dir);
	snprintf(tp, sizeof(tp), "%s/target.ntp", dir);
	sample_cond(h, t, cond, sizeof(cond));
	err = new_sample(h, hp, one ? "both" : "host", hboot, &hdb);
	err = err ?: add_sample(f, h, false, cond, hdb, hp, &hn);
	if (!err && !one)
		err = new_sample(t, tp, "target", tboot, &tdb);
	err = err ?: add_sample(f, t, true, cond, one ? hdb : tdb, one ? hp : tp, &tn);
	sqlite3_close(hdb);
	sqlite3_close(tdb);
	ntp_debug("clock of runs %016" PRIx64 " and %016" PRIx64 ": a sample of %" PRId64
		  " host and %" PRId64 " target commands (%s)", h->run_id, t->run_id, hn, tn, cond);
	if (!err && hn && tn) {
		struct ntp_join_opts jo = { .fresh = 1 };

		err = ntp_source__open_files(&s, paths, one ? 1 : 2, true);
		err = err ?: ntp_source__open_join(s, &jo, &j);
		err = err ?: ntp_join__run(j);
		if (s)
			err = ntp_source__verdict(&s, 1, err);
		if (!err && ntp_join__npairs(j) == 1) {
			const struct ntp_join_pair *p = ntp_join__pair(j, 0);

			l->estimated = p->estimated;
			l->t0 = p->t0_ns;
			l->base = (int64_t)floor(p->offset_ns);
			l->a = p->offset_ns - (double)l->base;
			l->drift = p->drift;
			l->tol = p->tol_ns;
			l->candidates = p->candidates;
			l->support = p->support;
		}
		ntp_join__close(j);
		ntp_source__close(s);
	}
	unlink(hp);
	unlink(tp);
	rmdir(dir);
	return err;
}

/* ---- the pairing in the engine ----------------------------------------------------- */

/* the stages each side's rows of cmds hold, in the table's order */
static bool side_stage(int s, const char *view)
{
	return ntp_stages[s].view && !strcmp(ntp_stages[s].view, view);
}

/*
 * The WITH clause of (h, t)'s candidates under line l: e (the line at a
 * host command's h_queue, less base), low and high (its h_queue and h_done
 * on the target's clock, widened by the tolerance), its buckets hb0..hb1,
 * and of a candidate (tr, ts: the target's t_recv, t_sent) whether it is
 * held in the bound (ok) and its distance to the line.
 */
static int with_line(FILE *m, const struct line *l)
{
	const char *late = l->clock == NTP_JOIN_CLOCK_TWO ? "ts" : "tr";

	fprintf(m, "WITH %.17g + %.17g * toFloat64(h_queue_ns - %" PRId64 ") AS e, "
		"toFloat64(h_queue_ns + %" PRId64 ") + e - %.17g AS low, "
		"toFloat64(h_done_ns + %" PRId64 ") + e + %.17g AS high, "
		"toInt64(floor((low - 1000) / %d)) AS hb0, "
		"toInt64(floor((high + 1000) / %d)) AS hb1, "
		"(toFloat64(tr - h_queue_ns - %" PRId64 ") + %.17g >= e AND "
		"toFloat64(%s - h_done_ns - %" PRId64 ") - %.17g <= e) AS ok, "
		"abs(toFloat64((tr - h_queue_ns - %" PRId64 ") + (%s - h_done_ns - %" PRId64 ")) / 2 - e) "
		"AS dist ",
		l->a, l->drift, l->t0, l->base, l->tol, l->base, l->tol, NTP_FLEET_BUCKET_NS,
		NTP_FLEET_BUCKET_NS, l->base, l->tol, late, l->base, l->tol, l->base, late, l->base);
	return 0;
}

/*
 * A part of the pairing: the commands whose join key falls in range k of
 * n equal ranges of its 64 bits (a hash: about as many commands in each).
 * A candidate has its command's key, so each part holds every candidate of
 * its host commands and every host command a candidate of its target
 * records could pair with: the parts' pairs together are the whole's.  A
 * range, not a hash modulo, so that cmds' order (subsystem, cntlid,
 * join_key, ...) lets each part read its own granules only.
 */
struct part {
	int k, n;
};

/* the signed join key where range k of n starts */
static int64_t part_start(int k, int n)
{
	uint64_t u = (uint64_t)k * (UINT64_MAX / (uint64_t)n + 1);

	return (int64_t)(u ^ (1ull << 63));
}

/* the condition on cmds' rows of part p into buf, "" for the whole */
static void part_cond(const struct part *p, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (p->k > 0)
		n = snprintf(buf, len, "AND join_key >= %" PRId64 " ", part_start(p->k, p->n));
	if (p->k < p->n - 1)
		snprintf(buf + n, len - (size_t)n, "AND join_key < %" PRId64 " ",
			 part_start(p->k + 1, p->n));
}

/*
 * FROM cmds (every shard's, on a cluster) each host command of h in part p
 * once a bucket of its interval, joined by subsystem, cntlid, join key and
 * bucket with this shard's target records of t in p, each once a bucket of
 * its t_recv..t_sent, where the two first share a bucket and overlap.
 */
static void from_candidates(FILE *m, struct ntp_fleet *f, const struct ntp_fleet_run *h,
			    const struct ntp_fleet_run *t, const struct part *p)
{
	char cond[96];

	part_cond(p, cond, sizeof(cond));
	fprintf(m, "FROM %s ARRAY JOIN arrayMap(i -> hb0 + i, "
		"range(toUInt64(greatest(hb1, hb0) - hb0 + 1))) AS bkt "
		"ALL INNER JOIN (SELECT subsysnqn, cntlid, join_key, bkt, id AS tid, ns AS tdev, "
		"bad AS tbad, t_recv_ns AS tr, t_sent_ns AS ts",
		ntp_fleet__table(f, NTP_FLEET_CMDS, false));
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (side_stage(s, "target_stages"))
			fprintf(m, ", %s_ns AS r_%s", ntp_stages[s].key, ntp_stages[s].key);
	fprintf(m, ", intDiv(t_recv_ns, %d) AS tb0 FROM %s ARRAY JOIN arrayMap(i -> tb0 + i, "
		"range(toUInt64(greatest(intDiv(t_sent_ns, %d), tb0) - tb0 + 1))) AS bkt "
		"WHERE run_id = %" PRIu64 " AND push_id = %" PRIu64 " AND side = 2 %s) "
		"USING (subsysnqn, cntlid, join_key, bkt) "
		"WHERE run_id = %" PRIu64 " AND push_id = %" PRIu64 " AND side = 1 %s"
		"AND bkt = greatest(hb0, tb0) AND toFloat64(ts) >= low AND toFloat64(tr) <= high ",
		NTP_FLEET_BUCKET_NS, ntp_fleet__table(f, NTP_FLEET_CMDS, true), NTP_FLEET_BUCKET_NS,
		t->run_id, t->push_id, cond, h->run_id, h->push_id, cond);
}

/* a tuple of the stages of view, each as "prefix" key; its size */
static int stage_tuple(FILE *m, const char *view, const char *prefix, const char *suffix)
{
	int n = 0;

	fputc('(', m);
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (side_stage(s, view))
			fprintf(m, "%s%s%s%s", n++ ? ", " : "", prefix, ntp_stages[s].key, suffix);
	fputc(')', m);
	return n;
}

/* the text m wrote into *sql (open_memstream sets it at the close), NULL on failure */
static char *close_sql(FILE *m, char **sql)
{
	if (fclose(m)) {
		free(*sql);
		return NULL;
	}
	return *sql;
}

/*
 * The pairs of (h, t) into pairs, in three steps: each host command's
 * nearest candidate in the bound (on the shards), of those each target
 * record's nearest (on the node that asked), and the joined stages.
 */
static char *pair_sql(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		      const struct ntp_fleet_run *t, const struct line *l, const struct part *p)
{
	/* hh's elements 1 to 12, step 1's columns of the host command */
	static const char *const host_cols[] = { "h_id", "h_day", "h_sub", "h_cntlid", "h_qid",
						 "h_io", "h_bytes", "h_ns", "h_path", "h_utc",
						 "h_start", "h_bad" };
	char *sql = NULL, expr[512];
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int nh = 0, nt = 0, k;

	if (!m)
		return NULL;
	fprintf(m, "INSERT INTO %s (day, host_run, target_run, host_id, target_id, subsysnqn, "
		"cntlid, qid, io_type, bytes, ns, path, device, utc_ns, h_start_ns, offset_ns, bad",
		ntp_fleet__table(f, NTP_FLEET_PAIRS, false));
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (ntp_fleet__stage_sql(s, expr, sizeof(expr)) && s != NTP_STAGE_NETWORK_STAR &&
		    s != NTP_STAGE_RESIDENCE)
			fprintf(m, ", %s_ns", ntp_stages[s].key);
	fprintf(m, ") SELECT hh.2, %" PRIu64 ", %" PRIu64 ", hh.1, tid, hh.3, hh.4, hh.5, hh.6, "
		"hh.7, hh.8, hh.9, t2.2, hh.10, hh.11, t2.5, greatest(hh.12, t2.3)",
		h->run_id, t->run_id);
	/* a side's stage as the middle step names it; a joined one by its formula over those */
	for (int s = 0; s < NTP_NSTAGES; s++) {
		if (!ntp_fleet__stage_sql(s, expr, sizeof(expr)) || s == NTP_STAGE_NETWORK_STAR ||
		    s == NTP_STAGE_RESIDENCE)
			continue;
		if (side_stage(s, "joined_stages"))
			fprintf(m, ", %s", expr);
		else
			fprintf(m, ", %s_ns", ntp_stages[s].key);
	}
	/*
	 * step 2: each target record's nearest host command, each side's stages
	 * by name.  An argMin a value, not one of a tuple: ClickHouse keeps a
	 * tuple's as a generic field, copied at each better row, several times
	 * slower (bench/README.md); ties keep the first row in every one alike.
	 */
	fputs(" FROM (SELECT tt.1 AS tid, (", m);
	for (size_t i = 0; i < sizeof(host_cols) / sizeof(host_cols[0]); i++)
		fprintf(m, "argMin(%s, d), ", host_cols[i]);
	k = 0;
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (side_stage(s, "host_stages"))
			fprintf(m, "%sargMin(tupleElement(hs, %d), d)", k ? ", " : "(", k + 1), k++;
	fputs(")) AS hh, any(tt) AS t2", m);
	k = 0;
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (side_stage(s, "host_stages"))
			fprintf(m, ", tupleElement(tupleElement(hh, 13), %d) AS %s_ns", ++k,
				ntp_stages[s].key);
	k = 0;
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (side_stage(s, "target_stages"))
			fprintf(m, ", tupleElement(tupleElement(t2, 6), %d) AS %s_ns", ++k,
				ntp_stages[s].key);
	fputs(" FROM (", m);
	/* step 1: each host command's nearest target record in the bound */
	with_line(m, l);
	fprintf(m, "SELECT id AS h_id, any(day) AS h_day, any(subsysnqn) AS h_sub, "
		"any(cntlid) AS h_cntlid, any(qid) AS h_qid, any(io_type) AS h_io, "
		"any(bytes) AS h_bytes, any(ns) AS h_ns, any(path) AS h_path, any(utc_ns) AS h_utc, "
		"any(h_start_ns) AS h_start, any(bad) AS h_bad, any(");
	nh = stage_tuple(m, "host_stages", "", "_ns");
	fprintf(m, ") AS hs, (argMin(tid, dist), argMin(tdev, dist), argMin(tbad, dist), 0, "
		"argMin(toInt64(%" PRId64 " + round(e)), dist), ", l->base);
	nt = 0;
	for (int s = 0; s < NTP_NSTAGES; s++)
		if (side_stage(s, "target_stages"))
			fprintf(m, "%sargMin(r_%s, dist)", nt++ ? ", " : "(", ntp_stages[s].key);
	fprintf(m, ")) AS tt, min(dist) AS d ");
	from_candidates(m, f, h, t, p);
	fprintf(m, "AND ok = 1 GROUP BY id) GROUP BY tt.1)");
	if (nh < 1 || nt < 1) {
		fclose(m);
		free(sql);
		return NULL;
	}
	return close_sql(m, &sql);
}

/* host commands of h in part p with a same-key target record of t overlapping them under l */
static int overlapped(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		      const struct ntp_fleet_run *t, const struct line *l, const struct part *p,
		      int64_t *n)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	struct ntp_ch_reply r;
	int err;

	if (!m)
		return nomem();
	with_line(m, l);
	fputs("SELECT uniqExact(id) ", m);
	from_candidates(m, f, h, t, p);
	if (!close_sql(m, &sql))
		return nomem();
	err = ntp_ch__query(f->ch, sql, NULL, 0, &r, 0);
	free(sql);
	*n = err ? 0 : strtoll(r.body, NULL, 10);
	ntp_ch_reply__free(&r);
	return err;
}

static int count_pairs(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		       const struct ntp_fleet_run *t, int64_t *n)
{
	struct ntp_ch_reply r;
	int err;

	err = ntp_ch__queryf(f->ch, &r, 0, "SELECT count() FROM %s WHERE host_run = %" PRIu64
			     " AND target_run = %" PRIu64,
			     ntp_fleet__table(f, NTP_FLEET_PAIRS, false), h->run_id, t->run_id);
	*n = err ? 0 : strtoll(r.body, NULL, 10);
	ntp_ch_reply__free(&r);
	return err;
}

static const char *clock_word(enum ntp_join_clock c)
{
	return c == NTP_JOIN_CLOCK_ONE_FILE ? "one recording" :
	       c == NTP_JOIN_CLOCK_ONE_BOOT ? "one boot" : "two clocks";
}

/* is (h, t) joined already (its clocks row, which commits its pairs)? */
static int joined(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		  const struct ntp_fleet_run *t, bool *yes)
{
	struct ntp_ch_reply r;
	int err;

	err = ntp_ch__queryf(f->ch, &r, 0, "SELECT count() FROM %s WHERE host_run = %" PRIu64
			     " AND target_run = %" PRIu64,
			     ntp_fleet__table(f, NTP_FLEET_CLOCKS, false), h->run_id, t->run_id);
	*yes = !err && strtoll(r.body, NULL, 10) > 0;
	ntp_ch_reply__free(&r);
	return err;
}

/*
 * Pairs of (h, t) left by a join that stopped before its clocks row: a
 * reader ignores them (no clocks row), and they go before the join runs
 * again.  On a cluster each shard's are removed from the Distributed
 * table's local tables by the mutation on this node only; the others
 * stay ignored.
 */
static int drop_stale(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		      const struct ntp_fleet_run *t)
{
	int64_t n;
	int err = count_pairs(f, h, t, &n);

	if (err || !n)
		return err;
	ntp_debug("runs %016" PRIx64 " and %016" PRIx64 ": %" PRId64 " pairs of a join that "
		 "stopped part way: removed", h->run_id, t->run_id, n);
	return ntp_ch__queryf(f->ch, NULL, 0, "ALTER TABLE %s DELETE WHERE host_run = %" PRIu64
			      " AND target_run = %" PRIu64,
			      ntp_fleet__table(f, NTP_FLEET_PAIRS, true), h->run_id, t->run_id);
}

static int join_two(struct ntp_fleet *f, const struct ntp_fleet_run *h,
		    const struct ntp_fleet_run *t, enum ntp_join_clock clock, int64_t part_rows)
{
	struct line l = { .clock = clock, .estimated = 1, .tol = 1000 };
	int64_t matched = 0, over = 0;
	bool done;
	char *sql;
	int err;

	err = joined(f, h, t, &done);
	if (err || done)
		return err;
	err = drop_stale(f, h, t);
	if (!err) {
		l.estimated = 0;
		err = estimate(f, h, t, &l);
	}
	/* in parts of about part_rows commands a side, each statement's memory a part's */
	if (!err && l.estimated) {
		int64_t most = h->host_rows > t->target_rows ? h->host_rows : t->target_rows;
		struct part p = { .n = (int)((most + part_rows - 1) / part_rows) };

		if (p.n < 1)
			p.n = 1;
		ntp_debug("runs %016" PRIx64 " and %016" PRIx64 ": joined in %d part%s of the keys",
			  h->run_id, t->run_id, p.n, p.n == 1 ? "" : "s");
		for (p.k = 0; p.k < p.n && !err; p.k++) {
			int64_t o = 0;

			sql = pair_sql(f, h, t, &l, &p);
			if (!sql)
				return nomem();
			err = ntp_ch__query(f->ch, sql, NULL, 0, NULL, NTP_CH_SYNC);
			free(sql);
			err = err ?: overlapped(f, h, t, &l, &p, &o);
			over += o;
		}
		err = err ?: count_pairs(f, h, t, &matched);
	}
	if (err)
		return err;
	err = ntp_ch__queryf(f->ch, NULL, NTP_CH_SYNC,
		"INSERT INTO %s (host_run, target_run, clock, estimated, t0_ns, base_ns, a, drift, "
		"tol_ns, late_recv, candidates, support, matched, unmatched_host, unmatched_target, "
		"rejected, computed) VALUES (%" PRIu64 ", %" PRIu64 ", '%s', %d, %" PRId64 ", %" PRId64
		", %.17g, %.17g, %.17g, %d, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
		", %" PRId64 ", now())",
		ntp_fleet__table(f, NTP_FLEET_CLOCKS, false), h->run_id, t->run_id, clock_word(clock),
		l.estimated, l.t0, l.base, l.a, l.drift, l.tol, clock != NTP_JOIN_CLOCK_TWO,
		l.candidates, l.support, matched, h->host_rows - matched - (over - matched),
		t->target_rows - matched,
		over - matched);
	if (!err)
		ntp_debug("runs %016" PRIx64 " and %016" PRIx64 " joined in the engine (%s): %" PRId64
			 " pairs", h->run_id, t->run_id, clock_word(clock), matched);
	return err;
}

/*
 * h and t, which the push would join, differ on k: the first such pair of
 * the push told in one line (later ones at -v), its exit code kept in
 * *refused; the push's other joins go on
 */
static void refuse(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t,
		   enum ntp_meta_key k, int *refused)
{
	if (*refused) {
		ntp_debug("runs %016" PRIx64 " and %016" PRIx64 " are not joined either: their %s "
			  "differs", h->run_id, t->run_id, ntp_meta[k].agree);
		return;
	}
	*refused = ntp_fleet_run__refuse(h, t, k, "both runs are pushed, each side reported "
					 "alone");
}

/* the subsystem NQNs of r's nvmf_ids as a list of literals into *list; NULL: none */
static int nqns_of(struct ntp_fleet *f, const struct ntp_fleet_run *r, char **list)
{
	struct ntp_ch_reply rep;
	char *line, *fld[2], *sql = NULL;
	size_t len = 0;
	FILE *m;
	int k = 0, err;

	*list = NULL;
	err = ntp_ch__queryf(f->ch, &rep, 0, "SELECT DISTINCT subsysnqn FROM %s WHERE run_id = %"
			     PRIu64 " AND push_id = %" PRIu64 " AND subsysnqn != '' ORDER BY "
			     "subsysnqn FORMAT TabSeparated", ntp_fleet__table(f, NTP_FLEET_IDS, false),
			     r->run_id, r->push_id);
	if (err)
		return err;
	m = open_memstream(&sql, &len);
	if (!m) {
		ntp_ch_reply__free(&rep);
		return nomem();
	}
	for (line = rep.body; ntp_ch__tsv_next(&line, fld, 2) >= 1;) {
		char *q = ntp_ch__quote(fld[0]);

		if (!q) {
			err = nomem();
			break;
		}
		fprintf(m, "%s%s", k++ ? ", " : "", q);
		free(q);
	}
	ntp_ch_reply__free(&rep);
	if (fclose(m) || !sql)
		return nomem();
	if (err || !k) {
		free(sql);
		return err;
	}
	*list = sql;
	return 0;
}

/*
 * r (pushed now, one side) with the committed runs of the other side whose
 * nvmf_ids name a subsystem r's do and whose wall-clock spans overlap r's:
 * recordings pushed apart, a host's today and its target's tomorrow, are
 * joined so.  A run without names or without a span in its meta is not.
 */
static int join_named(struct ntp_fleet *f, const struct ntp_fleet_run *r, int64_t part_rows,
		      int *refused)
{
	enum ntp_meta_key k;
	struct ntp_fleet_run *other = NULL;
	bool host = r->sides == NTP_SIDE_HOST;
	char *nqns = NULL, *where = NULL;
	int n = 0, err;

	if ((r->sides != NTP_SIDE_HOST && r->sides != NTP_SIDE_TARGET) || r->start_utc_ns <= 0 ||
	    r->duration_ns <= 0)
		return 0;
	err = nqns_of(f, r, &nqns);
	if (err || !nqns)
		return err;
	if (asprintf(&where, "role = '%s' AND start_utc_ns > 0 AND start_utc_ns <= %" PRId64
		     " AND start_utc_ns + duration_ns >= %" PRId64 " AND run_id GLOBAL IN (SELECT "
		     "run_id FROM %s WHERE subsysnqn IN (%s))", host ? "target" : "host",
		     r->start_utc_ns + r->duration_ns, r->start_utc_ns,
		     ntp_fleet__table(f, NTP_FLEET_IDS, false), nqns) < 0)
		where = NULL;
	free(nqns);
	if (!where)
		return nomem();
	err = ntp_fleet_run__read(f, where, &other, &n);
	free(where);
	for (int i = 0; i < n && !err; i++) {
		const struct ntp_fleet_run *h = host ? r : &other[i], *t = host ? &other[i] : r;

		/* another transport: commands the target run never saw, not a pair */
		if (!ntp_fleet_run__disagree(h, t, &k))
			err = join_two(f, h, t, *h->boot_id && !strcmp(h->boot_id, t->boot_id) ?
				       NTP_JOIN_CLOCK_ONE_BOOT : NTP_JOIN_CLOCK_TWO, part_rows);
		else if (k != NTP_META_TRANSPORT)
			refuse(h, t, k, refused);
	}
	for (int i = 0; i < n; i++)
		ntp_fleet_run__free(&other[i]);
	free(other);
	return err;
}

int ntp_fleet_join__pushed(struct ntp_fleet *f, const struct ntp_fleet_run *runs, int n,
			   int64_t part_rows)
{
	enum ntp_meta_key key;
	int err = 0, refused = 0;

	if (part_rows <= 0)
		part_rows = NTP_FLEET_PART_ROWS;
	/* a "-r both" run with itself, on one clock */
	for (int i = 0; i < n && !err; i++)
		if (runs[i].sides == (NTP_SIDE_HOST | NTP_SIDE_TARGET))
			err = join_two(f, &runs[i], &runs[i], NTP_JOIN_CLOCK_ONE_FILE, part_rows);
	/* the host and target runs given together, as report joins them */
	for (int i = 0; i < n && !err; i++) {
		for (int k = 0; k < n && !err; k++) {
			const struct ntp_fleet_run *h = &runs[i], *t = &runs[k];

			if (h->sides != NTP_SIDE_HOST || t->sides != NTP_SIDE_TARGET ||
			    !ntp_fleet_run__overlap(h, t))
				continue;
			if (ntp_fleet_run__disagree(h, t, &key)) {
				refuse(h, t, key, &refused);
				continue;
			}
			err = join_two(f, h, t, *h->boot_id && !strcmp(h->boot_id, t->boot_id) ?
				       NTP_JOIN_CLOCK_ONE_BOOT : NTP_JOIN_CLOCK_TWO, part_rows);
		}
	}
	/* and with the runs pushed before them that their names tie them to */
	for (int i = 0; i < n && !err; i++)
		err = join_named(f, &runs[i], part_rows, &refused);
	return err ?: refused;
}
