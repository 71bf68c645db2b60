// SPDX-License-Identifier: GPL-2.0
/*
 * Joining host and target recordings (lib/join/join.h says what and why).
 *
 * The recordings are ATTACHed read-only to a private in-memory connection;
 * everything the join makes lives in its TEMP schema, where people who open
 * the files with sqlite3 can run the same statements:
 *
 *   join_files   one row per file: fi, path, schema, role
 *   join_host    host_io + host_stages of every host-side file, tagged hf,
 *                with h_occ, the occurrence number of its key in time order
 *   join_target  target_io + target_stages of every target-side file, tf, t_occ
 *   join_pairs   one row per (hf, tf): the offset line and its support
 *   join_cand    same key, overlapping in time under the line; ok = inside
 *                the offset bound; usable = ok and of the bound controller
 *   join_bind    each host controller (hf, nvmeX) and the pair it talks to
 *   join_match   the pairs chosen (mutual nearest among usable candidates)
 *   joined       one row per matched command with the five stages
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ntp/db_read.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join.h"

#define KEY_COLS "cid, slba, nlb, qid, nsid, cntlid, opcode"
/* a key seen at most this many host x target times: every pair is a candidate */
#define EST_ALL_PAIRS 256
/* host occurrences of a hotter key that enter the estimate (each with all targets) */
#define EST_HOT_SAMPLES 8
/* rounds of mutual-nearest matching; one suffices unless candidates compete */
#define MATCH_ROUNDS 64
/* pass 1 admits misses of its tolerance plus this many median interval widths */
#define PASS1_SPREADS 3
/* the target's time that bounds an offset from below: t_recv on one clock (parameter P) */
#define LATE(P) "CASE WHEN " P " THEN t.t_recv_ns ELSE t.t_sent_ns END"

struct ntp_join {
	sqlite3 *db;
	struct ntp_join_opts opts;
	int nfiles;
	struct ntp_join_file files[NTP_JOIN_MAX_FILES];
	char schemas[NTP_JOIN_MAX_FILES][8];
	int npairs;
	struct ntp_join_pair *pairs;
	struct ntp_join_counts counts;
};

static int sql_fail(sqlite3 *db, const char *what)
{
	ntp_error("join: %s: %s", what, sqlite3_errmsg(db));
	return NTP_EXIT_FAILURE;
}

static int exec(sqlite3 *db, const char *sql, const char *what)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sql_fail(db, what);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *what)
{
	return sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK ? 0 : sql_fail(db, what);
}

/* run a statement that returns nothing; 0 or NTP_EXIT_FAILURE */
static int step_done(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, what);
}

