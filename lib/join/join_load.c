// SPDX-License-Identifier: GPL-2.0
/*
 * The join's rows (lib/join/join_priv.h): each side's commands read once, in
 * storage order, into compact rows, then put in (file, key, time, id) order
 * so that the merges of join_merge.c walk both sides key by key.
 *
 * A key is the 64-bit hash of (cid, slba, nlb, qid, nsid, cntlid, opcode).
 * Two keys of one file with one hash would be walked as one; at the sizes
 * of recordings (tens of millions of keys) that is ~1e-5 for a file, and it
 * costs nothing unless the two commands also lie within the same round trip
 * under the clock line.  Sorting hashes (an LSD radix sort over 16 bytes a
 * row) is what makes the join linear: no SQL sort, no index, no temp table.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_priv.h"
#include "lib/ntp/db_guard.h"

#define KEY_COLS "cid, slba, nlb, qid, nsid, cntlid, opcode"

/*
 * A file's times may be any 64-bit value.  The join's arithmetic (the
 * bounds, the intervals, the estimate's offsets) adds and subtracts at most
 * four of them, which fits 64 bits for times within +-2^60 ns (36 years:
 * no CLOCK_MONOTONIC reading is beyond).  A row's time beyond is clamped
 * there: at worst its key still matches, and its stages, which the report
 * reads from the file, are then an impossible command (overflow) of its
 * group (lib/report/report_groups.h), never a wrapped number.
 */
#define TIME_LIMIT ((int64_t)1 << 60)

#define HUGE_PAGE ((uintptr_t)2 << 20)

static int64_t col_time(sqlite3_stmt *st, int col)
{
	int64_t t = sqlite3_column_int64(st, col);

	return t < -TIME_LIMIT ? -TIME_LIMIT : t > TIME_LIMIT ? TIME_LIMIT : t;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	/* splitmix64's finalizer over the running value */
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

/* the key's hash from columns first..first+6 of st */
static uint64_t key_hash(sqlite3_stmt *st, int first)
{
	uint64_t h = 0x5bd1e995u;

	for (int c = first; c < first + 7; c++)
		h = mix(h, (uint64_t)sqlite3_column_int64(st, c));
	return h;
}

/*
 * The merges read the rows in key order, which is no order in memory: at
 * millions of rows nearly every read misses the TLB as well as the cache.
 * Huge pages, where the kernel gives them on request (transparent huge
 * pages in "madvise" mode), take the page walks away.
 */
void ntp_join__huge_pages(void *p, size_t len)
{
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE_PAGE - 1);

	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);	/* advice: refused is fine */
}

/*
 * Room for more rows: at first for all the file says it has (ids are
 * dense: max - min + 1), so that the arrays are allocated once and not
 * copied while growing; past that, doubling.
 */
/* *p resized to n elements of sz bytes; 0 or -ENOMEM (*p left as it was) */
static int resize(void *p, size_t n, size_t sz)
{
	void **pp = p, *q = realloc(*pp, n * sz);

	if (!q)
		return -ENOMEM;
	*pp = q;
	return 0;
}

static int grow(struct ntp_jside *s, size_t *cap, size_t rowsz, int64_t expect, int host)
{
	size_t ncap = *cap ? 2 * *cap : 65536;

	if (expect > 0 && s->n + (size_t)expect > *cap)
		ncap = s->n + (size_t)expect;
	if (resize(&s->rows, ncap, rowsz) || resize(&s->order, ncap, sizeof(*s->order)) ||
	    (s->ids && resize(&s->ids, ncap, sizeof(*s->ids))) ||
	    (host && (resize(&s->ctrl, ncap, sizeof(*s->ctrl)) ||
		      resize(&s->start, ncap, sizeof(*s->start)))))
		return -ENOMEM;
	ntp_join__huge_pages(s->rows, ncap * rowsz);
	ntp_join__huge_pages(s->order, ncap * sizeof(*s->order));
	*cap = ncap;
	return 0;
}

/* row s->n of file fi has id: stored only once the ids stop being dense */
static int put_id(struct ntp_jside *s, int fi, size_t cap, int64_t id)
{
	size_t k = s->n - s->file_lo[fi];

	if (!k)
		s->id0[fi] = id;
	if (!s->ids && id != s->id0[fi] + (int64_t)k) {
		s->ids = malloc(cap * sizeof(*s->ids));
		if (!s->ids)
			return -ENOMEM;
		/* this file's end is not set yet: its rows so far are dense from id0 */
		for (size_t i = 0; i < s->n; i++)
			s->ids[i] = i >= s->file_lo[fi] ? s->id0[fi] + (int64_t)(i - s->file_lo[fi]) :
				    ntp_jside__id(s, i);
	}
	if (s->ids)
		s->ids[s->n] = id;
	return 0;
}

