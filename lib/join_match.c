// SPDX-License-Identifier: GPL-2.0
/*
 * From candidates to pairs (lib/join_priv.h): each host controller bound to
 * the combination that agrees with most of its commands, the intervals of
 * pass 2, and the mutual-nearest matching of the final candidates, with the
 * counts and the matched commands in the output order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/exit.h"
#include "lib/join_priv.h"

static const struct ntp_jhost *hrow(const struct ntp_join *j, uint32_t h)
{
	return (const struct ntp_jhost *)j->host.rows + j->host.order[h].idx;
}

static int count_ok(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct ntp_join *j = ctx;

	if (ok)
		j->ctrls[hrow(j, h)->ctrl].ok[p]++;
	return 0;
}

/*
 * Bind every controller to the pair with most ok candidates (the lowest
 * pair on a tie); one with none is bound to nothing, and none of its
 * candidates is usable.  Pairs without an estimate have no candidates.
 */
int ntp_join__bind(struct ntp_join *j, const struct ntp_join_fit *fits, const double *tols)
{
	int err = 0;

	for (int c = 0; c < j->nctrls; c++) {
		free(j->ctrls[c].ok);
		j->ctrls[c].ok = calloc(j->npairs ? j->npairs : 1, sizeof(int64_t));
		if (!j->ctrls[c].ok)
			return ntp_join__nomem();
	}
	for (int p = 0; p < j->npairs && !err; p++)
		if (j->pairs[p].estimated)
			err = ntp_join__candidates(j, p, &fits[p], tols[p], count_ok, j);
	for (int c = 0; c < j->nctrls; c++) {
		struct ntp_jctrl *k = &j->ctrls[c];

		k->bound = -1;
		for (int p = 0; p < j->npairs; p++)
			if (k->ok[p] > 0 && (k->bound < 0 || k->ok[p] > k->ok[k->bound]))
				k->bound = p;
		free(k->ok);
		k->ok = NULL;
	}
	return err;
}

struct ivbuf {
	struct ntp_join *j;
	struct ntp_join_iv *iv;
	size_t n, cap;
};

static int usable(const struct ntp_join *j, int p, uint32_t h, int ok)
{
	return ok && j->ctrls[hrow(j, h)->ctrl].bound == p;
}

static int add_iv(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct ivbuf *b = ctx;

	if (!usable(b->j, p, h, ok))
		return 0;
	if (b->n == b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 4096;
		void *q = realloc(b->iv, ncap * sizeof(*b->iv));

		if (!q)
			return -ENOMEM;
		b->iv = q;
		b->cap = ncap;
	}
	ntp_join__interval(b->j, p, h, t, &b->iv[b->n++]);
	return 0;
}

/* the intervals of pair p's usable candidates under (fit, tol), for pass 2 */
int ntp_join__refit_intervals(struct ntp_join *j, int p, const struct ntp_join_fit *fit,
			      double tol, struct ntp_join_iv **iv, size_t *n)
{
	struct ivbuf b = { j, NULL, 0, 0 };

	if (ntp_join__candidates(j, p, fit, tol, add_iv, &b)) {
		free(b.iv);
		return ntp_join__nomem();
	}
	*iv = b.iv;
	*n = b.n;
	return 0;
}

/* ---- matching -------------------------------------------------------------- */

#define NONE UINT32_MAX

struct cands {
	struct ntp_join *j;
	struct ntp_jcand *c;
	size_t n, cap;
	unsigned char *has;	/* per host: a candidate of its bound pair (a reject unless matched) */
};

static int add_cand(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct cands *b = ctx;

	if (b->j->ctrls[hrow(b->j, h)->ctrl].bound != p)
		return 0;
	b->has[h] = 1;
	if (!ok)
		return 0;
	if (b->n == b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 4096;
		void *q = realloc(b->c, ncap * sizeof(*b->c));

		if (!q)
			return -ENOMEM;
		b->c = q;
		b->cap = ncap;
	}
	b->c[b->n++] = (struct ntp_jcand){ h, t, dist };
	return 0;
}

/* a is nearer than b (an index into c, NONE: none); ties by the other side's order */
static int nearer(const struct ntp_jcand *c, size_t a, uint32_t b, int by_target)
{
	if (b == NONE)
		return 1;
	if (c[a].dist != c[b].dist)
		return c[a].dist < c[b].dist;
	return by_target ? c[a].t < c[b].t : c[a].h < c[b].h;
}

/*
 * Rounds of mutual nearest among the usable candidates whose host and
 * target rows are both still free: the candidate nearest the line for its
 * host row that is also the nearest for its target row is a pair.  One
 * round suffices unless candidates compete.
 */