static int64_t query_int(sqlite3 *db, const char *sql, int64_t def)
{
	sqlite3_stmt *st;
	int64_t v = def;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return def;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* schema names are interpolated into SQL: letters, digits, '_' only */
static int valid_schema(const char *s)
{
	if (!*s || strlen(s) > 64 || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* "file:" URI of a path: everything but unreserved characters and '/' escaped */
static char *file_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	char *u = malloc(3 * n + 16), *p;

	if (!u)
		return NULL;
	p = stpcpy(u, "file:");
	for (; *path; path++) {
		unsigned char c = *path;

		if (isalnum(c) || strchr("/-._~", c)) {
			*p++ = c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	strcpy(p, "?mode=ro");
	return u;
}

int ntp_join__attach(sqlite3 *db, const char *path, const char *schema)
{
	sqlite3_stmt *st;
	sqlite3 *chk;
	char *uri;
	int err, rc;

	if (!valid_schema(schema)) {
		ntp_error("join: invalid schema name '%s'", schema);
		return NTP_EXIT_FAILURE;
	}
	/* the reader's checks and messages: missing, not SQLite, not ntprof, too new */
	err = ntp_db__open_read(&chk, path);
	if (err)
		return err;
	sqlite3_close(chk);

	uri = file_uri(path);
	if (!uri) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = prepare(db, "ATTACH ?1 AS ?2", &st, "attach");
	if (!err) {
		sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			ntp_error("%s: cannot attach: %s", path, sqlite3_errmsg(db));
			err = NTP_EXIT_NOFILE;
		}
	}
	free(uri);
	if (err)
		return err;
	/* a connection without URI support would have opened "file:..." read-write */
	if (sqlite3_db_readonly(db, schema) != 1) {
		char sql[96];

		snprintf(sql, sizeof(sql), "DETACH \"%s\"", schema);
		sqlite3_exec(db, sql, NULL, NULL, NULL);
		ntp_error("%s: cannot attach read-only: the connection was not opened with SQLITE_OPEN_URI",
			  path);
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* meta value of an attached schema as text (caller frees), or NULL */
static char *meta_text(sqlite3 *db, const char *schema, const char *key)
{
	char sql[128], *v = NULL;
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), "SELECT value FROM \"%s\".meta WHERE key = ?1", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static int role_sides(const char *role)
{
	if (!role)
		return 0;
	if (!strcmp(role, "host"))
		return NTP_JOIN_HOST;
	if (!strcmp(role, "target"))
		return NTP_JOIN_TARGET;
	if (!strcmp(role, "both"))
		return NTP_JOIN_HOST | NTP_JOIN_TARGET;
	return 0;
}

static int strcmp_null(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* the meta values that must agree, with how to name them in a refusal */
static const struct {
	const char *key, *what, *hint;
} agree[] = {
	{ "sample_one_in", "sample rate one in", "record both sides with the same -s" },
	{ "hash_version", "sampling hash version", "record both sides with the same ntprof version" },
	{ "transport", "transport", "both sides must record the same transport (-t)" },
};

int ntp_join__check(sqlite3 *db, const char *const *schemas, const char *const *paths,
		    int n, int *sides)
{
	int i, k, all = 0, err = 0;

	for (i = 0; i < n && !err; i++) {
		char *role = meta_text(db, schemas[i], "role");
		int s = role_sides(role);

		if (!s) {
			if (role)
				ntp_error("cannot join %s: unknown role '%s' in its meta", paths[i], role);
			else
				ntp_error("cannot join %s: its meta has no role", paths[i]);
			err = NTP_EXIT_MISMATCH;
		}
		if (sides)
			sides[i] = s;
		all |= s;
		free(role);
	}
	for (k = 0; k < (int)(sizeof(agree) / sizeof(agree[0])) && !err; k++) {
		char *v0 = meta_text(db, schemas[0], agree[k].key);

		for (i = 1; i < n && !err; i++) {
			char *v = meta_text(db, schemas[i], agree[k].key);

			if (strcmp_null(v0, v)) {
				ntp_error("cannot join %s and %s: %s %s and %s (%s)", paths[0], paths[i],
					  agree[k].what, v0 ? v0 : "(none)", v ? v : "(none)",
					  agree[k].hint);
				err = NTP_EXIT_MISMATCH;
			}
			free(v);
		}
		free(v0);
	}
	if (!err && !(all & NTP_JOIN_HOST)) {
		if (n == 1)
			ntp_error("cannot join %s alone: it is a target recording; give the host recording too",
				  paths[0]);
		else
			ntp_error("cannot join %s and the others: all are target recordings; a host recording is needed",
				  paths[0]);
		err = NTP_EXIT_MISMATCH;
	}
	if (!err && !(all & NTP_JOIN_TARGET)) {
		if (n == 1)
			ntp_error("cannot join %s alone: it is a host recording; give the target recording (-r target) too",
				  paths[0]);
		else
			ntp_error("cannot join %s and the others: all are host recordings; a target recording (-r target) is needed",
				  paths[0]);
		err = NTP_EXIT_MISMATCH;
	}
	return err;
}

static const char create_sql[] =
	"CREATE TEMP TABLE join_files (fi INTEGER PRIMARY KEY, path TEXT, schema TEXT, role TEXT);"
	"CREATE TEMP TABLE join_host ("
	" hf INTEGER NOT NULL, host_id INTEGER NOT NULL, h_occ INTEGER NOT NULL,"
	" opcode INTEGER, cid INTEGER, slba INTEGER, nlb INTEGER, qid INTEGER, nsid INTEGER,"
	" cntlid INTEGER, io_type TEXT, bytes INTEGER, namespace TEXT, controller TEXT,"
	" status INTEGER, h_start_ns INTEGER, h_queue_ns INTEGER, h_cmd_sent_ns INTEGER,"
	" h_r2t_ns INTEGER, h_data_sent_ns INTEGER, h_recv_ns INTEGER, h_done_ns INTEGER,"
	" e2e_ns INTEGER, block_ns INTEGER, driver_ns INTEGER, network_star_ns INTEGER);"
	"CREATE TEMP TABLE join_target ("
	" tf INTEGER NOT NULL, target_id INTEGER NOT NULL, t_occ INTEGER NOT NULL,"
	" opcode INTEGER, cid INTEGER, slba INTEGER, nlb INTEGER, qid INTEGER, nsid INTEGER,"
	" cntlid INTEGER, device TEXT, status INTEGER, t_recv_ns INTEGER, t_r2t_ns INTEGER,"
	" t_submit_ns INTEGER, t_cmpl_ns INTEGER, t_sent_ns INTEGER, target_driver_ns INTEGER,"
	" storage_ns INTEGER, residence_ns INTEGER);"
	"CREATE TEMP TABLE join_pairs (pair INTEGER PRIMARY KEY, hf INTEGER, tf INTEGER,"
	" estimated INTEGER, t0_ns INTEGER, base_ns INTEGER, a_ns REAL, drift REAL, tol_ns REAL,"
	" candidates INTEGER, support INTEGER, matched INTEGER);"
	"CREATE TEMP TABLE join_cand (hrow INTEGER NOT NULL, trow INTEGER NOT NULL,"
	" pair INTEGER NOT NULL, ok INTEGER NOT NULL, dist REAL NOT NULL, o_rel REAL NOT NULL,"
	" usable INTEGER NOT NULL DEFAULT 0);"
	"CREATE TEMP TABLE join_match (hrow INTEGER PRIMARY KEY, trow INTEGER NOT NULL UNIQUE,"
	" pair INTEGER NOT NULL, o_rel REAL NOT NULL);";

static int load_file(struct ntp_join *j, int fi)
{
	const char *s = j->files[fi].schema;
	char sql[2048];
	int err;

	if (j->files[fi].sides & NTP_JOIN_HOST) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO temp.join_host SELECT %d, h.id,"
			 " ROW_NUMBER() OVER (PARTITION BY h.cid, h.slba, h.nlb, h.qid, h.nsid,"
			 "  h.cntlid, h.opcode ORDER BY h.h_queue_ns, h.id),"
			 " h.opcode, h.cid, h.slba, h.nlb, h.qid, h.nsid, h.cntlid, s.io_type,"
			 " h.bytes, h.namespace, h.controller, h.status, h.h_start_ns, h.h_queue_ns,"
			 " h.h_cmd_sent_ns, h.h_r2t_ns, h.h_data_sent_ns, h.h_recv_ns, h.h_done_ns,"
			 " s.e2e_ns, s.block_ns, s.driver_ns, s.network_star_ns"
			 " FROM \"%s\".host_io h JOIN \"%s\".host_stages s ON s.id = h.id",
			 fi, s, s);
		err = exec(j->db, sql, "loading host commands");
		if (err)
			return err;
	}
	if (j->files[fi].sides & NTP_JOIN_TARGET) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".sqlite_schema"
			 " WHERE name IN ('target_io', 'target_stages')", s);
		if (query_int(j->db, sql, 0) != 2) {
			ntp_error("cannot join %s: a %s recording without the target_io table",
				  j->files[fi].path, j->files[fi].role);
			return NTP_EXIT_MISMATCH;
		}
		snprintf(sql, sizeof(sql),
			 "INSERT INTO temp.join_target SELECT %d, t.id,"
			 " ROW_NUMBER() OVER (PARTITION BY t.cid, t.slba, t.nlb, t.qid, t.nsid,"
			 "  t.cntlid, t.opcode ORDER BY t.t_recv_ns, t.id),"
			 " t.opcode, t.cid, t.slba, t.nlb, t.qid, t.nsid, t.cntlid, t.device, t.status,"
			 " t.t_recv_ns, t.t_r2t_ns, t.t_submit_ns, t.t_cmpl_ns, t.t_sent_ns,"
			 " s.target_driver_ns, s.storage_ns, s.residence_ns"
			 " FROM \"%s\".target_io t JOIN \"%s\".target_stages s ON s.id = t.id",
			 fi, s, s);
		err = exec(j->db, sql, "loading target commands");
		if (err)
			return err;
	}
	return 0;
}

static int add_file_row(struct ntp_join *j, int fi)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(j->db, "INSERT INTO temp.join_files VALUES (?1, ?2, ?3, ?4)", &st,
		      "listing the files");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, fi);
	sqlite3_bind_text(st, 2, j->files[fi].path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, j->files[fi].schema, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, j->files[fi].role, -1, SQLITE_STATIC);
	err = step_done(j->db, st, "listing the files");
	sqlite3_finalize(st);
	return err;
}

