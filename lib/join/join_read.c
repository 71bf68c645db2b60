// SPDX-License-Identifier: GPL-2.0
/*
 * Both sides of every file read at once (lib/join/join_base.h): one reader a
 * CPU, each its share of every file's ids on each side, on a connection of
 * its own (SQLite serializes the calls on one).  The shares are counted
 * before they are read, so that every reader knows the load indexes of its
 * rows and writes them in place: no reader waits for another, and nothing
 * is copied after.  A file's load order is its id order, whatever the
 * number of readers.
 *
 * For the summary (opts.tag) the rows come from ntprof's stage views, whose
 * columns include the key, so that each file is read once: the stages are
 * kept by join_keep.c beside the rows.  Otherwise they come
 * from the tables, which is cheaper for readers that want the pairs only.
 *
 * A reader keeps its error line, and the first reader's line in reader order
 * is printed once they are done, so a join that fails prints one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/jobs.h"
#include "lib/core/spill.h"
#include "lib/join/join_base.h"
#include "lib/ntp/db_app.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_key.h"

/* below this many rows in all, a second reader costs more than it saves */
#define ROWS_PER_READER 100000

/* the key's columns, which a row's join_key stands for (lib/ntp/db_key.h) */
#define KEY_COLS "cid, slba, nlb, qid, nsid, cntlid, opcode"
#define NKEY_COLS 7

/*
 * Where a range's statement has each column (-1: not selected).  Column 0
 * is the id.  A column the row does not need is left out, not decoded, and
 * none is read twice: with the stages, the bound's times and h_start_ns
 * are those among the stages' points.
 */
struct cols {
	int t0, t1;		/* the bound's times: h_queue_ns, h_done_ns; t_recv_ns, t_sent_ns */
	int key, nkey;		/* join_key (1), or the seven columns it stands for (7) */
	int key7;		/* with join_key: the seven too, once a row had it NULL; else -1 */
	int start, qid;		/* host: h_start_ns (temp.joined's order, a filter), qid (a filter) */
	int ctrl;		/* host: controller */
	int keep;		/* the first of the stages' columns (lib/join/join_keep.c) */
};

/*
 * A file's times may be any 64-bit value.  The join's arithmetic (the
 * bounds, the intervals, the estimate's offsets) adds and subtracts at most
 * four of them, which fits 64 bits for times within +-2^60 ns (36 years:
 * no CLOCK_MONOTONIC reading is beyond).  A row's time beyond is clamped
 * there: at worst its key still matches, and its stages, which the report
 * takes from the stage views, are then an impossible command (overflow) of
 * its group (lib/model/model_groups.h), never a wrapped number.
 */
#define TIME_LIMIT ((int64_t)1 << 60)

static int64_t col_time(sqlite3_stmt *st, int col)
{
	int64_t t = sqlite3_column_int64(st, col);

	return t < -TIME_LIMIT ? -TIME_LIMIT : t > TIME_LIMIT ? TIME_LIMIT : t;
}

/* the key's hash from columns first..first+6 of st (lib/ntp/db_key.h) */
static uint64_t key_hash(sqlite3_stmt *st, int first)
{
	struct ntp_key k = {
		sqlite3_column_int64(st, first), sqlite3_column_int64(st, first + 1),
		sqlite3_column_int64(st, first + 2), sqlite3_column_int64(st, first + 3),
		sqlite3_column_int64(st, first + 4), sqlite3_column_int64(st, first + 5),
		sqlite3_column_int64(st, first + 6),
	};

	return ntp_key__hash(&k);
}

struct reader {
	struct ntp_join *j;
	int w;
	sqlite3 *db[NTP_JOIN_MAX_FILES];	/* reader 0: the join's own, the others their own */
	/* the controller of the last host row, by file: the next row's, nearly always */
	char last[64];
	int last_file, last_ctrl;
	int err;		/* NTP_EXIT_* */
	char msg[NTP_DB_FAIL_LINE];
	int gap;		/* the ids of a range taken for dense were not */
};

static int reader_fail(struct reader *r, int fi, const char *what)
{
	r->err = ntp_db__fail_text(r->db[fi], r->j->files[fi].path, what, r->msg, sizeof(r->msg));
	return r->err;
}

