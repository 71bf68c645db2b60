// SPDX-License-Identifier: GPL-2.0
/*
 * From candidates to pairs (lib/join/join_priv.h): each host controller bound to
 * the combination that agrees with most of its commands, the intervals of
 * pass 2, and the mutual-nearest matching of the final candidates, with the
 * counts and the matched commands in the output order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_priv.h"

/* the controller of host row h (key order) */
static uint16_t hctrl(const struct ntp_join *j, uint32_t h)
{
	return j->host.ctrl[h];
}

/* ---- the candidates of every pair, and the binding ------------------------ */

static int add_cand(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct ntp_join *j = ctx;

	if (j->ncands == j->capcands) {
		size_t ncap = j->capcands ? 2 * j->capcands : j->host.n + 4096;
		void *q = realloc(j->cands, ncap * sizeof(*j->cands));

		if (!q)
			return -ENOMEM;
		j->cands = q;
		j->capcands = ncap;
	}
	j->cands[j->ncands++] = (struct ntp_jcand){ h, t, dist, (uint16_t)p, (uint8_t)ok };
	return 0;
}

void ntp_join__free_cands(struct ntp_join *j)
{
	free(j->cands);
	j->cands = NULL;
	j->ncands = j->capcands = 0;
}

/*
 * Bind every controller to the pair with most ok candidates (the lowest
 * pair on a tie); one with none is bound to nothing, and none of its
 * candidates is usable.  ok[c * npairs + p] counts them.
 */
static void bind(struct ntp_join *j, const int64_t *ok)
{
	for (int c = 0; c < j->nctrls; c++) {
		const int64_t *k = ok + (size_t)c * j->npairs;

		j->ctrls[c].bound = -1;
		for (int p = 0; p < j->npairs; p++)
			if (k[p] > 0 && (j->ctrls[c].bound < 0 || k[p] > k[j->ctrls[c].bound]))
				j->ctrls[c].bound = p;
	}
}

static int64_t *ok_counts(const struct ntp_join *j)
{
	return calloc((size_t)(j->nctrls ? j->nctrls : 1) * (j->npairs ? j->npairs : 1),
		      sizeof(int64_t));
}

/*
 * Every candidate of every estimated pair under (fits, tols), kept in
 * j->cands, and the controllers bound.  Pairs without an estimate have no
 * candidates.
 */
int ntp_join__gather(struct ntp_join *j, const struct ntp_join_fit *fits, const double *tols)
{
	int64_t *ok;
	int err = 0;

	ntp_join__free_cands(j);
	for (int p = 0; p < j->npairs && !err; p++)
		if (j->pairs[p].estimated)
			err = ntp_join__candidates(j, p, &fits[p], tols[p], add_cand, j);
	ok = ok_counts(j);
	if (err || !ok) {
		free(ok);
		return ntp_join__nomem();
	}
	for (size_t i = 0; i < j->ncands; i++)
		if (j->cands[i].ok)
			ok[(size_t)hctrl(j, j->cands[i].h) * j->npairs + j->cands[i].pair]++;
	bind(j, ok);
	free(ok);
	return 0;
}

/* pass 1's ok candidates of one pair as intervals, with their host occurrences */
struct okiv {
	struct ntp_join *j;
	int64_t *ok;
	struct ntp_join_iv *iv;
	uint32_t *h;
	size_t n, cap;
};

static int add_okiv(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct okiv *b = ctx;

	if (!ok)
		return 0;
	if (b->n == b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 4096;
		void *q = realloc(b->iv, ncap * sizeof(*b->iv)), *r;

		if (!q)
			return -ENOMEM;
		b->iv = q;
		if (b->h) {
			r = realloc(b->h, ncap * sizeof(*b->h));
			if (!r)
				return -ENOMEM;
			b->h = r;
		}
		b->cap = ncap;
	}
	ntp_join__interval(b->j, p, h, t, &b->iv[b->n]);
	if (b->h)
		b->h[b->n] = h;
	b->n++;
	b->ok[(size_t)hctrl(b->j, h) * b->j->npairs + p]++;
	return 0;
}

/*
 * Pass 2's input: the intervals of every estimated pair's usable candidates
 * under (fits, tols), in the order they are found, and the controllers
 * bound.  Only the ok candidates are kept, as intervals, until the binding
 * says which are usable: nothing else of the candidates is needed.
 */