int ntp_join__open(struct ntp_join **jp, const char *const *paths, int n,
		   const struct ntp_join_opts *opts)
{
	const char *schemas[NTP_JOIN_MAX_FILES];
	int sides[NTP_JOIN_MAX_FILES];
	struct ntp_join *j;
	int i, err;

	*jp = NULL;
	if (n < 1 || n > NTP_JOIN_MAX_FILES) {
		ntp_error("join: %d recordings given: between 1 and %d can be joined", n,
			  NTP_JOIN_MAX_FILES);
		return NTP_EXIT_USAGE;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	j->opts.slack_ns = 1000;
	j->opts.min_support = 8;
	j->opts.max_drift = 500e-6;
	if (opts) {
		if (opts->slack_ns > 0)
			j->opts.slack_ns = opts->slack_ns;
		if (opts->min_support > 0)
			j->opts.min_support = opts->min_support;
		if (opts->max_drift > 0)
			j->opts.max_drift = opts->max_drift;
	}
	if (sqlite3_open_v2(":memory:", &j->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK) {
		ntp_error("join: cannot open an in-memory database: %s",
			  j->db ? sqlite3_errmsg(j->db) : strerror(ENOMEM));
		ntp_join__close(j);
		return NTP_EXIT_FAILURE;
	}
	/* TEMP tables in memory: the recordings stay untouched, /tmp unused */
	err = exec(j->db, "PRAGMA temp_store = MEMORY", "configuring");
	for (i = 0; i < n && !err; i++) {
		snprintf(j->schemas[i], sizeof(j->schemas[i]), "ntp%d", i);
		schemas[i] = j->schemas[i];
		j->files[i].path = paths[i];
		j->files[i].schema = j->schemas[i];
		err = ntp_join__attach(j->db, paths[i], j->schemas[i]);
		if (!err)
			j->nfiles = i + 1;
	}
	if (!err)
		err = ntp_join__check(j->db, schemas, paths, n, sides);
	if (!err)
		err = exec(j->db, create_sql, "creating the join tables");
	for (i = 0; i < n && !err; i++) {
		j->files[i].sides = sides[i];
		j->files[i].role = (sides[i] == NTP_JOIN_HOST) ? "host" :
				   (sides[i] == NTP_JOIN_TARGET) ? "target" : "both";
		err = add_file_row(j, i);
		if (!err)
			err = load_file(j, i);
	}
	if (!err)
		err = exec(j->db,
			   "CREATE INDEX temp.join_target_key ON join_target (tf, " KEY_COLS ", t_recv_ns);"
			   "CREATE INDEX temp.join_cand_hrow ON join_cand (hrow);"
			   "ANALYZE temp;",
			   "indexing the target commands");
	if (err) {
		ntp_join__close(j);
		return err;
	}
	*jp = j;
	return 0;
}

/*
 * The candidate intervals pass 1 looks at: every same-key pair of a key seen
 * at most ?3 host x target times; of a hotter key, ?4 host occurrences spread
 * over the run, each with every target occurrence.  The host rows are chosen
 * before the join, so a hot key costs ?4 index scans, not nh x nt rows.
 *
 * On one clock (?5) an interval's low end is t_recv - h_done, not t_sent -
 * h_done: with no offset to find, the receive alone inside the host's flight
 * tells the occurrences apart (one key is never in flight twice), and it is
 * causal where t_sent is not quite: a sender's exit hook may fire after the
 * peer already completed (loopback, a thread preempted after its send).
 */
static const char est_sql[] =
	"WITH tc AS (SELECT " KEY_COLS ", count(*) AS nt FROM temp.join_target"
	"   WHERE tf = ?2 GROUP BY " KEY_COLS "),"
	" h AS (SELECT " KEY_COLS ", h_occ, h_queue_ns, h_done_ns,"
	"   count(*) OVER (PARTITION BY " KEY_COLS ") AS nh"
	"   FROM temp.join_host WHERE hf = ?1),"
	" hs AS MATERIALIZED (SELECT h.* FROM h JOIN tc USING (" KEY_COLS ")"
	"   WHERE h.nh * tc.nt <= ?3 OR (h.h_occ - 1) % ((h.nh + ?4 - 1) / ?4) = 0)"
	" SELECT hs.h_queue_ns, " LATE("?5") " - hs.h_done_ns, t.t_recv_ns - hs.h_queue_ns"
	" FROM hs JOIN temp.join_target t"
	"  ON t.tf = ?2 AND t.cid = hs.cid AND t.slba = hs.slba AND t.nlb = hs.nlb"
	"  AND t.qid = hs.qid AND t.nsid = hs.nsid AND t.cntlid = hs.cntlid AND t.opcode = hs.opcode"
	" WHERE " LATE("?5") " - hs.h_done_ns <= t.t_recv_ns - hs.h_queue_ns";

/*
 * Every same-key pair whose target record overlaps the host command's flight
 * [h_queue, h_done] mapped through the line; ok when it lies inside it, that
 * is when the pair's offset interval holds o(h_queue) within tol (on one
 * clock, ?10: when its receive does).  All comparisons are relative to
 * base_ns, in integers where it matters.
 */
static const char cand_sql[] =
	"INSERT INTO temp.join_cand (hrow, trow, pair, ok, dist, o_rel)"
	" SELECT h.hrow, t.rowid, ?9,"
	"  (t.t_recv_ns - h.h_queue_ns - ?4) + ?7 >= h.e"
	"   AND (" LATE("?10") " - h.h_done_ns - ?4) - ?7 <= h.e,"
	"  abs(((t.t_recv_ns - h.h_queue_ns - ?4) + (" LATE("?10") " - h.h_done_ns - ?4)) / 2.0"
	"   - h.e),"
	"  h.e"
	" FROM (SELECT rowid AS hrow, *, ?5 + ?6 * (h_queue_ns - ?3) AS e"
	"       FROM temp.join_host WHERE hf = ?1) AS h"
	" JOIN temp.join_target AS t"
	"  ON t.tf = ?2 AND t.cid = h.cid AND t.slba = h.slba AND t.nlb = h.nlb"
	"  AND t.qid = h.qid AND t.nsid = h.nsid AND t.cntlid = h.cntlid AND t.opcode = h.opcode"
	"  AND t.t_recv_ns BETWEEN h.h_queue_ns + ?4 + h.e - ?7 - ?8"
	"                      AND h.h_done_ns + ?4 + h.e + ?7"
	" WHERE t.t_sent_ns >= h.h_queue_ns + ?4 + h.e - ?7";

/* the intervals of the pair at st (t, lo, hi in columns 0-2); 0 or NTP_EXIT_* */
static int read_intervals(struct ntp_join *j, sqlite3_stmt *st, struct ntp_join_iv **ivp,
			  size_t *np)
{
	struct ntp_join_iv *iv = NULL, *tmp;
	size_t n = 0, cap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			tmp = realloc(iv, cap * sizeof(*iv));
			if (!tmp) {
				rc = SQLITE_NOMEM;
				break;
			}
			iv = tmp;
		}
		iv[n].t = sqlite3_column_int64(st, 0);
		iv[n].lo = sqlite3_column_int64(st, 1);
		iv[n].hi = sqlite3_column_int64(st, 2);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(iv);
		if (rc == SQLITE_NOMEM) {
			ntp_error("join: %s", strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
		return sql_fail(j->db, "selecting candidate pairs");
	}
	*ivp = iv;
	*np = n;
	return 0;
}

/*
 * The line of pair p from the intervals st yields: estimated, or on one
 * clock o(t) = 0, which needs no agreement.  *ok = 0 when too few agreed.
 */
static int fit_from(struct ntp_join *j, const struct ntp_join_pair *p, sqlite3_stmt *st,
		    struct ntp_join_fit *fit, int64_t *n_out, int *ok)
{
	struct ntp_join_iv *iv;
	size_t n;
	int rc, err;

	*ok = 0;
	err = read_intervals(j, st, &iv, &n);
	if (err)
		return err;
	*n_out = n;
	if (p->clock != NTP_JOIN_CLOCK_TWO)
		rc = ntp_join__fit_zero(iv, n, j->opts.slack_ns, fit);
	else if (n)
		rc = ntp_join__estimate(iv, n, j->opts.max_drift, j->opts.slack_ns, fit);
	else
		rc = -ENOENT;
	free(iv);
	if (rc == -ENOMEM) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	*ok = !rc && (p->clock != NTP_JOIN_CLOCK_TWO || fit->support >= j->opts.min_support);
	return 0;
}

/* (re)build the candidates of pair p under the line fit, admitting misses up to tol */
static int insert_cands(struct ntp_join *j, int pair, const struct ntp_join_pair *p,
			const struct ntp_join_fit *fit, double tol)
{
	sqlite3_stmt *st;
	char sql[160];
	int64_t maxres;
	int err;

	snprintf(sql, sizeof(sql), "DELETE FROM temp.join_cand WHERE pair = %d", pair);
	err = exec(j->db, sql, "pairing commands");
	if (err)
		return err;
	snprintf(sql, sizeof(sql), "SELECT max(t_sent_ns - t_recv_ns) FROM temp.join_target"
		 " WHERE tf = %d", p->target_file);
	maxres = query_int(j->db, sql, 0);
	err = prepare(j->db, cand_sql, &st, "pairing commands");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, p->host_file);
	sqlite3_bind_int(st, 2, p->target_file);
	sqlite3_bind_int64(st, 3, fit->t0);
	sqlite3_bind_int64(st, 4, fit->base);
	sqlite3_bind_double(st, 5, fit->a);
	sqlite3_bind_double(st, 6, fit->b);
	sqlite3_bind_double(st, 7, tol);
	sqlite3_bind_int64(st, 8, maxres);
	sqlite3_bind_int(st, 9, pair);
	sqlite3_bind_int(st, 10, p->clock != NTP_JOIN_CLOCK_TWO);
	err = step_done(j->db, st, "pairing commands");
	sqlite3_finalize(st);
	return err;
}

static int save_pair(struct ntp_join *j, int pair, const struct ntp_join_pair *p,
		     const struct ntp_join_fit *fit)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(j->db, "INSERT INTO temp.join_pairs VALUES"
		      " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0)", &st, "saving the estimate");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, pair);
	sqlite3_bind_int(st, 2, p->host_file);
	sqlite3_bind_int(st, 3, p->target_file);
	sqlite3_bind_int(st, 4, p->estimated);
	sqlite3_bind_int64(st, 5, fit->t0);
	sqlite3_bind_int64(st, 6, fit->base);
	sqlite3_bind_double(st, 7, fit->a);
	sqlite3_bind_double(st, 8, fit->b);
	sqlite3_bind_double(st, 9, fit->tol);
	sqlite3_bind_int64(st, 10, p->candidates);
	sqlite3_bind_int64(st, 11, p->support);
	err = step_done(j->db, st, "saving the estimate");
	sqlite3_finalize(st);
	return err;
}