static int reader_nomem(struct reader *r)
{
	snprintf(r->msg, sizeof(r->msg), "join: %s", strerror(ENOMEM));
	r->err = NTP_EXIT_FAILURE;
	return r->err;
}

/* a record not kept: a scratch file's error, or the tag's want of memory */
static int kept_fail(struct reader *r, const struct ntp_spill_run *keep,
		     const struct ntp_spill_run *apps)
{
	if (apps && apps->err)
		keep = apps;
	if (!keep->err)
		return reader_nomem(r);
	return ntp_join__keep_fail(r->j, keep, r->msg, sizeof(r->msg), &r->err);
}

/* a range's rows not as its count said: out of id order, more or fewer */
static int changed(struct reader *r, int fi)
{
	snprintf(r->msg, sizeof(r->msg), "%s: corrupt: its commands are not where their ids say"
		 " (a damaged file, or one changed while being read)", r->j->files[fi].path);
	r->err = NTP_EXIT_CORRUPT;
	return r->err;
}

static const char *schema_of(const struct reader *r, int fi)
{
	return r->w ? "main" : r->j->files[fi].schema;
}

/* ---- counting the shares ------------------------------------------------- */

/* the ids of one side of file fi: [*lo, *hi], empty when *hi < *lo */
static void id_bounds(struct ntp_join *j, int fi, const char *table, int64_t *lo, int64_t *hi)
{
	char sql[160];

	/* each a B-tree search: SQLite finds a lone min() or max() at once, both together by a scan */
	snprintf(sql, sizeof(sql), "SELECT min(id) FROM \"%s\".%s", j->files[fi].schema, table);
	*lo = ntp_join__query_int(j->db, sql, 0);
	snprintf(sql, sizeof(sql), "SELECT max(id) FROM \"%s\".%s", j->files[fi].schema, table);
	*hi = ntp_join__query_int(j->db, sql, *lo - 1);
}

/* does file fi's table have join_key (a recording of a writer since it exists)? */
static int has_join_key(struct ntp_join *j, int fi, const char *table)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s', '%s')"
		 " WHERE name = 'join_key'", table, j->files[fi].schema);
	return ntp_join__query_int(j->db, sql, 0) > 0;
}

/* reader w's share of ids lo..hi of n readers: equal spans */
static void share(int64_t lo, int64_t hi, int w, int n, int64_t *a, int64_t *b)
{
	/* in unsigned arithmetic: a hostile file's span may be near 2^64 */
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;

	*a = (int64_t)((uint64_t)lo + (uint64_t)((unsigned __int128)span * (unsigned)w / (unsigned)n));
	*b = (int64_t)((uint64_t)lo + (uint64_t)((unsigned __int128)span * (unsigned)(w + 1) /
						(unsigned)n) - 1);
}

static int count_range(struct reader *r, int fi, const char *table, struct ntp_jrange *rg)
{
	char sql[192];
	sqlite3_stmt *st;
	int rc;

	rg->n = 0;
	if (rg->id_hi < rg->id_lo)
		return 0;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".%s WHERE id BETWEEN ?1 AND ?2",
		 schema_of(r, fi), table);
	if (sqlite3_prepare_v2(r->db[fi], sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, fi, "counting the commands");
	sqlite3_bind_int64(st, 1, rg->id_lo);
	sqlite3_bind_int64(st, 2, rg->id_hi);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rg->n = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : reader_fail(r, fi, "counting the commands");
}

static void *count_job(void *arg)
{
	struct reader *r = arg;
	struct ntp_join *j = r->j;

	for (int fi = 0; fi < j->nfiles && !r->err; fi++) {
		if (j->files[fi].sides & NTP_SIDE_HOST)
			count_range(r, fi, "host_io", &j->hrange[r->w][fi]);
		if (!r->err && (j->files[fi].sides & NTP_SIDE_TARGET))
			count_range(r, fi, "target_io", &j->trange[r->w][fi]);
	}
	return NULL;
}

/* ---- reading ------------------------------------------------------------- */