int ntp_join__pass2_intervals(struct ntp_join *j, const struct ntp_join_fit *fits,
			      const double *tols, struct ntp_join_iv **iv, size_t *n)
{
	int64_t *ok = ok_counts(j);
	uint32_t *hs[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { NULL };
	int err = ok ? 0 : -ENOMEM;

	for (int p = 0; p < j->npairs && !err; p++) {
		struct okiv b = { j, ok, NULL, NULL, 0, 0 };
		int hf = j->pairs[p].host_file;

		if (!j->pairs[p].estimated)
			continue;
		/* about one ok candidate per host command: room for that many at once */
		b.cap = j->host.file_lo[hf + 1] - j->host.file_lo[hf] + 1;
		b.iv = malloc(b.cap * sizeof(*b.iv));
		/*
		 * One pair binds every controller with an ok candidate to itself:
		 * no interval is dropped, and none needs its host occurrence.
		 */
		b.h = j->npairs > 1 ? malloc(b.cap * sizeof(*b.h)) : NULL;
		err = b.iv && (b.h || j->npairs == 1) ?
		      ntp_join__candidates(j, p, &fits[p], tols[p], add_okiv, &b) : -ENOMEM;
		iv[p] = b.iv;
		hs[p] = b.h;
		n[p] = b.n;
	}
	if (!err) {
		bind(j, ok);
		for (int p = 0; p < j->npairs; p++) {
			size_t k = 0;

			if (!hs[p])
				continue;	/* one pair: all of them */
			for (size_t i = 0; i < n[p]; i++)
				if (j->ctrls[hctrl(j, hs[p][i])].bound == p)
					iv[p][k++] = iv[p][i];
			n[p] = k;
		}
	}
	for (int p = 0; p < j->npairs; p++)
		free(hs[p]);
	free(ok);
	if (err) {
		for (int p = 0; p < j->npairs; p++) {
			free(iv[p]);
			iv[p] = NULL;
		}
		return ntp_join__nomem();
	}
	return 0;
}

/* ---- matching -------------------------------------------------------------- */

#define NONE UINT32_MAX

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
static int match_rounds(struct ntp_join *j)
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
		j->host.order[h].match = NONE;
	for (int round = 0; round < NTP_JOIN_MATCH_ROUNDS; round++) {
		size_t added = 0;

		memset(bh, 0xff, nh * sizeof(*bh));
		memset(bt, 0xff, nt * sizeof(*bt));
		for (size_t i = 0; i < j->ncands; i++) {
			const struct ntp_jcand *c = &j->cands[i];

			if (j->host.order[c->h].match != NONE || tused[c->t])
				continue;
			if (nearer(j->cands, i, bh[c->h], 1))
				bh[c->h] = (uint32_t)i;
			if (nearer(j->cands, i, bt[c->t], 0))
				bt[c->t] = (uint32_t)i;
		}
		for (size_t i = 0; i < j->ncands; i++) {
			const struct ntp_jcand *c = &j->cands[i];

			if (bh[c->h] == i && bt[c->t] == i) {
				j->host.order[c->h].match = c->t;
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

/*
 * (h_start, host_id) of two matches of one host file, h_start by load index
 * (ctx); rows are loaded in id order, so the load index orders the ids.
 */
static int cmp_match(const void *pa, const void *pb, void *ctx)
{
	const struct ntp_jmatch *a = pa, *b = pb;
	const int64_t *start = ctx;
	int64_t x = start[a->hidx], y = start[b->hidx];

	if (x != y)
		return (x > y) - (x < y);
	return (a->hidx > b->hidx) - (a->hidx < b->hidx);
}

/*
 * The matched commands host file by host file, each file's by (h_start,
 * host_id): the order of temp.joined.  A file in that order already (as
 * ntpgen.py writes them) needs no sort; one written as commands complete
 * gets one.
 */
/* a host row's match, by load index: the target row, both occurrences, the pair, the offset */
struct slot {
	int64_t offset_ns;
	uint32_t tidx, h_occ, t_occ;	/* tidx NONE: not matched */
	uint16_t pair;
} __attribute__((packed));

static int collect(struct ntp_join *j)
{
	const struct ntp_jhost *rows = j->host.rows;
	struct slot *slot = malloc((j->host.n ? j->host.n : 1) * sizeof(*slot));
	size_t n = 0;

	if (!slot)
		return -ENOMEM;
	ntp_join__huge_pages(slot, (j->host.n ? j->host.n : 1) * sizeof(*slot));
	/*
	 * Key order first, as the matching left them: both sides' orders are
	 * read in step (a pair shares its key) and only the slot is written
	 * out of order, where going by load index would read both at random.
	 */
	for (size_t h = 0; h < j->host.n; h++) {
		const struct ntp_jkey *k = &j->host.order[h];
		struct slot *sl = &slot[k->idx];

		sl->tidx = NONE;
		if (k->match == NONE)
			continue;
		const struct ntp_join_fit *fit;

		sl->tidx = j->target.order[k->match].idx;
		sl->h_occ = k->occ;
		sl->t_occ = j->target.order[k->match].occ;
		sl->pair = (uint16_t)j->ctrls[hctrl(j, (uint32_t)h)].bound;
		fit = &j->fits[sl->pair];
		/* the offset the final candidates had: the line at h_queue */
		sl->offset_ns = fit->base +
				(int64_t)round(fit->a + fit->b * (double)(rows[h].queue - fit->t0));
		n++;
	}
	/* nothing reads the orders after this: 320 MB at ten million commands a side */
	free(j->host.order);
	free(j->target.order);
	j->host.order = j->target.order = NULL;
	j->matches = malloc((n ? n : 1) * sizeof(*j->matches));
	if (!j->matches) {
		free(slot);
		return -ENOMEM;
	}
	for (int f = 0; f < j->nfiles; f++) {
		size_t first = j->nmatches;
		int sorted = 1;

		for (size_t i = j->host.file_lo[f]; i < j->host.file_lo[f + 1]; i++) {
			struct ntp_jmatch *m;

			if (slot[i].tidx == NONE)
				continue;
			m = &j->matches[j->nmatches++];
			m->pair = slot[i].pair;
			m->hidx = (uint32_t)i;
			m->tidx = slot[i].tidx;
			m->offset_ns = slot[i].offset_ns;
			m->h_occ = slot[i].h_occ;
			m->t_occ = slot[i].t_occ;
			/* no starts (opts.tag): nothing reads the order, load order stays */
			if (j->host.start && j->nmatches - first > 1 &&
			    cmp_match(m - 1, m, j->host.start) > 0)
				sorted = 0;
		}
		if (!sorted)
			qsort_r(j->matches + first, j->nmatches - first, sizeof(*j->matches), cmp_match,
				j->host.start);
	}
	free(slot);
	return 0;
}

int ntp_join__match(struct ntp_join *j)
{
	double tols[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES];
	unsigned char *has = NULL;
	size_t k = 0;
	int err;

	for (int p = 0; p < j->npairs; p++)
		tols[p] = j->fits[p].tol;
	ntp_jprogress__set(j->progress, "pairing commands", 0, 0);
	err = ntp_join__gather(j, j->fits, tols);
	if (err)
		return err;
	/* the target's times are not needed any more: its ids and order are */
	free(j->target.rows);
	j->target.rows = NULL;
	/* a candidate of its bound pair makes a host command a reject unless it is matched */
	has = calloc(j->host.n ? j->host.n : 1, 1);
	if (!has) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < j->ncands; i++) {
		const struct ntp_jcand *c = &j->cands[i];

		if (j->ctrls[hctrl(j, c->h)].bound != c->pair)
			continue;
		has[c->h] = 1;
		if (c->ok)
			j->cands[k++] = *c;
	}
	j->ncands = k;	/* the usable ones */
	err = match_rounds(j);
	ntp_join__free_cands(j);
	if (err)
		goto out;
	memset(&j->counts, 0, sizeof(j->counts));
	for (size_t h = 0; h < j->host.n; h++)
		j->counts.rejected += has[h] && j->host.order[h].match == NONE;
	free(has);
	has = NULL;
	err = collect(j);
	if (err)
		goto out;
	j->counts.host_rows = (int64_t)j->host.n;
	j->counts.target_rows = (int64_t)j->target.n;
	j->counts.matched = (int64_t)j->nmatches;
	j->counts.unmatched_host = j->counts.host_rows - j->counts.matched - j->counts.rejected;
	j->counts.unmatched_target = j->counts.target_rows - j->counts.matched;
	for (int p = 0; p < j->npairs; p++)
		j->pairs[p].matched = 0;
	for (size_t i = 0; i < j->nmatches; i++)
		j->pairs[j->matches[i].pair].matched++;
out:
	free(has);
	return err == -ENOMEM ? ntp_join__nomem() : err;
}
