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
#include "lib/core/jobs.h"
#include "lib/join/join_base.h"

/* the controller of host row h (key order) */
static uint16_t hctrl(const struct ntp_join *j, uint32_t h)
{
	return j->host.ctrl[h];
}

/* ---- the candidates of every pair, and the binding ------------------------ */

/*
 * A merge of one pair's keys is done in shares at once (ntp_join__chunks),
 * one thread a share, each counting its own ok candidates; their results
 * end to end are one merge's (join_shares.c).
 */
struct share_job {
	struct ntp_join *j;
	int p, k;
	const struct ntp_jchunk *c;
	const struct ntp_join_fit *fit;
	double tol;
	ntp_jcand_fn fn;
	struct ntp_jshares *out, *out_h;	/* out_h: the ok intervals' host rows, or NULL */
	int64_t *ok;				/* nctrls x npairs */
	int err;
};

/* the shares a merge of pair p is done in: one a reader, of at least this many host rows */
#define SHARE_ROWS 65536

static int shares_of(const struct ntp_join *j, int p, struct ntp_jchunk *c)
{
	int hf = j->pairs[p].host_file, n = j->nreaders;
	size_t rows = j->host.file_lo[hf + 1] - j->host.file_lo[hf];

	while (n > 1 && rows / (size_t)n < SHARE_ROWS)
		n--;
	return ntp_join__chunks(j, p, c, n < 1 ? 1 : n);
}

/*
 * A share's ok counts, counted at every ok candidate: in cache lines of
 * their own, not beside the other thread's (two small blocks of the heap
 * are often in one line, which both threads' counting would then pass
 * back and forth).
 */
#define LINE 64

static int64_t *ok_counts(const struct ntp_join *j)
{
	size_t len = (size_t)(j->nctrls ? j->nctrls : 1) * (j->npairs ? j->npairs : 1) *
		     sizeof(int64_t);
	int64_t *ok = aligned_alloc(LINE, (len + LINE - 1) / LINE * LINE);

	if (ok)
		memset(ok, 0, len);
	return ok;
}

/* the shares' ok counts into ok, theirs freed */
static void sum_ok(const struct ntp_join *j, int64_t *ok, struct share_job *sj, int n)
{
	size_t m = (size_t)(j->nctrls ? j->nctrls : 1) * (j->npairs ? j->npairs : 1);

	for (int k = 0; k < n; k++) {
		for (size_t i = 0; ok && sj[k].ok && i < m; i++)
			ok[i] += sj[k].ok[i];
		free(sj[k].ok);
		sj[k].ok = NULL;
	}
}

static void *share_run(void *arg)
{
	struct share_job *sj = arg;

	sj->err = ntp_join__candidates(sj->j, sj->p, sj->c, sj->fit, sj->tol, sj->fn, sj);
	return NULL;
}

/*
 * Pair p's candidates under (fit, tol), shares c[0..n) at once, fn putting
 * each into its share's outputs (opened for those shares) and counting the
 * ok ones in sj[k].ok.  0 or -ENOMEM.
 */
static int merge_shares(struct ntp_join *j, int p, const struct ntp_jchunk *c, int n,
			const struct ntp_join_fit *fit, double tol, ntp_jcand_fn fn,
			struct ntp_jshares *out, struct ntp_jshares *out_h, struct share_job *sj)
{
	int err = 0;

	for (int k = 0; k < n; k++) {
		sj[k] = (struct share_job){ j, p, k, &c[k], fit, tol, fn, out, out_h, ok_counts(j), 0 };
		if (!sj[k].ok)
			err = -ENOMEM;
	}
	if (!err)
		ntp_jobs__run(share_run, sj, sizeof(*sj), n);
	for (int k = 0; k < n && !err; k++)
		err = sj[k].err;
	return err;
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
	struct share_job *sj = ctx;
	struct ntp_jcand *c = ntp_jshares__put(sj->out, sj->k);

	if (!c)
		return -ENOMEM;
	*c = (struct ntp_jcand){ h, t, dist, (uint16_t)p, (uint8_t)ok };
	if (ok)
		sj->ok[(size_t)hctrl(sj->j, h) * sj->j->npairs + p]++;
	return 0;
}

void ntp_join__free_cands(struct ntp_join *j)
{
	free(j->cands);
	j->cands = NULL;
	j->ncands = 0;
	j->nshares = 0;
}

/*
 * Every candidate of every estimated pair under (fits, tols), kept in
 * j->cands, and the controllers bound.  Pairs without an estimate have no
 * candidates.  With one pair, j->share[] says where each share's are.
 */