/* the index of file fi's controller name, new if need be; -1 without memory */
static int ctrl_index(struct ntp_join *j, int fi, const char *name)
{
	struct ntp_jctrl *c;
	int k = -1;

	pthread_mutex_lock(&j->ctrl_lock);
	for (int i = j->nctrls - 1; i >= 0 && k < 0; i--)
		if (j->ctrls[i].file == fi && !strcmp(j->ctrls[i].name, name))
			k = i;
	if (k < 0 && j->nctrls < UINT16_MAX) {
		c = realloc(j->ctrls, (j->nctrls + 1) * sizeof(*c));
		if (c) {
			j->ctrls = c;
			c = &j->ctrls[j->nctrls];
			memset(c, 0, sizeof(*c));
			c->file = fi;
			c->bound = -1;
			c->name = strdup(name);
			if (c->name)
				k = j->nctrls++;
		}
	}
	pthread_mutex_unlock(&j->ctrl_lock);
	return k;
}

/* the controller of a host row of file fi named name; -1 without memory */
static int row_ctrl(struct reader *r, int fi, const char *name)
{
	if (r->last_ctrl < 0 || r->last_file != fi || strncmp(name, r->last, sizeof(r->last))) {
		r->last_ctrl = ctrl_index(r->j, fi, name);
		r->last_file = fi;
		snprintf(r->last, sizeof(r->last), "%s", name);
	}
	return r->last_ctrl;
}

/* a statement being written: its text and its columns so far */
struct select {
	char *sql;
	size_t len, used;
	int ncols;
};

/* the n columns of list (comma-separated) appended; the first one's place */
static int add_cols(struct select *q, const char *list, int n)
{
	int n0 = q->ncols;

	if (q->used < q->len)
		q->used += (size_t)snprintf(q->sql + q->used, q->len - q->used, "%s%s",
					    q->ncols ? ", " : "SELECT ", list);
	q->ncols += n;
	return n0;
}

/*
 * "SELECT ... FROM the table (or with opts.tag the stage view) WHERE id
 * BETWEEN ?1 AND ?2" of one side of file fi, and where its columns are.
 * The longest fits the buffer of read_range(); one that did not would
 * fail to prepare.
 */
static void side_sql(const struct reader *r, int fi, int host, int key7, char *sql, size_t len,
		     struct cols *c)
{
	const struct ntp_join *j = r->j;
	const char *schema = schema_of(r, fi);
	int filters = j->keep && j->opts.tag_filters;
	struct select q = { sql, len, 0, 0 };
	char view[64];

	*c = (struct cols){ .key = -1, .key7 = -1, .start = -1, .qid = -1, .ctrl = -1, .keep = -1 };
	add_cols(&q, "id", 1);
	if (!j->keep) {
		c->t0 = add_cols(&q, host ? "h_queue_ns, h_done_ns" : "t_recv_ns, t_sent_ns", 2);
		c->t1 = c->t0 + 1;
	}
	if (j->keyed[fi][host]) {
		c->key = add_cols(&q, "join_key", 1);
		c->nkey = 1;
		if (key7)
			c->key7 = add_cols(&q, KEY_COLS, NKEY_COLS);
	} else {
		c->key = add_cols(&q, KEY_COLS, NKEY_COLS);
		c->nkey = NKEY_COLS;
	}
	if (host) {
		c->ctrl = add_cols(&q, "controller", 1);
		if (!j->keep)
			c->start = add_cols(&q, "h_start_ns", 1);
		if (filters)
			c->qid = c->nkey == 1 ? add_cols(&q, "qid", 1) : c->key + 3;
	}
	if (j->keep && host) {
		int p;

		c->keep = add_cols(&q, "io_type, bytes, namespace", 3);
		add_cols(&q, filters ? "path" : "NULL", 1);
		p = add_cols(&q, NTP_DB_HOST_POINT_COLS, NTP_DB_HOST_NPOINTS);
		c->t0 = p + NTP_DB_HOST_POINT_QUEUE;
		c->t1 = p + NTP_DB_HOST_POINT_DONE;
		if (filters)
			c->start = p + NTP_DB_HOST_POINT_START;
		if (j->keep->app[fi])
			add_cols(&q, NTP_DB_APP_COLS, NTP_DB_APP_NCOLS);
	} else if (j->keep) {
		c->keep = add_cols(&q, NTP_DB_TARGET_POINT_COLS, NTP_DB_TARGET_NPOINTS);
		c->t0 = c->keep + NTP_DB_TARGET_POINT_RECV;
		c->t1 = c->keep + NTP_DB_TARGET_POINT_SENT;
	}
	if (!j->keep)
		snprintf(view, sizeof(view), "\"%s\".%s", schema, host ? "host_io" : "target_io");
	else
		ntp_db__view_name(view, sizeof(view), schema, host ? (j->keep->app[fi] ?
				  NTP_DB_HOST_APP_STAGES : NTP_DB_HOST_STAGES) : NTP_DB_TARGET_STAGES);
	if (q.used < len)
		snprintf(sql + q.used, len - q.used, " FROM %s%s%s WHERE id BETWEEN ?1 AND ?2"
			 " ORDER BY id", j->keep ? "temp.\"" : "", view, j->keep ? "\"" : "");
}