/* the intervals of the candidates pass 1 found inside the bound, of bound controllers */
static const char refit_sql[] =
	"SELECT h.h_queue_ns, " LATE("?2") " - h.h_done_ns, t.t_recv_ns - h.h_queue_ns"
	" FROM temp.join_cand c JOIN temp.join_host h ON h.rowid = c.hrow"
	" JOIN temp.join_target t ON t.rowid = c.trow WHERE c.pair = ?1 AND c.usable";

static void set_pair(struct ntp_join_pair *p, const struct ntp_join_fit *fit, int ok)
{
	p->estimated = ok;
	p->t0_ns = fit->t0;
	p->offset_ns = (double)fit->base + fit->a;
	p->drift = fit->b;
	p->tol_ns = fit->tol;
	p->support = fit->support;
}

/* a boot_id that names a boot: the kernel's is a random UUID, never the nil one */
static int known_boot(const char *b)
{
	return b && *b && strspn(b, "0-") != strlen(b);
}

/*
 * One kernel stamps both sides with one clock: one file holding both, or
 * two files of one boot.  A boot_id that is missing, empty or nil says nothing.
 */
static enum ntp_join_clock pair_clock(struct ntp_join *j, int h, int t)
{
	enum ntp_join_clock c = NTP_JOIN_CLOCK_TWO;
	char *bh, *bt;