static int gather(struct ntp_join *j, const struct ntp_join_fit *fits, const double *tols)
{
	int64_t *ok = ok_counts(j);
	int err = ok ? 0 : -ENOMEM;

	ntp_join__free_cands(j);
	for (int p = 0; p < j->npairs && !err; p++) {
		struct share_job sj[NTP_JOIN_READERS];
		struct ntp_jshares out;
		int n, e2;

		if (!j->pairs[p].estimated)
			continue;
		n = shares_of(j, p, j->share);
		err = ntp_jshares__open(&out, (void **)&j->cands, &j->ncands, sizeof(*j->cands),
					j->share, n);
		if (err)
			break;
		err = merge_shares(j, p, j->share, n, &fits[p], tols[p], add_cand, &out, NULL, sj);
		sum_ok(j, ok, sj, n);
		e2 = ntp_jshares__close(&out);
		err = err ? err : e2;
		/* one pair: the matching goes by the same shares (ntp_join__match) */
		if (!err && j->npairs == 1) {
			j->nshares = n;
			for (int k = 0; k < n; k++) {
				j->share_cands[k] = out.share[k].first;
				j->share_ncands[k] = out.share[k].count;
			}
		}
	}
	if (!err)
		bind(j, ok);
	free(ok);
	return err ? ntp_join__nomem() : 0;
}