/* a row's join_key was NULL and the statement has not the seven columns it stands for */
#define NEED_KEY_COLS (-2)

/*
 * The key's hash of a row: its join_key, or computed from the seven columns
 * it stands for (a file without the column; a row whose join_key is NULL,
 * written by a tool that did not set it: NEED_KEY_COLS until the statement
 * reads them too).
 */
static int row_key(sqlite3_stmt *st, const struct cols *c, uint64_t *hash)
{
	sqlite3_value *v;

	if (c->nkey == NKEY_COLS) {
		*hash = key_hash(st, c->key);
		return 0;
	}
	/* one call into the statement, not two (lib/ntp/db_own.h: ntp_db__points) */
	v = sqlite3_column_value(st, c->key);
	if (sqlite3_value_type(v) != SQLITE_NULL)
		*hash = (uint64_t)sqlite3_value_int64(v);
	else if (c->key7 >= 0)
		*hash = key_hash(st, c->key7);
	else
		return NEED_KEY_COLS;
	return 0;
}

/*
 * Row k of range rg has id: it must be where its place was planned.  A
 * range planned as dense that is not has a gap (the reading starts again,
 * counted: ntp_join__read); one that was counted has changed.
 */
static int place(struct reader *r, struct ntp_jside *s, int fi, const struct ntp_jrange *rg,
		 size_t k, int64_t id)
{
	if (k < rg->n && (s->ids || id == rg->id_lo + (int64_t)k)) {
		if (!s->ids)
			return 0;
		/* in id order, as a scan by id gives them: else the B-tree is damaged */
		if (k && id <= s->ids[rg->idx + k - 1])
			return changed(r, fi);
		s->ids[rg->idx + k] = id;
		return 0;
	}
	if (!r->j->counted) {
		r->gap = 1;
		r->err = NTP_EXIT_FAILURE;	/* stops this reader; not an error of the join */
		return r->err;
	}
	return changed(r, fi);
}

static int host_row(struct reader *r, int fi, const struct ntp_jrange *rg, size_t k,
		    sqlite3_stmt *st, const struct cols *c, struct ntp_spill_run *keep,
		    struct ntp_spill_run *apps)
{
	struct ntp_join *j = r->j;
	struct ntp_jside *s = &j->host;
	size_t idx = rg->idx + k;
	struct ntp_jhost *h = (struct ntp_jhost *)s->rows + idx;
	const char *name = (const char *)sqlite3_column_text(st, c->ctrl);
	int ctrl;

	/* placed first: a row beyond the planned ones has no place to write to */
	if (place(r, s, fi, rg, k, sqlite3_column_int64(st, 0)))
		return r->err;
	if (row_key(st, c, &s->order[idx].hash))
		return NEED_KEY_COLS;
	ctrl = row_ctrl(r, fi, name ? name : "");
	if (ctrl < 0)
		return reader_nomem(r);
	h->queue = col_time(st, c->t0);
	h->done = col_time(st, c->t1);
	if (s->start)
		s->start[idx] = col_time(st, c->start);
	s->ctrl[idx] = (uint16_t)ctrl;
	s->order[idx].idx = (uint32_t)idx;
	if (keep && ntp_join__keep_host(j, r->w, fi, idx, st, c->keep,
					c->qid < 0 ? 0 : sqlite3_column_int64(st, c->qid),
					c->start < 0 ? 0 : sqlite3_column_int64(st, c->start), keep,
					apps))
		return kept_fail(r, keep, apps);
	return 0;
}

