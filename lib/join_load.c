// SPDX-License-Identifier: GPL-2.0
/*
 * The join's rows (lib/join_priv.h): each side's commands read once, in
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/exit.h"
#include "lib/join_priv.h"

#define KEY_COLS "cid, slba, nlb, qid, nsid, cntlid, opcode"

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

static int grow(struct ntp_jside *s, size_t *cap, size_t rowsz)
{
	size_t ncap = *cap ? 2 * *cap : 65536;
	void *r = realloc(s->rows, ncap * rowsz);
	void *o;

	if (!r)
		return -ENOMEM;
	s->rows = r;
	o = realloc(s->order, ncap * sizeof(*s->order));
	if (!o)
		return -ENOMEM;
	s->order = o;
	*cap = ncap;
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
	char sql[128];
	sqlite3_stmt *st;
	int64_t n = 0;

	snprintf(sql, sizeof(sql), "SELECT max(rowid) - min(rowid) + 1 FROM \"%s\".%s", schema, table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

static int load_host(struct ntp_join *j, int fi, size_t *cap)
{
	struct ntp_jside *s = &j->host;
	const char *schema = j->files[fi].schema;
	int64_t total = side_rows(j->db, schema, "host_io");
	char sql[256], last[64] = "";
	sqlite3_stmt *st;
	int rc, ctrl = -1;

	snprintf(sql, sizeof(sql), "SELECT id, h_queue_ns, h_done_ns, h_start_ns, " KEY_COLS
		 ", controller FROM \"%s\".host_io", schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "loading host commands");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 11);
		struct ntp_jhost *h;

		if (s->n == *cap && grow(s, cap, sizeof(*h))) {
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
		h->id = sqlite3_column_int64(st, 0);
		h->queue = sqlite3_column_int64(st, 1);
		h->done = sqlite3_column_int64(st, 2);
		h->start = sqlite3_column_int64(st, 3);
		h->ctrl = (uint16_t)ctrl;
		h->file = (uint8_t)fi;
		s->order[s->n].hash = key_hash(st, 4);
		s->order[s->n].idx = (uint32_t)s->n;
		s->n++;
		if (!(s->n & 0xffff))
			ntp_jprogress__set(j->progress, "reading host commands", s->n, total);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return ntp_join__nomem();
	if (rc != SQLITE_DONE)
		return ntp_join__sql_fail(j->db, "loading host commands");
	return 0;
}

static int load_target(struct ntp_join *j, int fi, size_t *cap)
{
	struct ntp_jside *s = &j->target;
	const char *schema = j->files[fi].schema;
	int64_t total = side_rows(j->db, schema, "target_io");
	char sql[256];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT id, t_recv_ns, t_sent_ns, " KEY_COLS
		 " FROM \"%s\".target_io", schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "loading target commands");
	j->maxres[fi] = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_jtarget *t;

		if (s->n == *cap && grow(s, cap, sizeof(*t))) {
			rc = SQLITE_NOMEM;
			break;
		}
		t = (struct ntp_jtarget *)s->rows + s->n;
		t->id = sqlite3_column_int64(st, 0);
		t->recv = sqlite3_column_int64(st, 1);
		t->sent = sqlite3_column_int64(st, 2);
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
		return ntp_join__sql_fail(j->db, "loading target commands");
	return 0;
}

/* stable LSD radix sort by hash, 16-bit digits: four passes end in a */
static int sort_hash(struct ntp_jkey *a, size_t n)
{
	struct ntp_jkey *tmp, *src = a, *dst;
	size_t *cnt;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	cnt = malloc(65536 * sizeof(*cnt));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		return -ENOMEM;
	}
	dst = tmp;
	for (unsigned int shift = 0; shift < 64; shift += 16) {
		size_t sum = 0;

		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(src[i].hash >> shift) & 0xffff]++;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i].hash >> shift) & 0xffff]++] = src[i];
		struct ntp_jkey *t = src;

		src = dst;
		dst = t;
	}
	free(tmp);
	free(cnt);
	return 0;
}

/* the time that orders a side's occurrences of one key */
static const void *sort_rows;
static int sort_host;

static int64_t row_time(uint32_t idx)
{
	return sort_host ? ((const struct ntp_jhost *)sort_rows)[idx].queue :
			   ((const struct ntp_jtarget *)sort_rows)[idx].recv;
}

/* within one key: time, then id (load order is id order: the index) */
static int cmp_time(const void *pa, const void *pb)
{
	const struct ntp_jkey *a = pa, *b = pb;
	int64_t x = row_time(a->idx), y = row_time(b->idx);

	if (x != y)
		return (x > y) - (x < y);
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * (file, key, time, id) order.  The radix sort keeps load order within a
 * key, which is time order in recordings written as commands complete,
 * nearly: a run found out of order is sorted by itself.
 */
static int order_side(struct ntp_jside *s, int host)
{
	sort_rows = s->rows;
	sort_host = host;
	for (int f = 0; f < NTP_JOIN_MAX_FILES; f++) {
		struct ntp_jkey *o = s->order + s->file_lo[f];
		size_t n = s->file_lo[f + 1] - s->file_lo[f], i, k;

		if (sort_hash(o, n))
			return -ENOMEM;
		for (i = 0; i < n; i = k) {
			int sorted = 1;

			for (k = i + 1; k < n && o[k].hash == o[i].hash; k++)
				if (sorted && cmp_time(&o[k - 1], &o[k]) > 0)
					sorted = 0;
			if (!sorted)
				qsort(o + i, k - i, sizeof(*o), cmp_time);
			for (size_t m = i; m < k; m++)
				o[m].occ = (uint32_t)(m - i + 1);
		}
	}
	return 0;
}

int ntp_join__load(struct ntp_join *j)
{
	size_t hcap = 0, tcap = 0;
	int err = 0;

	for (int fi = 0; fi < NTP_JOIN_MAX_FILES; fi++) {
		j->host.file_lo[fi] = j->host.n;
		j->target.file_lo[fi] = j->target.n;
		if (fi >= j->nfiles)
			continue;
		if (!err && (j->files[fi].sides & NTP_JOIN_HOST))
			err = load_host(j, fi, &hcap);
		j->target.file_lo[fi] = j->target.n;
		if (!err && (j->files[fi].sides & NTP_JOIN_TARGET))
			err = load_target(j, fi, &tcap);
	}
	j->host.file_lo[NTP_JOIN_MAX_FILES] = j->host.n;
	j->target.file_lo[NTP_JOIN_MAX_FILES] = j->target.n;
	if (err)
		return err;
	if (j->host.n > UINT32_MAX || j->target.n > UINT32_MAX) {
		ntp_error("join: more than %u commands on one side", UINT32_MAX);
		return NTP_EXIT_FAILURE;
	}
	ntp_jprogress__set(j->progress, "sorting commands by key", 0, 0);
	if (order_side(&j->host, 1) || order_side(&j->target, 0))
		return ntp_join__nomem();
	return 0;
}

void ntp_join__free_rows(struct ntp_join *j)
{
	free(j->host.rows);
	free(j->host.order);
	free(j->target.rows);
	free(j->target.order);
	memset(&j->host, 0, sizeof(j->host));
	memset(&j->target, 0, sizeof(j->target));
}