/* pass 1's ok candidates of one pair as intervals, with their host rows where several pairs bind */
static int add_okiv(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist)
{
	struct share_job *sj = ctx;
	struct ntp_join_iv *iv;

	if (!ok)
		return 0;
	iv = ntp_jshares__put(sj->out, sj->k);
	if (!iv)
		return -ENOMEM;
	ntp_join__interval(sj->j, p, h, t, iv);
	if (sj->out_h) {
		uint32_t *hp = ntp_jshares__put(sj->out_h, sj->k);

		if (!hp)
			return -ENOMEM;
		*hp = h;
	}
	sj->ok[(size_t)hctrl(sj->j, h) * sj->j->npairs + p]++;
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
	size_t nh[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { 0 };
	int err = ok ? 0 : -ENOMEM;

	for (int p = 0; p < j->npairs && !err; p++) {
		struct share_job sj[NTP_JOIN_READERS];
		struct ntp_jchunk c[NTP_JOIN_READERS];
		struct ntp_jshares out, out_h;
		int ns, e2;

		if (!j->pairs[p].estimated)
			continue;
		/*
		 * About one ok candidate a host command: room for that many at
		 * once.  One pair binds every controller with an ok candidate to
		 * itself: no interval is dropped, and none needs its host row.
		 */
		ns = shares_of(j, p, c);
		err = ntp_jshares__open(&out, (void **)&iv[p], &n[p], sizeof(**iv), c, ns);
		if (err)
			break;
		if (j->npairs > 1 && (err = ntp_jshares__open(&out_h, (void **)&hs[p], &nh[p],
							      sizeof(**hs), c, ns))) {
			ntp_jshares__close(&out);
			break;
		}
		err = merge_shares(j, p, c, ns, &fits[p], tols[p], add_okiv, &out,
				   j->npairs > 1 ? &out_h : NULL, sj);
		sum_ok(j, ok, sj, ns);
		e2 = ntp_jshares__close(&out);
		err = err ? err : e2;
		if (j->npairs > 1) {
			e2 = ntp_jshares__close(&out_h);
			err = err ? err : e2;
		}
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
 * One share of the matching: its candidates j->cands[c0, c1), which name
 * its host rows [h0, h1) and target rows [t0, t1) only, so that shares are
 * matched at once, each on its own, into the arrays of all.  With several
 * pairs (a host row may be a candidate of each), one share is everything.
 */
struct match_share {
	struct ntp_join *j;
	struct ntp_jchunk c;
	size_t c0, c1;
	uint32_t *bh, *bt;		/* the nearest candidate of a host row, of a target row */
	unsigned char *tused, *has;	/* a target row matched; a host row with a bound candidate */
	int64_t rejected;
};

/*
 * Rounds of mutual nearest among the usable candidates whose host and
 * target rows are both still free: the candidate nearest the line for its
 * host row that is also the nearest for its target row is a pair.  One
 * round suffices unless candidates compete.
 */
static void match_rounds(struct match_share *m)
{
	struct ntp_join *j = m->j;

	for (int round = 0; round < NTP_JOIN_MATCH_ROUNDS; round++) {
		size_t added = 0;

		memset(m->bh + m->c.h0, 0xff, (m->c.h1 - m->c.h0) * sizeof(*m->bh));
		memset(m->bt + m->c.t0, 0xff, (m->c.t1 - m->c.t0) * sizeof(*m->bt));
		for (size_t i = m->c0; i < m->c1; i++) {
			const struct ntp_jcand *c = &j->cands[i];

			if (j->host.order[c->h].match != NONE || m->tused[c->t])
				continue;
			if (nearer(j->cands, i, m->bh[c->h], 1))
				m->bh[c->h] = (uint32_t)i;
			if (nearer(j->cands, i, m->bt[c->t], 0))
				m->bt[c->t] = (uint32_t)i;
		}
		for (size_t i = m->c0; i < m->c1; i++) {
			const struct ntp_jcand *c = &j->cands[i];

			if (m->bh[c->h] == i && m->bt[c->t] == i) {
				j->host.order[c->h].match = c->t;
				m->tused[c->t] = 1;
				added++;
			}
		}
		if (!added)
			break;
	}
}

/*
 * A share's candidates: those of the pair each host row's controller is
 * bound to make it a reject unless matched, and the ok ones of them are
 * matched; then its rejects are counted.
 */
static void *match_share_run(void *arg)
{
	struct match_share *m = arg;
	struct ntp_join *j = m->j;
	size_t k = m->c0;
	int64_t rejected = 0;	/* in a local: m shares a cache line with the other thread's */

	for (size_t i = m->c0; i < m->c1; i++) {
		const struct ntp_jcand *c = &j->cands[i];

		if (j->ctrls[hctrl(j, c->h)].bound != c->pair)
			continue;
		m->has[c->h] = 1;
		if (c->ok)
			j->cands[k++] = *c;
	}
	m->c1 = k;	/* the usable ones */
	for (size_t h = m->c.h0; h < m->c.h1; h++)
		j->host.order[h].match = NONE;
	match_rounds(m);
	for (size_t h = m->c.h0; h < m->c.h1; h++)
		rejected += m->has[h] && j->host.order[h].match == NONE;
	m->rejected = rejected;
	return NULL;
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

/* host rows [h0, h1) of key order, their slots filled (by load index: each written once) */
struct slot_job {
	struct ntp_join *j;
	size_t h0, h1;
	struct slot *slot;
	size_t n;	/* of them matched */
};

static void *slot_run(void *arg)
{
	struct slot_job *sj = arg;
	struct ntp_join *j = sj->j;
	const struct ntp_jhost *rows = j->host.rows;
	size_t n = 0;	/* in a local: sj shares a cache line with the other thread's */

	/*
	 * Key order first, as the matching left them: both sides' orders are
	 * read in step (a pair shares its key) and only the slot is written
	 * out of order, where going by load index would read both at random.
	 */
	for (size_t h = sj->h0; h < sj->h1; h++) {
		const struct ntp_jkey *k = &j->host.order[h];
		struct slot *sl = &sj->slot[k->idx];

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
	sj->n = n;
	return NULL;
}

static int collect(struct ntp_join *j)
{
	struct slot *slot = malloc((j->host.n ? j->host.n : 1) * sizeof(*slot));
	struct slot_job sj[NTP_JOIN_READERS];
	int ns = j->nreaders > 1 && j->host.n >= 2 * 65536 ? j->nreaders : 1;
	size_t n = 0;

	if (!slot)
		return -ENOMEM;
	for (int k = 0; k < ns; k++)
		sj[k] = (struct slot_job){ j, j->host.n * (size_t)k / (size_t)ns,
					   j->host.n * (size_t)(k + 1) / (size_t)ns, slot, 0 };
	ntp_jobs__run(slot_run, sj, sizeof(*sj), ns);
	for (int k = 0; k < ns; k++)
		n += sj[k].n;
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

/* every share's matching at once (one, for several pairs): j->host.order[].match, the rejects */
static int match_all(struct ntp_join *j)
{
	size_t nh = j->host.n, nt = j->target.n;
	struct match_share ms[NTP_JOIN_READERS];
	uint32_t *bh = malloc((nh ? nh : 1) * sizeof(*bh));
	uint32_t *bt = malloc((nt ? nt : 1) * sizeof(*bt));
	unsigned char *tused = calloc(nt ? nt : 1, 1), *has = calloc(nh ? nh : 1, 1);
	int n = j->nshares ? j->nshares : 1, err = 0;

	if (!bh || !bt || !tused || !has) {
		err = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < n; k++) {
		ms[k] = (struct match_share){ j, { 0, nh, 0, nt }, 0, j->ncands, bh, bt, tused, has, 0 };
		if (j->nshares) {
			ms[k].c = j->share[k];
			ms[k].c0 = j->share_cands[k];
			ms[k].c1 = j->share_cands[k] + j->share_ncands[k];
		}
	}
	/* rows no share has (keys without a target's) are unmatched and no rejects */
	for (size_t h = 0; h < nh && j->nshares; h++)
		j->host.order[h].match = NONE;
	ntp_jobs__run(match_share_run, ms, sizeof(*ms), n);
	for (int k = 0; k < n; k++)
		j->counts.rejected += ms[k].rejected;
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