static int target_row(struct reader *r, int fi, const struct ntp_jrange *rg, size_t k,
		      sqlite3_stmt *st, const struct cols *c)
{
	struct ntp_join *j = r->j;
	struct ntp_jside *s = &j->target;
	size_t idx = rg->idx + k;
	struct ntp_jtarget *t = (struct ntp_jtarget *)s->rows + idx;

	/* placed first: a row beyond the planned ones has no place to write to */
	if (place(r, s, fi, rg, k, sqlite3_column_int64(st, 0)))
		return r->err;
	if (row_key(st, c, &s->order[idx].hash))
		return NEED_KEY_COLS;
	t->recv = col_time(st, c->t0);
	t->sent = col_time(st, c->t1);
	s->order[idx].idx = (uint32_t)idx;
	if (j->keep && ntp_join__keep_target(j, r->w, idx, st, c->keep))
		return reader_nomem(r);
	return 0;
}

/* a host range's runs on the scratch files (and its application's where the file has them) */
static int keep_start(struct reader *r, const struct ntp_jrange *rg, struct ntp_spill_run *keep,
		      struct ntp_spill_run *apps)
{
	struct ntp_jkeep *k = r->j->keep;

	if (ntp_spill_run__start(keep, &k->host, rg->idx, 1))
		return ntp_join__keep_fail(r->j, keep, r->msg, sizeof(r->msg), &r->err);
	if (apps && ntp_spill_run__start(apps, &k->apps, rg->idx, 1)) {
		ntp_spill_run__end(keep);
		return ntp_join__keep_fail(r->j, apps, r->msg, sizeof(r->msg), &r->err);
	}
	return 0;
}

/* the runs ended: the records whole on their files, or the first error */
static int keep_end(struct reader *r, struct ntp_spill_run *keep, struct ntp_spill_run *apps)
{
	const struct ntp_spill_run *bad = ntp_spill_run__end(keep) ? keep : NULL;

	if (apps && ntp_spill_run__end(apps) && !bad)
		bad = apps;
	if (bad && !r->err)
		ntp_join__keep_fail(r->j, bad, r->msg, sizeof(r->msg), &r->err);
	return r->err;
}

/* range rg of one side of file fi, its stages kept with opts.tag (join_keep.c) */
static int read_range(struct reader *r, int fi, int host, const struct ntp_jrange *rg)
{
	struct ntp_join *j = r->j;
	struct ntp_spill_run run, arun, *keep = NULL, *apps = NULL;
	const char *what = host ? "reading host commands" : "reading target commands";
	int64_t from = rg->id_lo;
	char sql[768];
	sqlite3_stmt *st;
	struct cols c;
	size_t k = 0;
	int rc = SQLITE_DONE, key7 = 0;

	if (!rg->n)
		return 0;
	if (j->keep && host) {
		keep = &run;
		apps = j->keep->app[fi] ? &arun : NULL;
		if (keep_start(r, rg, keep, apps))
			return r->err;
	}
	/*
	 * Again from a row whose join_key is NULL, the seven columns it stands
	 * for read too: once a range at most.
	 */
again:
	side_sql(r, fi, host, key7, sql, sizeof(sql), &c);
	if (sqlite3_prepare_v2(r->db[fi], sql, -1, &st, NULL) != SQLITE_OK) {
		reader_fail(r, fi, what);
		if (keep)
			keep_end(r, keep, apps);
		return r->err;
	}
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, rg->id_hi);
	while (!r->err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int e = host ? host_row(r, fi, rg, k, st, &c, keep, apps) :
			target_row(r, fi, rg, k, st, &c);

		if (e == NEED_KEY_COLS) {
			from = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
			key7 = 1;
			goto again;
		}
		if (!(++k & 0xffff) && !r->w)
			ntp_jprogress__set(j->progress, what, k, rg->n);
	}
	if (!r->err && rc != SQLITE_DONE)
		reader_fail(r, fi, what);
	else if (!r->err && k != rg->n)
		place(r, host ? &j->host : &j->target, fi, rg, rg->n, 0);	/* fewer than planned */
	sqlite3_finalize(st);
	if (keep)
		keep_end(r, keep, apps);
	return r->err;
}