	if (h == t)
		return NTP_JOIN_CLOCK_ONE_FILE;
	bh = meta_text(j->db, j->files[h].schema, "boot_id");
	bt = meta_text(j->db, j->files[t].schema, "boot_id");
	if (known_boot(bh) && bt && !strcmp(bh, bt))
		c = NTP_JOIN_CLOCK_ONE_BOOT;
	free(bh);
	free(bt);
	return c;
}

/*
 * Pass 1 estimates from a bounded sample of same-key pairs (all pairs of
 * rare keys, a few host occurrences of hot ones).  Its line is exact for the
 * pairs it saw but may miss unseen true pairs, most near the ends of the
 * run, by up to a few interval widths: its candidates admit that much.
 */
static int estimate_pass1(struct ntp_join *j, int pair, struct ntp_join_fit *fit)
{
	struct ntp_join_pair *p = &j->pairs[pair];
	sqlite3_stmt *st;
	double admit;
	int ok, err;

	memset(fit, 0, sizeof(*fit));
	err = prepare(j->db, est_sql, &st, "selecting candidate pairs");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, p->host_file);
	sqlite3_bind_int(st, 2, p->target_file);
	sqlite3_bind_int(st, 3, EST_ALL_PAIRS);
	sqlite3_bind_int(st, 4, EST_HOT_SAMPLES);
	sqlite3_bind_int(st, 5, p->clock != NTP_JOIN_CLOCK_TWO);
	err = fit_from(j, p, st, fit, &p->candidates, &ok);
	set_pair(p, fit, ok);
	/* one clock's line is exact: nothing to admit beyond the slack */
	admit = fit->tol;
	if (p->clock == NTP_JOIN_CLOCK_TWO)
		admit += PASS1_SPREADS * fit->spread;
	if (!err && ok)
		err = insert_cands(j, pair, p, fit, admit);
	return err;
}