static int match_rounds(struct ntp_join *j, const struct cands *b, uint32_t *hmatch)
{
	size_t nh = j->host.n, nt = j->target.n;
	uint32_t *bh = malloc((nh ? nh : 1) * sizeof(*bh));
	uint32_t *bt = malloc((nt ? nt : 1) * sizeof(*bt));
	unsigned char *tused = calloc(nt ? nt : 1, 1);

	if (!bh || !bt || !tused) {
		free(bh);
		free(bt);
		free(tused);
		return -ENOMEM;
	}
	for (size_t h = 0; h < nh; h++)
		hmatch[h] = NONE;
	for (int round = 0; round < NTP_JOIN_MATCH_ROUNDS; round++) {
		size_t added = 0;

		memset(bh, 0xff, nh * sizeof(*bh));
		memset(bt, 0xff, nt * sizeof(*bt));
		for (size_t i = 0; i < b->n; i++) {
			const struct ntp_jcand *c = &b->c[i];

			if (hmatch[c->h] != NONE || tused[c->t])
				continue;
			if (nearer(b->c, i, bh[c->h], 1))
				bh[c->h] = (uint32_t)i;
			if (nearer(b->c, i, bt[c->t], 0))
				bt[c->t] = (uint32_t)i;
		}
		for (size_t i = 0; i < b->n; i++) {
			const struct ntp_jcand *c = &b->c[i];

			if (bh[c->h] == i && bt[c->t] == i) {
				hmatch[c->h] = c->t;
				tused[c->t] = 1;
				added++;
			}
		}
		if (!added)
			break;
	}
	free(bh);
	free(bt);
	free(tused);
	return 0;
}

static int cmp_match(const void *pa, const void *pb)
{
	const struct ntp_jmatch *a = pa, *b = pb;

	if (a->start != b->start)
		return (a->start > b->start) - (a->start < b->start);
	return (a->host_id > b->host_id) - (a->host_id < b->host_id);
}

/*
 * The matched commands host file by host file, each file's by (h_start,
 * host_id): the order of temp.joined.  A file in that order already (as
 * ntpgen.py writes them) needs no sort; one written as commands complete
 * gets one.
 */
static int collect(struct ntp_join *j, const uint32_t *hmatch, const uint32_t *inv)
{
	size_t n = 0;

	for (size_t h = 0; h < j->host.n; h++)
		n += hmatch[h] != NONE;
	j->matches = malloc((n ? n : 1) * sizeof(*j->matches));
	if (!j->matches)
		return -ENOMEM;
	for (int f = 0; f < j->nfiles; f++) {
		size_t first = j->nmatches;
		int sorted = 1;

		for (size_t i = j->host.file_lo[f]; i < j->host.file_lo[f + 1]; i++) {
			uint32_t h = inv[i];
			const struct ntp_jhost *hr = (const struct ntp_jhost *)j->host.rows + i;
			struct ntp_jmatch *m;
			uint32_t t = hmatch[h];
			double e;

			if (t == NONE)
				continue;
			m = &j->matches[j->nmatches++];
			m->pair = j->ctrls[hr->ctrl].bound;
			e = j->fits[m->pair].a + j->fits[m->pair].b * (double)(hr->queue - j->fits[m->pair].t0);
			m->start = hr->start;
			m->host_id = hr->id;
			m->target_id = ((const struct ntp_jtarget *)j->target.rows +
					j->target.order[t].idx)->id;
			m->offset_ns = j->fits[m->pair].base + (int64_t)round(e);
			m->h_occ = j->host.order[h].occ;
			m->t_occ = j->target.order[t].occ;
			if (j->nmatches - first > 1 && cmp_match(m - 1, m) > 0)
				sorted = 0;
		}
		if (!sorted)
			qsort(j->matches + first, j->nmatches - first, sizeof(*j->matches), cmp_match);
	}
	return 0;
}

int ntp_join__match(struct ntp_join *j)
{
	struct cands b = { j, NULL, 0, 0, NULL };
	uint32_t *hmatch = NULL, *inv = NULL;
	double tols[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES];
	int err = 0;

	for (int p = 0; p < j->npairs; p++)
		tols[p] = j->fits[p].tol;
	err = ntp_join__bind(j, j->fits, tols);
	if (err)
		return err;
	b.has = calloc(j->host.n ? j->host.n : 1, 1);
	hmatch = malloc((j->host.n ? j->host.n : 1) * sizeof(*hmatch));
	inv = malloc((j->host.n ? j->host.n : 1) * sizeof(*inv));
	if (!b.has || !hmatch || !inv)
		err = -ENOMEM;
	ntp_jprogress__set(j->progress, "pairing commands", 0, 0);
	for (int p = 0; p < j->npairs && !err; p++)
		if (j->pairs[p].estimated)
			err = ntp_join__candidates(j, p, &j->fits[p], tols[p], add_cand, &b);
	if (!err)
		err = match_rounds(j, &b, hmatch);
	free(b.c);
	if (!err) {
		for (size_t h = 0; h < j->host.n; h++)
			inv[j->host.order[h].idx] = (uint32_t)h;
		err = collect(j, hmatch, inv);
	}
	if (!err) {
		memset(&j->counts, 0, sizeof(j->counts));
		j->counts.host_rows = (int64_t)j->host.n;
		j->counts.target_rows = (int64_t)j->target.n;
		j->counts.matched = (int64_t)j->nmatches;
		for (size_t h = 0; h < j->host.n; h++)
			j->counts.rejected += b.has[h] && hmatch[h] == NONE;
		j->counts.unmatched_host = j->counts.host_rows - j->counts.matched -
					   j->counts.rejected;
		j->counts.unmatched_target = j->counts.target_rows - j->counts.matched;
		for (int p = 0; p < j->npairs; p++)
			j->pairs[p].matched = 0;
		for (size_t i = 0; i < j->nmatches; i++)
			j->pairs[j->matches[i].pair].matched++;
	}
	free(b.has);
	free(hmatch);
	free(inv);
	return err == -ENOMEM ? ntp_join__nomem() : err;
}