static void *read_job(void *arg)
{
	struct reader *r = arg;
	struct ntp_join *j = r->j;

	for (int fi = 0; fi < j->nfiles && !r->err; fi++) {
		if (j->files[fi].sides & NTP_SIDE_TARGET)
			read_range(r, fi, 0, &j->trange[r->w][fi]);
		if (!r->err && (j->files[fi].sides & NTP_SIDE_HOST))
			read_range(r, fi, 1, &j->hrange[r->w][fi]);
	}
	return NULL;
}

/* ---- the whole -------------------------------------------------------------- */

/* the readers' gaps: the reading is to start again, counted */
#define READ_GAP (-1)

/* the first error of the readers in reader order, printed once; READ_GAP, 0 when none */
static int readers_err(struct reader *rd, int n)
{
	int gap = 0;

	for (int w = 0; w < n; w++) {
		if (rd[w].err && !rd[w].gap) {
			if (rd[w].msg[0])
				ntp_error("%s", rd[w].msg);
			return rd[w].err;
		}
		gap |= rd[w].gap;
	}
	return gap ? READ_GAP : 0;
}

/*
 * The ranges of one side put end to end, file by file and within a file in
 * reader order (id order): each range's first load index, the files'
 * bounds, and whether every file's ids are dense.
 */
static size_t place_ranges(struct ntp_join *j, struct ntp_jside *s,
			   struct ntp_jrange (*range)[NTP_JOIN_MAX_FILES], const int64_t *lo,
			   const int64_t *hi, int *dense)
{
	size_t n = 0;

	*dense = 1;
	for (int fi = 0; fi < NTP_JOIN_MAX_FILES; fi++) {
		size_t first = n;

		s->file_lo[fi] = n;
		s->id0[fi] = lo[fi];
		for (int w = 0; fi < j->nfiles && w < j->nreaders; w++) {
			struct ntp_jrange *rg = &range[w][fi];

			/* planned dense: as many rows as ids */
			if (!j->counted)
				rg->n = rg->id_hi < rg->id_lo ? 0 :
					(size_t)((uint64_t)rg->id_hi - (uint64_t)rg->id_lo + 1);
			rg->idx = n;
			n += rg->n;
		}
		if (n > first && (uint64_t)(n - first) != (uint64_t)hi[fi] - (uint64_t)lo[fi] + 1)
			*dense = 0;
	}
	s->file_lo[NTP_JOIN_MAX_FILES] = n;
	return n;
}

/* the arrays of a side of n rows (the host's with controllers and, for temp.joined's order, starts) */
static int side_alloc(struct ntp_jside *s, size_t n, size_t rowsz, int host, int starts, int ids)
{
	size_t m = n ? n : 1;

	s->n = n;
	s->rows = malloc(m * rowsz);
	s->order = malloc(m * sizeof(*s->order));
	if (!s->rows || !s->order)
		return -ENOMEM;
	if (host && (!(s->ctrl = malloc(m * sizeof(*s->ctrl))) ||
		     (starts && !(s->start = malloc(m * sizeof(*s->start))))))
		return -ENOMEM;
	if (ids && !(s->ids = malloc(m * sizeof(*s->ids))))
		return -ENOMEM;
	return 0;
}

/* the ids a side of a file may have, saturated: a hostile file's span may be near 2^64 */
static uint64_t span(int64_t lo, int64_t hi)
{
	return hi < lo ? 0 : (uint64_t)hi - (uint64_t)lo >= UINT32_MAX ? UINT32_MAX :
	       (uint64_t)hi - (uint64_t)lo + 1;
}

static int nreaders(const int64_t *hlo, const int64_t *hhi, const int64_t *tlo,
		    const int64_t *thi, int nfiles)
{
	long cpus = ntp_jobs__threads();
	uint64_t rows = 0, n;

	for (int fi = 0; fi < nfiles; fi++)
		rows += span(hlo[fi], hhi[fi]) + span(tlo[fi], thi[fi]);
	n = rows / ROWS_PER_READER;
	if (!sqlite3_threadsafe())
		return 1;
	if (cpus > 0 && n > (uint64_t)cpus)
		n = (uint64_t)cpus;
	if (n > NTP_JOIN_READERS)
		n = NTP_JOIN_READERS;
	return n < 1 ? 1 : (int)n;
}