/*
 * Pass 2 re-estimates from every pair pass 1 admitted for a controller bound
 * to this target - all the true pairs, few false ones - so its line fits
 * every true pair and the final candidates admit only the measured
 * tolerance.
 */
static int estimate_pass2(struct ntp_join *j, int pair, struct ntp_join_fit *fit)
{
	struct ntp_join_pair *p = &j->pairs[pair];
	struct ntp_join_fit fit2;
	sqlite3_stmt *st;
	int64_t n2;
	int ok, err;

	if (!p->estimated)
		return save_pair(j, pair, p, fit);
	err = prepare(j->db, refit_sql, &st, "selecting candidate pairs");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, pair);
	sqlite3_bind_int(st, 2, p->clock != NTP_JOIN_CLOCK_TWO);
	err = fit_from(j, p, st, &fit2, &n2, &ok);
	if (!err && ok) {	/* else pass 1 stands */
		*fit = fit2;
		set_pair(p, fit, 1);
	}
	if (!err)
		err = insert_cands(j, pair, p, fit, fit->tol);
	if (!err)
		err = save_pair(j, pair, p, fit);
	return err;
}

/*
 * A host controller (nvmeX of one host file) talks to one target: bind it
 * to the combination that agrees with most of its commands, so that a key
 * that happens to repeat on another target with the same cntlid never joins.
 */