/* the index of file fi's controller name, new if need be; -1 without memory */
static int ctrl_index(struct ntp_join *j, int fi, const char *name)
{
	struct ntp_jctrl *c;

	for (int i = j->nctrls - 1; i >= 0; i--)
		if (j->ctrls[i].file == fi && !strcmp(j->ctrls[i].name, name))
			return i;
	if (j->nctrls == UINT16_MAX)
		return -1;
	c = realloc(j->ctrls, (j->nctrls + 1) * sizeof(*c));
	if (!c)
		return -1;
	j->ctrls = c;
	c = &j->ctrls[j->nctrls];
	memset(c, 0, sizeof(*c));
	c->file = fi;
	c->bound = -1;
	c->name = strdup(name);
	if (!c->name)
		return -1;
	return j->nctrls++;
}

static int64_t side_rows(sqlite3 *db, const char *schema, const char *table)
{
	char sql[192];
	sqlite3_stmt *st;
	int64_t n = 0;

	/* two subqueries: SQLite finds a lone min() or max() in the B-tree, not both at once */
	snprintf(sql, sizeof(sql), "SELECT (SELECT max(rowid) FROM \"%s\".%s) -"
		 " (SELECT min(rowid) FROM \"%s\".%s) + 1", schema, table, schema, table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

/* file fi's host commands through db, where the file is schema */
static int load_host(struct ntp_join *j, int fi, size_t *cap, sqlite3 *db, const char *schema,
		     struct ntp_jprogress *progress)
{
	struct ntp_jside *s = &j->host;
	int64_t total = side_rows(db, schema, "host_io");
	char sql[256], last[64] = "";
	size_t first = s->n;
	sqlite3_stmt *st;
	int rc, ctrl = -1;

	snprintf(sql, sizeof(sql), "SELECT id, h_queue_ns, h_done_ns, h_start_ns, " KEY_COLS
		 ", controller FROM \"%s\".host_io ORDER BY id", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(db, j->files[fi].path, "loading host commands");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 11);
		struct ntp_jhost *h;

		if (s->n == *cap && grow(s, cap, sizeof(*h), total - (int64_t)(s->n - first), 1)) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (!name)
			name = "";
		if (ctrl < 0 || strncmp(name, last, sizeof(last))) {
			ctrl = ctrl_index(j, fi, name);
			if (ctrl < 0) {
				rc = SQLITE_NOMEM;
				break;
			}
			snprintf(last, sizeof(last), "%s", name);
		}
		h = (struct ntp_jhost *)s->rows + s->n;
		if (put_id(s, fi, *cap, sqlite3_column_int64(st, 0))) {
			rc = SQLITE_NOMEM;
			break;
		}
		h->queue = col_time(st, 1);
		h->done = col_time(st, 2);
		s->start[s->n] = col_time(st, 3);
		s->ctrl[s->n] = (uint16_t)ctrl;
		s->order[s->n].hash = key_hash(st, 4);
		s->order[s->n].idx = (uint32_t)s->n;
		s->n++;
		if (!(s->n & 0xffff))
			ntp_jprogress__set(progress, "reading host commands", s->n, total);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return ntp_join__nomem();
	if (rc != SQLITE_DONE)
		return ntp_db__fail(db, j->files[fi].path, "loading host commands");
	return 0;
}

static int load_target(struct ntp_join *j, int fi, size_t *cap)
{
	struct ntp_jside *s = &j->target;
	const char *schema = j->files[fi].schema;
	int64_t total = side_rows(j->db, schema, "target_io");
	size_t first = s->n;
	char sql[256];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT id, t_recv_ns, t_sent_ns, " KEY_COLS
		 " FROM \"%s\".target_io ORDER BY id", schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_db__fail(j->db, j->files[fi].path, "loading target commands");
	j->maxres[fi] = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_jtarget *t;

		if (s->n == *cap && grow(s, cap, sizeof(*t), total - (int64_t)(s->n - first), 0)) {
			rc = SQLITE_NOMEM;
			break;
		}
		t = (struct ntp_jtarget *)s->rows + s->n;
		if (put_id(s, fi, *cap, sqlite3_column_int64(st, 0))) {
			rc = SQLITE_NOMEM;
			break;
		}
		t->recv = col_time(st, 1);
		t->sent = col_time(st, 2);
		if (t->sent - t->recv > j->maxres[fi] || s->n == s->file_lo[fi])
			j->maxres[fi] = t->sent - t->recv;
		s->order[s->n].hash = key_hash(st, 3);
		s->order[s->n].idx = (uint32_t)s->n;
		s->n++;
		if (!(s->n & 0xffff))
			ntp_jprogress__set(j->progress, "reading target commands", s->n, total);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return ntp_join__nomem();
	if (rc != SQLITE_DONE)
		return ntp_db__fail(j->db, j->files[fi].path, "loading target commands");
	return 0;
}

/*
 * Stable LSD radix sort by hash, tmp as large as a: eight passes of 8-bit
 * digits end in a.  A pass writes to 256 places at once, which the caches
 * hold: ten million keys, sorted alone, take half the time four passes of
 * 16-bit digits (65536 places) took.  One read counts every digit.
 */
static int sort_hash(struct ntp_jkey *a, struct ntp_jkey *tmp, size_t n)
{
	struct ntp_jkey *src = a, *dst = tmp, *t;
	size_t (*cnt)[256];

	if (n < 2)
		return 0;
	cnt = calloc(8, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 8; d++)
			cnt[d][(a[i].hash >> (8 * d)) & 0xff]++;
	for (int d = 0; d < 8; d++) {
		size_t sum = 0, *c = cnt[d];

		for (int b = 0; b < 256; b++) {
			size_t k = c[b];

			c[b] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].hash >> (8 * d)) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	free(cnt);
	return 0;
}

/* the time that orders a side's occurrences of one key */
struct side_ctx {
	const void *rows;
	int host;
};

static int64_t row_time(const struct side_ctx *c, uint32_t idx)
{
	return c->host ? ((const struct ntp_jhost *)c->rows)[idx].queue :
			 ((const struct ntp_jtarget *)c->rows)[idx].recv;
}

/* within one key: time, then id (load order is id order: the index) */
static int cmp_time(const void *pa, const void *pb, void *ctx)
{
	const struct ntp_jkey *a = pa, *b = pb;
	int64_t x = row_time(ctx, a->idx), y = row_time(ctx, b->idx);

	if (x != y)
		return (x > y) - (x < y);
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * The rows, and the host's controllers, put in key order: rows[k] = the row
 * order[k] names.  The rows go into the sort's buffer, of their size (a
 * gather: its reads are independent, so many are in flight at once).
 */
_Static_assert(sizeof(struct ntp_jhost) == sizeof(struct ntp_jkey) &&
	       sizeof(struct ntp_jtarget) == sizeof(struct ntp_jkey),
	       "a side's rows fit in its sort buffer");

static int rows_in_key_order(struct ntp_jside *s, void *buf, int host)
{
	const unsigned char *src = s->rows;
	unsigned char *dst = buf;
	const size_t sz = sizeof(struct ntp_jkey);

	for (size_t k = 0; k < s->n; k++)
		memcpy(dst + k * sz, src + (size_t)s->order[k].idx * sz, sz);
	free(s->rows);
	s->rows = buf;
	if (host) {
		uint16_t *c = malloc((s->n ? s->n : 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		for (size_t k = 0; k < s->n; k++)
			c[k] = s->ctrl[s->order[k].idx];
		free(s->ctrl);
		s->ctrl = c;
	}
	return 0;
}

/*
 * (file, key, time, id) order, of the keys and then of the rows.  The radix
 * sort keeps load order within a key, which is time order in recordings
 * written as commands complete, nearly: a run found out of order is sorted
 * by itself.
 */
static int order_side(struct ntp_jside *s, int host)
{
	struct side_ctx ctx = { s->rows, host };
	struct ntp_jkey *tmp;

	/* a side without rows has no arrays: nothing to order */
	if (!s->n)
		return 0;
	tmp = malloc(s->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	ntp_join__huge_pages(tmp, s->n * sizeof(*tmp));
	for (int f = 0; f < NTP_JOIN_MAX_FILES; f++) {
		size_t n = s->file_lo[f + 1] - s->file_lo[f], i, k;
		struct ntp_jkey *o;

		if (!n)
			continue;
		o = s->order + s->file_lo[f];
		if (sort_hash(o, tmp + s->file_lo[f], n)) {
			free(tmp);
			return -ENOMEM;
		}
		for (i = 0; i < n; i = k) {
			int sorted = 1;

			for (k = i + 1; k < n && o[k].hash == o[i].hash; k++)
				if (sorted && cmp_time(&o[k - 1], &o[k], &ctx) > 0)
					sorted = 0;
			if (!sorted)
				qsort_r(o + i, k - i, sizeof(*o), cmp_time, &ctx);
			for (size_t m = i; m < k; m++)
				o[m].occ = (uint32_t)(m - i + 1);
		}
	}
	return rows_in_key_order(s, tmp, host);
}

/*
 * One side's sort at a time: each needs a buffer as large as its order
 * (16 bytes a command, which then holds its rows), and two at once would be
 * the load's peak.
 */
static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;

static int order_side_alone(struct ntp_jside *s, int host)
{
	int err;

	pthread_mutex_lock(&sort_lock);
	err = order_side(s, host);
	pthread_mutex_unlock(&sort_lock);
	return err;
}

/*
 * The host side is read on a thread of its own, each file on its own
 * connection (SQLite serializes the calls on one), while this thread reads
 * the target side: the two halves of the reading, and their sorts, overlap.
 */
struct host_loader {
	struct ntp_join *j;
	int err;
};

static void *load_hosts(void *arg)
{
	struct host_loader *l = arg;
	struct ntp_join *j = l->j;
	size_t cap = 0;

	for (int fi = 0; fi < j->nfiles && !l->err; fi++) {
		sqlite3 *db = NULL;

		j->host.file_lo[fi] = j->host.n;
		if (!(j->files[fi].sides & NTP_JOIN_HOST))
			continue;
		/* guarded as the join's connection is (lib/ntp/db_guard.h) */
		l->err = ntp_db__open_again(&db, j->files[fi].path);
		if (!l->err)
			l->err = load_host(j, fi, &cap, db, "main", NULL);
		sqlite3_close(db);
	}
	for (int fi = j->nfiles; fi <= NTP_JOIN_MAX_FILES; fi++)
		j->host.file_lo[fi] = j->host.n;
	if (!l->err && order_side_alone(&j->host, 1))
		l->err = ntp_join__nomem();
	return NULL;
}

int ntp_join__load(struct ntp_join *j)
{
	struct host_loader hl = { j, 0 };
	pthread_t thread;
	size_t tcap = 0;
	int started, err = 0;

	started = !pthread_create(&thread, NULL, load_hosts, &hl);
	for (int fi = 0; fi < NTP_JOIN_MAX_FILES; fi++) {
		j->target.file_lo[fi] = j->target.n;
		if (!err && fi < j->nfiles && (j->files[fi].sides & NTP_JOIN_TARGET))
			err = load_target(j, fi, &tcap);
	}
	j->target.file_lo[NTP_JOIN_MAX_FILES] = j->target.n;
	/* from here on, the core the target's load leaves is the read-ahead's */
	if (!err && j->opts.read_ahead)
		err = ntp_join__read_ahead(j);
	ntp_jprogress__set(j->progress, "sorting commands by key", 0, 0);
	if (!err && order_side_alone(&j->target, 0))
		err = ntp_join__nomem();
	if (started)
		pthread_join(thread, NULL);
	else
		load_hosts(&hl);
	if (!err)
		err = hl.err;
	if (!err && (j->host.n > UINT32_MAX || j->target.n > UINT32_MAX)) {
		ntp_error("join: more than %u commands on one side", UINT32_MAX);
		err = NTP_EXIT_FAILURE;
	}
	return err;
}

/* the rows and their order; the ids (temp.join_matches reads them) stay */
void ntp_join__free_rows(struct ntp_join *j)
{
	free(j->host.rows);
	free(j->host.order);
	free(j->host.ctrl);
	free(j->host.start);
	free(j->target.rows);
	free(j->target.order);
	j->host.rows = j->host.order = j->target.rows = j->target.order = NULL;
	j->host.ctrl = NULL;
	j->host.start = NULL;
}

void ntp_join__free_ids(struct ntp_join *j)
{
	free(j->host.ids);
	free(j->target.ids);
	j->host.ids = j->target.ids = NULL;
}