/*
 * Whether a side of a file can be planned dense: ids lo..hi may all be
 * there.  A row takes more than 16 bytes of the file, so a span of ids the
 * file could not hold is not (a hostile file's, whose arrays would not fit
 * in memory): it is counted.
 */
static int plausible(struct ntp_join *j, int fi, int64_t lo, int64_t hi)
{
	char sql[96];
	int64_t pages, size;

	if (hi < lo)
		return 1;
	snprintf(sql, sizeof(sql), "PRAGMA \"%s\".page_count", j->files[fi].schema);
	pages = ntp_join__query_int(j->db, sql, 0);
	snprintf(sql, sizeof(sql), "PRAGMA \"%s\".page_size", j->files[fi].schema);
	size = ntp_join__query_int(j->db, sql, 0);
	return pages > 0 && size > 0 && span(lo, hi) <= (uint64_t)pages * (uint64_t)size / 16;
}

/*
 * The ranges' counts of one side of file fi against the whole table's: a
 * count by ids walks the B-tree by its keys, count(*) every cell of it, so
 * the two differ only in a damaged file (cells whose ids are out of order,
 * which a scan by ids never meets).  0 or NTP_EXIT_CORRUPT, printed.
 */
static int check_counts(struct ntp_join *j, int fi, const char *table,
			struct ntp_jrange (*range)[NTP_JOIN_MAX_FILES])
{
	char sql[128];
	uint64_t sum = 0;
	int64_t all;

	for (int w = 0; w < j->nreaders; w++)
		sum += range[w][fi].n;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".%s", j->files[fi].schema, table);
	all = ntp_join__query_int(j->db, sql, -1);
	if (all >= 0 && (uint64_t)all == sum)
		return 0;
	ntp_error("%s: corrupt: reading %s commands: database disk image is malformed (%lld rows"
		  " in the table, %llu by their ids)", j->files[fi].path,
		  strcmp(table, "host_io") ? "target" : "host", (long long)all,
		  (unsigned long long)sum);
	return NTP_EXIT_CORRUPT;
}

static void side_free(struct ntp_jside *s)
{
	free(s->rows);
	free(s->order);
	free(s->ctrl);
	free(s->start);
	free(s->ids);
	s->rows = s->order = NULL;
	s->ctrl = NULL;
	s->start = s->ids = NULL;
	s->n = 0;
}

/*
 * Every reader's ranges read: placed by their ids (planned dense: a file's
 * rows are ids lo..hi, as record writes them) or by their counts
 * (j->counted), the arrays made, then the rows.  0, READ_GAP, NTP_EXIT_*.
 */
static int read_planned(struct ntp_join *j, struct reader *rd, const int64_t *hlo,
			const int64_t *hhi, const int64_t *tlo, const int64_t *thi)
{
	int hdense, tdense, err = 0;
	size_t nh, nt;

	for (int w = 0; w < j->nreaders; w++) {
		rd[w].err = rd[w].gap = 0;
		rd[w].msg[0] = '\0';
	}
	if (j->counted) {
		ntp_jobs__run(count_job, rd, sizeof(*rd), j->nreaders);
		err = readers_err(rd, j->nreaders);
		for (int fi = 0; fi < j->nfiles && !err; fi++) {
			if (j->files[fi].sides & NTP_SIDE_HOST)
				err = check_counts(j, fi, "host_io", j->hrange);
			if (!err && (j->files[fi].sides & NTP_SIDE_TARGET))
				err = check_counts(j, fi, "target_io", j->trange);
		}
		if (err)
			return err;
	}
	nh = place_ranges(j, &j->host, j->hrange, hlo, hhi, &hdense);
	nt = place_ranges(j, &j->target, j->trange, tlo, thi, &tdense);
	if (nh > UINT32_MAX || nt > UINT32_MAX) {
		if (!j->counted)
			return READ_GAP;	/* a span that large is no dense one */
		ntp_error("join: more than %u commands on one side", UINT32_MAX);
		return NTP_EXIT_FAILURE;
	}
	if (side_alloc(&j->host, nh, sizeof(struct ntp_jhost), 1, !j->opts.tag, !hdense) ||
	    side_alloc(&j->target, nt, sizeof(struct ntp_jtarget), 0, 0, !tdense))
		return j->counted ? ntp_join__nomem() : READ_GAP;
	if (j->opts.tag && !j->keep)
		err = ntp_join__keep_open(j);
	if (!err && j->keep)
		err = ntp_join__keep_targets(j, nt);
	if (!err) {
		ntp_jobs__run(read_job, rd, sizeof(*rd), j->nreaders);
		err = readers_err(rd, j->nreaders);
	}
	if (!err && j->keep && ntp_join__keep_wides(j))
		err = ntp_join__nomem();
	return err;
}

