// SPDX-License-Identifier: GPL-2.0
/*
 * From candidates to pairs (lib/join/join_base.h): each host controller bound to
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
#include "lib/join/join_base.h"

/* the controller of host row h (key order) */
static uint16_t hctrl(const struct ntp_join *j, uint32_t h)
{
	return j->host.ctrl[h];
}

/* ---- the candidates of every pair, and the binding ------------------------ */

/*
 * An array a merge appends to: *a of *n elements of sz, with room for
 * cap; it grows by half again when full.
 */
struct grow {
	void **a;
	size_t *n, cap, sz;
};

/* room in *a (*n elements of sz, NULL: none yet) for about more past *n; 0 or -ENOMEM */
static int grow_open(struct grow *g, void **a, size_t *n, size_t sz, size_t more)
{
	size_t cap = *n + more;
	void *b = realloc(*a, (cap ? cap : 1) * sz);

	if (!b)
		return -ENOMEM;
	*a = b;
	*g = (struct grow){ a, n, cap ? cap : 1, sz };
	return 0;
}

/* the place of the next element, counted in *n; NULL without memory */
static void *grow_put(struct grow *g)
{
	if (*g->n == g->cap) {
		size_t cap = g->cap + g->cap / 2 + 1;
		void *b = realloc(*g->a, cap * g->sz);

		if (!b)
			return NULL;
		*g->a = b;
		g->cap = cap;
	}
	return (unsigned char *)*g->a + (*g->n)++ * g->sz;
}

/* about one candidate a host command: room for pair p's host file's rows and a few */
static size_t pair_rows(const struct ntp_join *j, int p)
{
	int hf = j->pairs[p].host_file;

	return j->host.file_lo[hf + 1] - j->host.file_lo[hf] + 64;
}

/* where a merge of one pair puts its candidates, and counts its ok ones */
struct merge_out {
	struct ntp_join *j;
	struct grow out, out_h;	/* out_h: the ok intervals' host rows, with several pairs */
	int64_t *ok;		/* nctrls x npairs */
};

