// SPDX-License-Identifier: GPL-2.0
/*
 * The join's rows (lib/join/join_base.h), read by join_read.c in storage
 * order, put in (file, key, time, id) order so that the merges of
 * join_merge.c walk both sides key by key.  Sorting the keys' hashes (a
 * radix sort over 16 bytes a row, below) is what makes the join linear: no
 * SQL sort, no index, no temp table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/jobs.h"
#include "lib/join/join_base.h"

/* a run of keys alike in their top half: by hash, then load order, as a stable sort leaves them */
static int cmp_hash_idx(const void *pa, const void *pb)
{
	const struct ntp_jkey *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * A stable sort by the hash's top 32 bits, then each run alike in them put
 * in full order by itself: among n keys only about n^2 / 2^33 pairs share
 * their top 32 bits (11,600 at ten million), where four more radix passes
 * over the low half would read and write every key again.  The radix sort
 * is LSD, 8 bits a pass, a -> tmp -> a -> tmp -> a; one read counts the
 * four digits.
 */
#define DIGIT(h, d) ((size_t)((h) >> (32 + 8 * (d))) & 0xff)

void ntp_join__sort_keys(struct ntp_jkey *a, struct ntp_jkey *tmp, size_t n)
{
	size_t cnt[4][256] = { { 0 } }, i, k;
	struct ntp_jkey *src = a, *dst = tmp, *t;

	for (i = 0; i < n; i++)
		for (int d = 0; d < 4; d++)
			cnt[d][DIGIT(a[i].hash, d)]++;
	for (int d = 0; d < 4; d++) {
		size_t sum = 0, *c = cnt[d];

		for (int b = 0; b < 256; b++) {
			size_t m = c[b];

			c[b] = sum;
			sum += m;
		}
		for (i = 0; i < n; i++)
			dst[c[DIGIT(src[i].hash, d)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* four passes: the keys are in a */
	for (i = 0; i < n; i = k) {
		int sorted = 1;

		for (k = i + 1; k < n && a[k].hash >> 32 == a[i].hash >> 32; k++)
			if (a[k].hash < a[k - 1].hash)
				sorted = 0;
		if (!sorted)
			qsort(a + i, k - i, sizeof(*a), cmp_hash_idx);
	}
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
 * gather: its reads are independent, so many are in flight at once), each
 * thread its share of k.
 */
_Static_assert(sizeof(struct ntp_jhost) == sizeof(struct ntp_jkey) &&
	       sizeof(struct ntp_jtarget) == sizeof(struct ntp_jkey),
	       "a side's rows fit in its sort buffer");

struct gather {
	const struct ntp_jside *s;
	void *rows;			/* into: the rows in key order */
	uint16_t *ctrl;			/* into: the host's controllers in key order, or NULL */
	size_t lo, hi;
};

static void *gather_job(void *arg)
{
	const struct gather *g = arg;
	const struct ntp_jkey *o = g->s->order;
	const unsigned char *src = g->s->rows;
	unsigned char *dst = g->rows;
	const size_t sz = sizeof(struct ntp_jkey);

	for (size_t k = g->lo; k < g->hi; k++)
		memcpy(dst + k * sz, src + (size_t)o[k].idx * sz, sz);
	if (g->ctrl)
		for (size_t k = g->lo; k < g->hi; k++)
			g->ctrl[k] = g->s->ctrl[o[k].idx];
	return NULL;
}

static int rows_in_key_order(struct ntp_jside *s, void *buf, int host, int nt)
{
	struct gather g[NTP_JOIN_READERS];
	uint16_t *c = NULL;

	if (host && !(c = malloc((s->n ? s->n : 1) * sizeof(*c)))) {
		free(buf);
		return -ENOMEM;
	}
	for (int t = 0; t < nt; t++)
		g[t] = (struct gather){ s, buf, c, s->n * (size_t)t / (size_t)nt,
					s->n * (size_t)(t + 1) / (size_t)nt };
	ntp_jobs__run(gather_job, g, sizeof(*g), nt);
	free(s->rows);
	s->rows = buf;
	if (host) {
		free(s->ctrl);
		s->ctrl = c;
	}
	return 0;
}

/*
 * (file, key, time, id) order, of the keys and then of the rows, on nt
 * threads.  The radix sort keeps load order within a key, which is time
 * order in recordings written as commands complete, nearly: a run found
 * out of order is sorted by itself.
 */
static int order_side(struct ntp_jside *s, int host, int nt)
{
	struct side_ctx ctx = { s->rows, host };
	struct ntp_jkey *tmp;

	/* a side without rows has no arrays: nothing to order */
	if (!s->n)
		return 0;
	tmp = malloc(s->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (int f = 0; f < NTP_JOIN_MAX_FILES; f++) {
		size_t n = s->file_lo[f + 1] - s->file_lo[f], i, k;
		struct ntp_jkey *o;

		if (!n)
			continue;
		o = s->order + s->file_lo[f];
		ntp_join__sort_keys(o, tmp + s->file_lo[f], n);
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
	return rows_in_key_order(s, tmp, host, nt);
}

/*
 * The target's side, then the host's, each on the readers' threads: one
 * sort buffer (16 bytes a command) alive at a time.
 */
int ntp_join__load(struct ntp_join *j)
{
	int err = ntp_join__read(j), nt;

	if (err)
		return err;
	ntp_jprogress__set(j->progress, "sorting commands by key", 0, 0);
	nt = j->nreaders < 1 ? 1 : j->nreaders < NTP_JOIN_READERS ? j->nreaders : NTP_JOIN_READERS;
	if (order_side(&j->target, 0, nt) || order_side(&j->host, 1, nt))
		return ntp_join__nomem();
	return 0;
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