int ntp_join__read(struct ntp_join *j)
{
	/* every file's, the ones not given too: place_ranges() walks them all */
	int64_t hlo[NTP_JOIN_MAX_FILES] = { 0 }, hhi[NTP_JOIN_MAX_FILES] = { 0 };
	int64_t tlo[NTP_JOIN_MAX_FILES] = { 0 }, thi[NTP_JOIN_MAX_FILES] = { 0 };
	struct reader *rd;
	int err = 0;

	memset(j->hrange, 0, sizeof(j->hrange));
	memset(j->trange, 0, sizeof(j->trange));
	j->counted = 0;
	for (int fi = 0; fi < j->nfiles; fi++) {
		hlo[fi] = tlo[fi] = 0;	/* empty */
		hhi[fi] = thi[fi] = -1;
		if (j->files[fi].sides & NTP_SIDE_HOST)
			id_bounds(j, fi, "host_io", &hlo[fi], &hhi[fi]);
		if (j->files[fi].sides & NTP_SIDE_TARGET)
			id_bounds(j, fi, "target_io", &tlo[fi], &thi[fi]);
		j->keyed[fi][1] = has_join_key(j, fi, "host_io");
		j->keyed[fi][0] = has_join_key(j, fi, "target_io");
		if (!plausible(j, fi, hlo[fi], hhi[fi]) || !plausible(j, fi, tlo[fi], thi[fi]))
			j->counted = 1;
	}
	j->nreaders = nreaders(hlo, hhi, tlo, thi, j->nfiles);
	for (int fi = 0; fi < j->nfiles; fi++) {
		for (int w = 0; w < j->nreaders; w++) {
			struct ntp_jrange *h = &j->hrange[w][fi], *t = &j->trange[w][fi];

			*h = *t = (struct ntp_jrange){ 0, -1, 0, 0 };
			if (hhi[fi] >= hlo[fi])
				share(hlo[fi], hhi[fi], w, j->nreaders, &h->id_lo, &h->id_hi);
			if (thi[fi] >= tlo[fi])
				share(tlo[fi], thi[fi], w, j->nreaders, &t->id_lo, &t->id_hi);
		}
	}
	rd = calloc(j->nreaders, sizeof(*rd));
	if (!rd)
		return ntp_join__nomem();
	/*
	 * The readers' connections opened here, one at a time: an opening
	 * prints its own error, and two readers must not print two.
	 */
	for (int w = 0; w < j->nreaders; w++) {
		rd[w].j = j;
		rd[w].w = w;
		rd[w].last_ctrl = -1;
		for (int fi = 0; fi < j->nfiles && !err; fi++) {
			if (!w)
				rd[w].db[fi] = j->db;
			else
				err = j->reopen(j->reopen_ctx, fi, &rd[w].db[fi]);
		}
	}
	if (!err)
		err = read_planned(j, rd, hlo, hhi, tlo, thi);
	if (err == READ_GAP) {
		/* ids with gaps (rows deleted by hand): every range counted, then read again */
		side_free(&j->host);
		side_free(&j->target);
		j->counted = 1;
		err = read_planned(j, rd, hlo, hhi, tlo, thi);
	}
	for (int w = 1; w < j->nreaders; w++)
		for (int fi = 0; fi < j->nfiles; fi++)
			sqlite3_close(rd[w].db[fi]);
	free(rd);
	return err;
}