static int64_t *ok_counts(const struct ntp_join *j)
{
	return calloc((size_t)(j->nctrls ? j->nctrls : 1) * (j->npairs ? j->npairs : 1),
		      sizeof(int64_t));
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

static int add_cand(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct merge_out *mo = ctx;
	struct ntp_jcand *c = grow_put(&mo->out);

	if (!c)
		return -ENOMEM;
	*c = (struct ntp_jcand){ h, t, dist, (uint16_t)p, (uint8_t)ok };
	if (ok)
		mo->ok[(size_t)hctrl(mo->j, h) * mo->j->npairs + p]++;
	return 0;
}

void ntp_join__free_cands(struct ntp_join *j)
{
	free(j->cands);
	j->cands = NULL;
	j->ncands = 0;
}

/*
 * Every candidate of every estimated pair under (fits, tols), kept in
 * j->cands pair by pair, and the controllers bound.  Pairs without an
 * estimate have no candidates.
 */
static int gather(struct ntp_join *j, const struct ntp_join_fit *fits, const double *tols)
{
	struct merge_out mo = { j, { 0 }, { 0 }, ok_counts(j) };
	int err = mo.ok ? 0 : -ENOMEM;

	ntp_join__free_cands(j);
	for (int p = 0; p < j->npairs && !err; p++) {
		if (!j->pairs[p].estimated)
			continue;
		err = grow_open(&mo.out, (void **)&j->cands, &j->ncands, sizeof(*j->cands),
				pair_rows(j, p));
		if (!err)
			err = ntp_join__candidates(j, p, &fits[p], tols[p], add_cand, &mo);
	}
	if (!err)
		bind(j, mo.ok);
	free(mo.ok);
	return err ? ntp_join__nomem() : 0;
}

/* pass 1's ok candidates of one pair as intervals, with their host rows where several pairs bind */
static int add_okiv(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct merge_out *mo = ctx;
	struct ntp_join_iv *iv;

	if (!ok)
		return 0;
	iv = grow_put(&mo->out);
	if (!iv)
		return -ENOMEM;
	ntp_join__interval(mo->j, p, h, t, iv);
	if (mo->j->npairs > 1) {
		uint32_t *hp = grow_put(&mo->out_h);

		if (!hp)
			return -ENOMEM;
		*hp = h;
	}
	mo->ok[(size_t)hctrl(mo->j, h) * mo->j->npairs + p]++;
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
	struct merge_out mo = { j, { 0 }, { 0 }, ok_counts(j) };
	uint32_t *hs[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { NULL };
	size_t nh[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { 0 };
	int err = mo.ok ? 0 : -ENOMEM;

	for (int p = 0; p < j->npairs && !err; p++) {
		if (!j->pairs[p].estimated)
			continue;
		/*
		 * About one ok candidate a host command: room for that many at
		 * once.  One pair binds every controller with an ok candidate to
		 * itself: no interval is dropped, and none needs its host row.
		 */
		err = grow_open(&mo.out, (void **)&iv[p], &n[p], sizeof(**iv), pair_rows(j, p));
		if (!err && j->npairs > 1)
			err = grow_open(&mo.out_h, (void **)&hs[p], &nh[p], sizeof(**hs),
					pair_rows(j, p));
		if (!err)
			err = ntp_join__candidates(j, p, &fits[p], tols[p], add_okiv, &mo);
	}
	if (!err) {
		bind(j, mo.ok);
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
	free(mo.ok);
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
 * Rounds of mutual nearest among the first n candidates (the usable ones)
 * whose host and target rows are both still free: the candidate nearest
 * the line for its host row that is also the nearest for its target row is
 * a pair.  One round suffices unless candidates compete.  bh, bt: the
 * nearest candidate of a host row, of a target row; tused: a target row
 * matched.
 */
static void match_rounds(struct ntp_join *j, size_t n, uint32_t *bh, uint32_t *bt,
			 unsigned char *tused)
{
	for (int round = 0; round < NTP_JOIN_MATCH_ROUNDS; round++) {
		size_t added = 0;

		memset(bh, 0xff, j->host.n * sizeof(*bh));
		memset(bt, 0xff, j->target.n * sizeof(*bt));
		for (size_t i = 0; i < n; i++) {
			const struct ntp_jcand *c = &j->cands[i];

			if (j->host.order[c->h].match != NONE || tused[c->t])
				continue;
			if (nearer(j->cands, i, bh[c->h], 1))
				bh[c->h] = (uint32_t)i;
			if (nearer(j->cands, i, bt[c->t], 0))
				bt[c->t] = (uint32_t)i;
		}
		for (size_t i = 0; i < n; i++) {
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

/* every host row's slot filled (by load index: each written once); how many are matched */
static size_t fill_slots(struct ntp_join *j, struct slot *slot)
{
	const struct ntp_jhost *rows = j->host.rows;
	size_t n = 0;

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
	return n;
}

static int collect(struct ntp_join *j)
{
	struct slot *slot = malloc((j->host.n ? j->host.n : 1) * sizeof(*slot));
	size_t n;

	if (!slot)
		return -ENOMEM;
	n = fill_slots(j, slot);
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

/*
 * The matching: j->host.order[].match, the rejects.  The candidates of the
 * pair each host row's controller is bound to make it a reject unless
 * matched, and the ok ones of them are matched.
 */
static int match_all(struct ntp_join *j)
{
	size_t nh = j->host.n, nt = j->target.n, k = 0;
	uint32_t *bh = malloc((nh ? nh : 1) * sizeof(*bh));
	uint32_t *bt = malloc((nt ? nt : 1) * sizeof(*bt));
	unsigned char *tused = calloc(nt ? nt : 1, 1), *has = calloc(nh ? nh : 1, 1);
	int err = 0;

	if (!bh || !bt || !tused || !has) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < j->ncands; i++) {
		const struct ntp_jcand *c = &j->cands[i];

		if (j->ctrls[hctrl(j, c->h)].bound != c->pair)
			continue;
		has[c->h] = 1;
		if (c->ok)
			j->cands[k++] = *c;	/* the usable ones */
	}
	for (size_t h = 0; h < nh; h++)
		j->host.order[h].match = NONE;
	match_rounds(j, k, bh, bt, tused);
	for (size_t h = 0; h < nh; h++)
		j->counts.rejected += has[h] && j->host.order[h].match == NONE;
out:
	free(bh);
	free(bt);
	free(tused);
	free(has);
	return err;
}

int ntp_join__match(struct ntp_join *j)
{
	double tols[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES];
	int err;

	for (int p = 0; p < j->npairs; p++)
		tols[p] = j->fits[p].tol;
	ntp_jprogress__set(j->progress, "pairing commands", 0, 0);
	err = gather(j, j->fits, tols);
	if (err)
		return err;
	/* the target's times are not needed any more: its ids and order are */
	free(j->target.rows);
	j->target.rows = NULL;
	memset(&j->counts, 0, sizeof(j->counts));
	err = match_all(j);
	ntp_join__free_cands(j);
	if (!err)
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
	return err == -ENOMEM ? ntp_join__nomem() : err;
}