static const char bind_sql[] =
	"DROP TABLE IF EXISTS temp.join_bind;"
	"CREATE TEMP TABLE join_bind AS"
	" SELECT hf, controller, pair FROM ("
	"  SELECT h.hf, h.controller, c.pair, row_number() OVER"
	"   (PARTITION BY h.hf, h.controller ORDER BY count(*) DESC, c.pair) AS rk"
	"  FROM temp.join_cand c JOIN temp.join_host h ON h.rowid = c.hrow"
	"  WHERE c.ok GROUP BY h.hf, h.controller, c.pair)"
	" WHERE rk = 1;"
	"UPDATE temp.join_cand SET usable = ok AND pair IS ("
	" SELECT b.pair FROM temp.join_host h JOIN temp.join_bind b"
	"  ON b.hf = h.hf AND b.controller = h.controller WHERE h.rowid = join_cand.hrow);";

/* mutual nearest among the usable candidates of rows not matched yet */
static const char match_sql[] =
	"INSERT INTO temp.join_match (hrow, trow, pair, o_rel)"
	" SELECT hrow, trow, pair, o_rel FROM ("
	"  SELECT c.hrow, c.trow, c.pair, c.o_rel,"
	"   row_number() OVER (PARTITION BY c.hrow ORDER BY c.dist, c.trow) AS rh,"
	"   row_number() OVER (PARTITION BY c.trow ORDER BY c.dist, c.hrow) AS rt"
	"  FROM temp.join_cand c"
	"  WHERE c.usable AND c.hrow NOT IN (SELECT hrow FROM temp.join_match)"
	"   AND c.trow NOT IN (SELECT trow FROM temp.join_match))"
	" WHERE rh = 1 AND rt = 1";

static const char joined_sql[] =
	"CREATE TEMP TABLE joined AS SELECT"
	" p.hf AS host_file, p.tf AS target_file, h.host_id, t.target_id, h.h_occ, t.t_occ,"
	" h.opcode, h.cid, h.slba, h.nlb, h.qid, h.nsid, h.cntlid, h.io_type, h.bytes,"
	" h.namespace, h.controller, t.device, h.status, t.status AS t_status,"
	" h.h_start_ns, h.h_queue_ns, h.h_cmd_sent_ns, h.h_r2t_ns, h.h_data_sent_ns,"
	" h.h_recv_ns, h.h_done_ns,"
	" t.t_recv_ns, t.t_r2t_ns, t.t_submit_ns, t.t_cmpl_ns, t.t_sent_ns,"
	" h.e2e_ns, h.block_ns, h.driver_ns, h.network_star_ns - t.residence_ns AS network_ns,"
	" t.target_driver_ns, t.storage_ns,"
	" p.base_ns + CAST(round(m.o_rel) AS INTEGER) AS offset_ns"
	" FROM temp.join_match m JOIN temp.join_host h ON h.rowid = m.hrow"
	" JOIN temp.join_target t ON t.rowid = m.trow JOIN temp.join_pairs p ON p.pair = m.pair"
	" ORDER BY h.hf, h.h_start_ns, h.host_id;"
	"UPDATE temp.join_pairs SET matched ="
	" (SELECT count(*) FROM temp.join_match m WHERE m.pair = join_pairs.pair);";

