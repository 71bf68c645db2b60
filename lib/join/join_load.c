// SPDX-License-Identifier: GPL-2.0
/*
 * The join's rows (lib/join/join_priv.h), read by join_read.c in storage
 * order, put in (file, key, time, id) order so that the merges of
 * join_merge.c walk both sides key by key.  Sorting the keys' hashes (an
 * LSD radix sort over 16 bytes a row) is what makes the join linear: no SQL
 * sort, no index, no temp table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/jobs.h"
#include "lib/core/mem.h"
#include "lib/join/join_priv.h"

/* a run of keys alike in their top half: by hash, then load order, as a stable sort leaves them */
static int cmp_hash_idx(const void *pa, const void *pb)
{
	const struct ntp_jkey *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * Stable LSD radix sort by hash, tmp as large as a.  Four passes of 8-bit
 * digits over the hash's top 32 bits, which end in a: a pass writes to 256
 * places at once, which the caches hold (ten million keys sorted alone took
 * half the time of four passes of 16-bit digits).  Among n keys only about
 * n^2 / 2^33 pairs share their top 32 bits (11,600 at ten million), so a
 * run of them is put in full order by itself, where the four passes of the
 * low half would read and write every key again.  One read counts every
 * digit.
 */
static int sort_hash(struct ntp_jkey *a, struct ntp_jkey *tmp, size_t n)
{
	struct ntp_jkey *src = a, *dst = tmp, *t;
	size_t (*cnt)[256], i, k;

	if (n < 2)
		return 0;
	cnt = calloc(4, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (int d = 0; d < 4; d++)
			cnt[d][(a[i].hash >> (32 + 8 * d)) & 0xff]++;
	for (int d = 0; d < 4; d++) {
		size_t sum = 0, *c = cnt[d];

		for (int b = 0; b < 256; b++) {
			size_t m = c[b];

			c[b] = sum;
			sum += m;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i].hash >> (32 + 8 * d)) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	free(cnt);
	for (i = 0; i < n; i = k) {
		int sorted = 1;

		for (k = i + 1; k < n && a[k].hash >> 32 == a[i].hash >> 32; k++)
			if (a[k].hash < a[k - 1].hash)
				sorted = 0;
		if (!sorted)
			qsort(a + i, k - i, sizeof(*a), cmp_hash_idx);
	}
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

static int rows_in_key_order(struct ntp_jside *s, void *buf, int host, struct ntp_jspares *sp)
{
	const unsigned char *src = s->rows;
	unsigned char *dst = buf;
	const size_t sz = sizeof(struct ntp_jkey);

	for (size_t k = 0; k < s->n; k++)
		memcpy(dst + k * sz, src + (size_t)s->order[k].idx * sz, sz);
	ntp_jspares__give(sp, s->rows);
	s->rows = buf;
	if (host) {
		uint16_t *c = ntp_mem__alloc((s->n ? s->n : 1) * sizeof(*c));

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
static int order_side(struct ntp_jside *s, int host, struct ntp_jspares *sp)
{
	struct side_ctx ctx = { s->rows, host };
	struct ntp_jkey *tmp;

	/* a side without rows has no arrays: nothing to order */
	if (!s->n)
		return 0;
	tmp = ntp_jspares__take(sp, s->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	ntp_join__populate(tmp, s->n * sizeof(*tmp));
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
	return rows_in_key_order(s, tmp, host, sp);
}

/* one side's sort, on a thread of the load */
struct sorter {
	struct ntp_jspares *sp;
	struct ntp_jside *s;
	int host;
	int err;
};

static void *sort_job(void *arg)
{
	struct sorter *so = arg;

	so->err = order_side(so->s, so->host, so->sp);
	return NULL;
}

/*
 * The two sides sorted at once, when the readers ran on several threads:
 * each needs a buffer as large as its order (16 bytes a command, which then
 * holds its rows), both together no more than the matching needs later.
 */
int ntp_join__load(struct ntp_join *j)
{
	struct sorter so[2] = { { &j->spares, &j->target, 0, 0 }, { &j->spares, &j->host, 1, 0 } };
	int err = ntp_join__read(j);

	if (err)
		return err;
	ntp_jprogress__set(j->progress, "sorting commands by key", 0, 0);
	if (j->nreaders > 1) {
		ntp_jobs__run(sort_job, so, sizeof(*so), 2);
	} else {
		sort_job(&so[0]);
		sort_job(&so[1]);
	}
	return so[0].err || so[1].err ? ntp_join__nomem() : 0;
}

/* the rows and their order; the ids (temp.join_matches reads them) stay */
void ntp_join__free_rows(struct ntp_join *j)
{
	ntp_jspares__give(&j->spares, j->host.rows);
	ntp_jspares__give(&j->spares, j->host.order);
	free(j->host.ctrl);
	free(j->host.start);
	ntp_jspares__give(&j->spares, j->target.rows);
	ntp_jspares__give(&j->spares, j->target.order);
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