int ntp_join__run(struct ntp_join *j)
{
	struct ntp_join_fit *fits;
	sqlite3_stmt *st = NULL;
	int h, t, i, round, err = 0;

	free(j->pairs);
	j->npairs = 0;
	j->pairs = calloc(j->nfiles * j->nfiles, sizeof(*j->pairs));
	if (!j->pairs) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = exec(j->db, "DROP TABLE IF EXISTS temp.joined; DROP TABLE IF EXISTS temp.join_bind;"
		   "DELETE FROM temp.join_match; DELETE FROM temp.join_cand;"
		   "DELETE FROM temp.join_pairs; BEGIN", "starting the join");
	fits = calloc(j->nfiles * j->nfiles, sizeof(*fits));
	if (!fits) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	for (h = 0; h < j->nfiles && !err; h++) {
		if (!(j->files[h].sides & NTP_JOIN_HOST))
			continue;
		for (t = 0; t < j->nfiles && !err; t++) {
			struct ntp_join_pair *p;

			if (!(j->files[t].sides & NTP_JOIN_TARGET))
				continue;
			p = &j->pairs[j->npairs];
			p->host_file = h;
			p->target_file = t;
			p->clock = pair_clock(j, h, t);
			err = estimate_pass1(j, j->npairs, &fits[j->npairs]);
			j->npairs++;
		}
	}
	if (!err)
		err = exec(j->db, bind_sql, "binding controllers to targets");
	for (i = 0; i < j->npairs && !err; i++)
		err = estimate_pass2(j, i, &fits[i]);
	free(fits);
	/* the final candidates may bind a controller differently */
	if (!err)
		err = exec(j->db, bind_sql, "binding controllers to targets");
	if (!err)
		err = prepare(j->db, match_sql, &st, "matching commands");
	for (round = 0; !err && round < MATCH_ROUNDS; round++) {
		err = step_done(j->db, st, "matching commands");
		if (!err && !sqlite3_changes(j->db))
			break;
	}
	sqlite3_finalize(st);
	if (!err)
		err = exec(j->db, joined_sql, "building the joined table");
	if (!err)
		err = exec(j->db, "COMMIT", "finishing the join");
	else
		sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
	if (err)
		return err;

	for (i = 0; i < j->npairs; i++) {
		char sql[96];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM temp.join_match WHERE pair = %d", i);
		j->pairs[i].matched = query_int(j->db, sql, 0);
	}
	j->counts.host_rows = query_int(j->db, "SELECT count(*) FROM temp.join_host", 0);
	j->counts.target_rows = query_int(j->db, "SELECT count(*) FROM temp.join_target", 0);
	j->counts.matched = query_int(j->db, "SELECT count(*) FROM temp.join_match", 0);
	/* only the target its controller talks to can reject a host command */
	j->counts.rejected = query_int(j->db,
		"SELECT count(DISTINCT c.hrow) FROM temp.join_cand c"
		" JOIN temp.join_host h ON h.rowid = c.hrow JOIN temp.join_bind b"
		"  ON b.hf = h.hf AND b.controller = h.controller AND b.pair = c.pair"
		" WHERE c.hrow NOT IN (SELECT hrow FROM temp.join_match)", 0);
	j->counts.unmatched_host = j->counts.host_rows - j->counts.matched - j->counts.rejected;
	j->counts.unmatched_target = j->counts.target_rows - j->counts.matched;
	return 0;
}

const char *ntp_join__clock_name(enum ntp_join_clock c)
{
	switch (c) {
	case NTP_JOIN_CLOCK_ONE_FILE:
		return "same clock (one recording)";
	case NTP_JOIN_CLOCK_ONE_BOOT:
		return "same clock (one boot)";
	case NTP_JOIN_CLOCK_TWO:
		break;
	}
	return NULL;
}

sqlite3 *ntp_join__db(const struct ntp_join *j)
{
	return j->db;
}

const struct ntp_join_file *ntp_join__file(const struct ntp_join *j, int i)
{
	return i >= 0 && i < j->nfiles ? &j->files[i] : NULL;
}

void ntp_join__counts(const struct ntp_join *j, struct ntp_join_counts *c)
{
	*c = j->counts;
}

int ntp_join__npairs(const struct ntp_join *j)
{
	return j->npairs;
}

const struct ntp_join_pair *ntp_join__pair(const struct ntp_join *j, int i)
{
	return i >= 0 && i < j->npairs ? &j->pairs[i] : NULL;
}

void ntp_join__close(struct ntp_join *j)
{
	if (!j)
		return;
	sqlite3_close(j->db);
	free(j->pairs);
	free(j);
}
