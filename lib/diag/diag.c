// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnosis (diag.h): each group's evidence, from the report model
 * (its groups, and what its scan gathered beside the stages:
 * lib/model/model_evidence.h), and the rules (diag_rules.c) applied to it.
 *
 * Host side, per file, through the report's read filters:
 *   per group and queue: commands, errors (status != 0, the first status),
 *     sends deferred to the queue's io_work (host_io flag 32) and inline,
 *     and the mean time from h_queue to the send of each;
 *   per queue (controller, qid): commands, the mean h_queue to h_done and
 *     the processes submitting to it where the recording has them.
 *     Little's law: in flight = commands/s (n x N / duration) x mean
 *     h_queue to h_done, the commands a queue holds from their command
 *     ids' assignment to their completion.
 * Storage: the storage stage's own Little's law (the sampled commands'
 * rate, so a load that ntprof does not see is not in it).
 *
 * A group's host queue is the busiest of the queues its commands used; the
 * recording's, the busiest of all.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/grow.h"
#include "lib/core/size.h"
#include "lib/core/stat_table.h"
#include "lib/diag/diag.h"
#include "lib/diag/diag_depth.h"
#include "lib/fmt/safe_text.h"
#include "lib/model/model_backend.h"
#include "lib/model/model_by.h"
#include "lib/model/model_evidence.h"
#include "lib/model/model_files.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_view.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_role.h"

/* one queue of one host file */
/* a controller's name as kept: a longer one (a hostile file's) is cut alike everywhere */
#define NTP_DIAG_CTRL_LEN 16

struct dq {
	int file;
	char ctrl[NTP_DIAG_CTRL_LEN];
	int64_t qid;
	uint64_t n;
	double mean_ns;           /* h_queue to h_done */
	double rate;              /* commands/s, estimated; < 0 unknown */
	int submitters;           /* processes; 0 when the file does not tell */
	int64_t depth;            /* meta host_queue_depth's; -1 not stated */
};

/* one group's share of one queue, as the per-group query gives it */
struct dgq {
	int file;
	char io_type[8];          /* the view's: read, write, other */
	char *ns;
	int64_t bytes;
	char ctrl[NTP_DIAG_CTRL_LEN];
	int64_t qid;
	uint64_t errors, deferred, inline_sends, off_cpu, on_cpu;
	int64_t first_status;
	double deferred_sum, inline_sum, off_cpu_sum, on_cpu_sum;
};

struct ntp_diag_gather {
	struct dq *q;
	size_t nq;
	struct dgq *gq;
	size_t ngq;
	int64_t resets;           /* the host files' controller resets; -1 none tells */
	struct ntp_backend_dev *bk;   /* the target files' backend devices */
	size_t nbk;
};

static void gather_free(struct ntp_diag_gather *g)
{
	for (size_t i = 0; i < g->ngq; i++)
		free(g->gq[i].ns);
	free(g->q);
	free(g->gq);
	free(g->bk);
}

static void copy(char *dst, size_t len, const unsigned char *src)
{
	snprintf(dst, len, "%s", src ? (const char *)src : "");
}

/* the evidence's group rows of file into g, in GROUP BY's order */
static int keep_groups(struct ntp_diag_gather *g, const struct ntp_evidence *ev, int file)
{
	for (size_t i = 0; i < ev->ngroups; i++) {
		const struct ntp_evidence_row *a = &ev->groups[i];
		struct dgq *q;

		if (ntp_grow__for((void **)&g->gq, g->ngq, sizeof(*g->gq)))
			return -ENOMEM;
		q = &g->gq[g->ngq];
		memset(q, 0, sizeof(*q));
		q->file = file;
		copy(q->io_type, sizeof(q->io_type), (const unsigned char *)a->io_type);
		q->ns = strdup(a->ns);
		if (!q->ns)
			return -ENOMEM;
		g->ngq++;
		q->bytes = a->bytes;
		copy(q->ctrl, sizeof(q->ctrl), (const unsigned char *)a->ctrl);
		q->qid = a->qid;
		q->errors = a->errors;
		q->first_status = a->has_status ? a->first_status : 0;
		q->deferred = a->deferred;
		q->inline_sends = a->inline_sends;
		q->deferred_sum = a->deferred_sum;
		q->inline_sum = a->inline_sum;
		q->off_cpu = a->off_cpu;
		q->on_cpu = a->on_cpu;
		q->off_cpu_sum = a->off_cpu_sum;
		q->on_cpu_sum = a->on_cpu_sum;
	}
	return 0;
}

/*
 * The time the file's rows span: the first one's start to the last one's
 * end, when they are at least NTP_BY_SPAN_MIN_N, else window (the
 * filters' window of the recording).  The time over which Little's law
 * takes a rate: a recording that waited for its workload to start, or
 * outlived it, would spread the commands over time they did not run in.
 */
static int64_t rows_span(const struct ntp_evidence *ev, int64_t window)
{
	int64_t lo = ev->first_start, hi = ev->last_done, d;

	/* times that cannot be (a span past 64 bits) leave the window's */
	if (ev->rows >= NTP_BY_SPAN_MIN_N && hi > lo &&
	    !__builtin_sub_overflow(hi, lo, &d) && (window <= 0 || d < window))
		return d;
	return window;
}

/* the host file i's evidence, as the model gathered it, into g */
static int host_queries(struct ntp_diag_gather *g, struct ntp_diag_sources *has, const struct ntp_report *r,
			struct ntp_source *s, int i)
{
	const struct ntp_report_header *h = &r->files[i].hdr;
	const struct ntp_evidence *ev = r->files[i].evidence;
	int64_t span = rows_span(ev, ntp_read_filter__window_ns(r->filter, h->duration_ns));
	char *depths;             /* meta host_queue_depth */
	int rc = keep_groups(g, ev, i);

	depths = rc ? NULL : ntp_source__meta_text(s, i, NTP_META_HOST_QUEUE_DEPTH);
	for (size_t k = 0; k < ev->nqueues && !rc; k++) {
		const struct ntp_evidence_row *a = &ev->queues[k];
		struct dq *q;

		if (ntp_grow__for((void **)&g->q, g->nq, sizeof(*g->q))) {
			rc = -ENOMEM;
			break;
		}
		q = &g->q[g->nq++];
		memset(q, 0, sizeof(*q));
		q->file = i;
		copy(q->ctrl, sizeof(q->ctrl), (const unsigned char *)a->ctrl);
		q->qid = a->qid;
		q->n = a->n;
		q->mean_ns = a->mean_n ? a->mean_sum / (double)a->mean_n : 0;
		q->submitters = ev->pid ? a->pids : 0;
		has->submitters |= q->submitters > 0;
		q->rate = span > 0 && h->sample_one_in > 0 ?
			  (double)q->n * (double)h->sample_one_in / ((double)span / 1e9) : -1;
		q->depth = ntp_diag__depth_in(depths, q->ctrl);
	}
	free(depths);
	return rc;
}

/* the queue's commands in flight by Little's law; < 0 unknown */
static double queue_inflight(const struct dq *q)
{
	return q->rate >= 0 ? q->rate * q->mean_ns / 1e9 : -1;
}

static void set_host_queue(struct ntp_diag_queue *out, const struct dq *q,
			   const struct ntp_diag_sources *has)
{
	double l = queue_inflight(q);

	if (l < 0 || (out->known && l <= out->inflight))
		return;
	out->known = true;
	snprintf(out->name, sizeof(out->name), "%s q%" PRId64, q->ctrl, q->qid);
	ntp_safe__clean_line(out->name);     /* a name from the file */
	out->inflight = l;
	out->depth = q->depth;
	out->submitters = q->submitters;
	out->submitter = q->submitters && has->submitters ? "processes" : NULL;
}

/* queues in (file, qid, controller) order, found by bsearch */
static int cmp_dq(const void *a, const void *b)
{
	const struct dq *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->qid != y->qid)
		return x->qid < y->qid ? -1 : 1;
	return strcmp(x->ctrl, y->ctrl);
}

static const struct dq *find_queue(const struct ntp_diag_gather *g, int file, const char *ctrl, int64_t qid)
{
	struct dq key = { .file = file, .qid = qid };

	snprintf(key.ctrl, sizeof(key.ctrl), "%s", ctrl);
	return g->nq ? bsearch(&key, g->q, g->nq, sizeof(*g->q), cmp_dq) : NULL;
}

/* a group's rows: (file, bytes, io_type, namespace) order, its range by binary search */
static int cmp_key(int fa, int64_t ba, const char *ta, const char *na, int fb, int64_t bb,
		   const char *tb, const char *nb)
{
	int c;

	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (ba != bb)
		return ba < bb ? -1 : 1;
	c = strcmp(ta, tb);
	return c ? c : strcmp(na, nb);
}

static int cmp_dgq(const void *a, const void *b)
{
	const struct dgq *x = a, *y = b;

	return cmp_key(x->file, x->bytes, x->io_type, x->ns, y->file, y->bytes, y->io_type, y->ns);
}

/* the first of g's rows of grp's key (g->ngq when none) */
static size_t first_row(const struct ntp_diag_gather *g, const struct ntp_report_group *grp)
{
	size_t lo = 0, hi = g->ngq;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dgq *q = &g->gq[mid];

		if (cmp_key(q->file, q->bytes, q->io_type, q->ns, grp->host_file - 1, grp->bytes,
			    grp->io_type, grp->ns) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* how full b is: in flight over the depth, else in flight */
static double fullness(const struct ntp_backend_dev *b)
{
	return b->depth > 0 ? b->aqu / (double)b->depth : b->aqu;
}

/*
 * The backend: dev's counters (NULL: the fullest device's) where the
 * recording has them, else the storage stage's Little's law at rate, its
 * depth then not stated
 */
static void set_backend(struct ntp_diag_evidence *e, const struct ntp_diag_gather *g, const char *dev,
			double rate)
{
	const struct ntp_backend_dev *best = NULL;
	int st = -1;

	for (size_t i = 0; i < g->nbk; i++)
		if ((!dev || !strcmp(g->bk[i].dev, dev)) && (!best || fullness(&g->bk[i]) >
							     fullness(best)))
			best = &g->bk[i];
	if (best) {
		e->backend.known = true;
		e->backend.measured = true;
		snprintf(e->backend.name, sizeof(e->backend.name), "backend %s", best->dev);
		ntp_safe__clean_line(e->backend.name);
		e->backend.inflight = best->aqu;
		e->backend.depth = best->depth;
		return;
	}

	for (int i = 0; i < e->nstages; i++)
		if (e->stage[i] == NTP_STAGE_STORAGE)
			st = i;
	if (st < 0 || rate < 0)
		return;
	e->backend.known = true;
	snprintf(e->backend.name, sizeof(e->backend.name), "backend");
	e->backend.inflight = rate * e->mean_ns[st] / 1e9;
	e->backend.depth = -1;
}

/*
 * The lesser of the two sides' shares of rows the join left unpaired, %.  A
 * side alone may keep rows of its own (a host's other targets, a target's
 * other hosts); rows of both unpaired are commands the clocks' one line
 * could not pair.
 */
static double unpaired_pct(const struct ntp_join_counts *c)
{
	if (c->host_rows <= 0 || c->target_rows <= 0)
		return 0;
	return fmin(100.0 * (double)(c->host_rows - c->matched) / (double)c->host_rows,
		    100.0 * (double)(c->target_rows - c->matched) / (double)c->target_rows);
}

/* the join's clock for the commands of host file hf (from 0; -1: every file) */
static void set_clock(struct ntp_diag_evidence *e, const struct ntp_report *r, int hf)
{
	const struct ntp_join_pair *best = NULL;

	e->joined = r->kind == NTP_REPORT_JOINED;
	if (!e->joined)
		return;
	for (int i = 0; i < r->npairs; i++) {
		const struct ntp_join_pair *p = &r->pairs[i];

		if (hf >= 0 && p->host_file != hf)
			continue;
		/* the worst of the combinations that joined anything */
		if (!best || (p->matched && (!best->matched || fabs(p->drift) > fabs(best->drift) ||
					     p->tol_ns > best->tol_ns)))
			best = p;
	}
	e->clock_estimated = best && best->estimated;
	if (best) {
		e->drift = best->drift;
		e->tol_ns = best->tol_ns;
	}
	e->unpaired_pct = unpaired_pct(&r->counts);
}

/* the evidence the model has of group g */
static void from_group(struct ntp_diag_evidence *e, const struct ntp_report *r,
		       const struct ntp_report_group *g)
{
	const struct ntp_view *v = ntp_report__view(r);
	int p50 = ntp_stat__percentile(50);

	e->n = g->e2e.n;
	e->tail_stat = g->tail.stat;
	e->tail_n = g->tail.n;
	e->tail_above_ns = g->tail.above_ns;
	e->min_n = ntp_stats[NTP_STAT_PCT].min_n;
	e->nstages = v->nstages < NTP_DIAG_MAX_STAGES ? v->nstages : NTP_DIAG_MAX_STAGES;
	e->e2e_mean_ns = g->e2e.mean;
	e->e2e_tail_ns = g->tail.e2e_mean;
	e->host_alone = r->kind == NTP_REPORT_HOST;
	e->target_alone = r->kind == NTP_REPORT_TARGET;
	for (int s = 0; s < e->nstages; s++) {
		e->stage[s] = v->stages[s].id;
		e->mean_ns[s] = g->stage[s].mean;
		e->tail_ns[s] = g->tail.stage_mean ? g->tail.stage_mean[s] : 0;
		e->negative[s] = g->negative ? g->negative[s] : 0;
		if (v->stages[s].id == NTP_STAGE_NETWORK)
			e->network_p50_ns = p50 >= 0 && ntp_stat__shown(&g->stage[s], p50) ?
					    g->stage[s].pct[p50 - NTP_STAT_PCT] :
					    (int64_t)g->stage[s].mean;
	}
	e->resets = -1;
}

/* a group's key matches a host row's */
static bool same_group(const struct ntp_report_group *g, const struct dgq *q)
{
	return g->host_file == q->file + 1 && g->bytes == q->bytes &&
	       !strcmp(g->io_type, q->io_type) && !strcmp(g->ns, q->ns);
}

static void host_evidence(struct ntp_diag_evidence *e, const struct ntp_diag_gather *g,
			  const struct ntp_report_group *grp, const struct ntp_diag_sources *has)
{
	for (size_t i = grp ? first_row(g, grp) : 0; i < g->ngq; i++) {
		const struct dgq *q = &g->gq[i];
		const struct dq *queue;

		if (grp && !same_group(grp, q))
			break;
		if (q->errors && !e->errors)
			e->first_status = q->first_status;
		e->errors += q->errors;
		e->deferred += q->deferred;
		e->inline_sends += q->inline_sends;
		e->deferred_delay_ns += q->deferred_sum;
		e->inline_delay_ns += q->inline_sum;
		e->off_io_cpu += q->off_cpu;
		e->on_io_cpu += q->on_cpu;
		e->off_io_cpu_delay_ns += q->off_cpu_sum;
		e->on_io_cpu_delay_ns += q->on_cpu_sum;
		queue = find_queue(g, q->file, q->ctrl, q->qid);
		if (queue)
			set_host_queue(&e->host_queue, queue, has);
	}
	e->deferred_delay_ns = e->deferred ? e->deferred_delay_ns / (double)e->deferred : 0;
	e->inline_delay_ns = e->inline_sends ? e->inline_delay_ns / (double)e->inline_sends : 0;
	e->off_io_cpu_delay_ns = e->off_io_cpu ? e->off_io_cpu_delay_ns / (double)e->off_io_cpu : 0;
	e->on_io_cpu_delay_ns = e->on_io_cpu ? e->on_io_cpu_delay_ns / (double)e->on_io_cpu : 0;
	e->resets = g->resets;
}

static bool sends_known(const struct ntp_report *r)
{
	if (r->rdma || r->kind == NTP_REPORT_TARGET)
		return false;
	for (int f = 0; f < r->nfiles; f++)
		for (size_t k = 0; k < r->files[f].hdr.nhooks; k++) {
			const struct ntp_report_hook *h = &r->files[f].hdr.hooks[k];

			if (h->point && !strcmp(h->point, "h_cmd_sent") && h->hook &&
			    strcmp(h->hook, "none"))
				return true;
		}
	return false;
}

/* the recording: its groups' evidence together */
static void add_group(struct ntp_diag_evidence *all, const struct ntp_diag_evidence *e,
		      const struct ntp_report_group *g)
{
	double n = (double)e->n, tn = (double)e->tail_n;
	double an = (double)all->n, atn = (double)all->tail_n;

	all->nstages = e->nstages;
	all->host_alone = e->host_alone;
	all->target_alone = e->target_alone;
	all->min_n = e->min_n;
	for (int s = 0; s < e->nstages; s++) {
		all->stage[s] = e->stage[s];
		all->mean_ns[s] = an + n > 0 ? (all->mean_ns[s] * an + e->mean_ns[s] * n) / (an + n) : 0;
		all->tail_ns[s] = atn + tn > 0 ?
				  (all->tail_ns[s] * atn + e->tail_ns[s] * tn) / (atn + tn) : 0;
		all->negative[s] += e->negative[s];
	}
	all->e2e_mean_ns = an + n > 0 ? (all->e2e_mean_ns * an + e->e2e_mean_ns * n) / (an + n) : 0;
	all->e2e_tail_ns = atn + tn > 0 ?
			   (all->e2e_tail_ns * atn + e->e2e_tail_ns * tn) / (atn + tn) : 0;
	if (e->network_p50_ns > all->network_p50_ns)
		all->network_p50_ns = e->network_p50_ns;
	if (e->tail_stat && (!all->tail_stat || e->n > an))
		all->tail_stat = e->tail_stat;
	all->n += e->n;
	all->tail_n += e->tail_n;
	(void)g;
}

int ntp_diag__make(struct ntp_diag *d, const struct ntp_report *r, struct ntp_source *s)
{
	struct ntp_diag_gather g = { .resets = -1 };
	double rate_all = 0;
	bool rate_known = false;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->has.deferral = sends_known(r);
	/*
	 * The model reads the commands' evidence from recordings; a source
	 * without a database (the fleet's engine) has the model's stages
	 * alone, and the rules say what they lack as not recorded.
	 */
	d->has.engine = !s->db;
	for (int i = 0; d->has.engine && i < s->n; i++) {
		d->has.host |= (s->files[i].sides & NTP_SIDE_HOST) != 0;
		d->has.target |= (s->files[i].sides & NTP_SIDE_TARGET) != 0;
	}
	for (int i = 0; s->db && i < s->n && !rc; i++) {
		if (r->files[i].evidence) {
			d->has.host = true;
			int64_t resets = ntp_source__meta_int(s, i, NTP_META_HOST_CTRL_RESETS, -1);
			char *depth = ntp_source__meta_text(s, i, NTP_META_HOST_QUEUE_DEPTH);

			d->has.queue_depth |= depth != NULL;
			free(depth);
			if (resets >= 0) {
				d->has.resets = true;
				g.resets = (g.resets < 0 ? 0 : g.resets) + resets;
			}
			rc = host_queries(&g, &d->has, r, s, i);
		}
		if (!rc && s->files[i].sides & NTP_SIDE_TARGET) {
			d->has.target = true;
			rc = ntp_backend__read(s, i, &d->has.backend, &g.bk, &g.nbk);
		}
	}
	if (rc == -ENOMEM) {
		ntp_error("cannot make the diagnosis: %s", strerror(ENOMEM));
		rc = NTP_EXIT_FAILURE;
	}
	/* each group's rows found by binary search: linear in the groups, not quadratic */
	if (!rc && g.nq)
		qsort(g.q, g.nq, sizeof(*g.q), cmp_dq);
	if (!rc && g.ngq) {
		struct dgq *fit = realloc(g.gq, g.ngq * sizeof(*g.gq));  /* kept while printing */

		if (fit)
			g.gq = fit;
		qsort(g.gq, g.ngq, sizeof(*g.gq), cmp_dgq);
	}
	if (!rc) {
		d->gather = malloc(sizeof(*d->gather));
		if (!d->gather) {
			ntp_error("cannot make the diagnosis: %s", strerror(ENOMEM));
			rc = NTP_EXIT_FAILURE;
		}
	}
	if (rc) {
		gather_free(&g);
		return rc;
	}
	*d->gather = g;
	d->r = r;
	d->ngroups = r->ngroups;
	for (size_t k = 0; k < r->ngroups; k++) {
		const struct ntp_report_group *grp = &r->groups[k];
		struct ntp_diag_line l;

		ntp_diag__group(d, k, &l);
		add_group(&d->all.e, &l.e, grp);
		if (grp->est_rate >= 0) {
			rate_all += grp->est_rate;
			rate_known = true;
		}
	}
	d->all.e.resets = -1;
	d->all.e.min_n = ntp_stats[NTP_STAT_PCT].min_n;
	host_evidence(&d->all.e, d->gather, NULL, &d->has);
	d->all.e.sends_known = d->has.deferral;
	set_clock(&d->all.e, r, -1);
	set_backend(&d->all.e, d->gather, NULL, rate_known ? rate_all : -1);
	ntp_diag__decide(&d->all.e, &d->all.v);
	return 0;
}

void ntp_diag__group(const struct ntp_diag *d, size_t k, struct ntp_diag_line *l)
{
	const struct ntp_report *r = d->r;
	const struct ntp_report_group *grp = &r->groups[k];

	memset(l, 0, sizeof(*l));
	l->g = grp;
	from_group(&l->e, r, grp);
	host_evidence(&l->e, d->gather, grp, &d->has);
	l->e.sends_known = d->has.deferral;
	set_clock(&l->e, r, grp->host_file - 1);
	set_backend(&l->e, d->gather, r->kind == NTP_REPORT_TARGET ? grp->ns : NULL, grp->est_rate);
	ntp_diag__decide(&l->e, &l->v);
}

void ntp_diag__free(struct ntp_diag *d)
{
	ntp_diag_by__free(&d->by);
	if (d->gather)
		gather_free(d->gather);
	free(d->gather);
	memset(d, 0, sizeof(*d));
}

/* ---- the text --------------------------------------------------------------- */

/* a latency as a person reads it: "850ns", "12us", "1.9ms", "2.10s" */
static void dur(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e4)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e6)
		snprintf(buf, len, "%.0fus", ns / 1e3);
	else if (ns < 1e7)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

const char *ntp_diag__stage_label(const struct ntp_diag_line *l, int i)
{
	const struct ntp_stage_desc *d;

	if (i < 0 || i >= l->e.nstages)
		return "-";
	d = &ntp_stages[l->e.stage[i]];
	return l->e.host_alone && d->label_alone[0] ? d->label_alone : d->label;
}

/*
 * "nvme0 q1 ~30 in flight / 32": "~" Little's law's estimate (none: the
 * device's own counters); no "/" without a depth
 */
/* ", 93% off io_cpu": the deferred sends' cause in nvme-tcp, where the CPUs are recorded */
static void off_io_cpu_text(char *buf, size_t len, const struct ntp_diag_evidence *e)
{
	size_t at = strlen(buf);
	uint64_t all = e->off_io_cpu + e->on_io_cpu;

	if (all && at < len)
		snprintf(buf + at, len - at, ", %.0f%% off io_cpu",
			 100.0 * (double)e->off_io_cpu / (double)all);
}

static void queue_text(char *buf, size_t len, const struct ntp_diag_queue *q)
{
	char depth[32] = "";

	if (q->depth > 0)
		snprintf(depth, sizeof(depth), " / %" PRId64, q->depth);
	snprintf(buf, len, "%s %s%.*f in flight%s", q->name, q->measured ? "" : "~",
		 q->inflight < 10 ? 1 : 0, q->inflight, depth);
}

void ntp_diag__evidence_text(const struct ntp_diag_line *l, char *buf, size_t len)
{
	const struct ntp_diag_evidence *e = &l->e;
	const struct ntp_diag_verdict *v = &l->v;
	char a[48], b[48], q[96];

	buf[0] = '\0';
	switch (v->cause) {
	case NTP_DIAG_INSUFFICIENT:
		if (l->g)
			snprintf(buf, len, "n=%" PRIu64 ", %s needs %" PRIu64, e->n,
				 ntp_stats[NTP_STAT_PCT].name, e->min_n);
		else	/* the recording's tail is its groups' */
			snprintf(buf, len, "no group has the %" PRIu64 " commands %s needs",
				 e->min_n, ntp_stats[NTP_STAT_PCT].name);
		break;
	case NTP_DIAG_CLOCK:
		if (!e->clock_estimated)
			snprintf(buf, len, "clocks not estimated");
		else if (fabs(e->drift) >= NTP_DIAG_CLOCK_DRIFT)
			snprintf(buf, len, "drift %.0f ppm", e->drift * 1e6);
		else if (!strcmp(v->why, NTP_DIAG_WHY_NEGATIVE)) {
			int worst = 0;

			for (int s = 1; s < e->nstages; s++)
				if (e->negative[s] > e->negative[worst])
					worst = s;
			snprintf(buf, len, "%s below 0 in %.1f%%", ntp_diag__stage_label(l, worst),
				 e->n ? 100.0 * (double)e->negative[worst] / (double)e->n : 0);
		} else if (!strcmp(v->why, NTP_DIAG_WHY_UNPAIRED)) {
			snprintf(buf, len, "%.0f%% of each side unpaired", e->unpaired_pct);
		} else {
			dur(a, sizeof(a), e->tol_ns);
			snprintf(buf, len, "join tolerance %s", a);
		}
		break;
	case NTP_DIAG_ERRORS:
		if (e->errors)
			snprintf(buf, len, "%" PRIu64 " of %" PRIu64 " failed, status 0x%" PRIx64,
				 e->errors, e->n, (uint64_t)e->first_status);
		if (e->resets > 0) {
			size_t n = strlen(buf);

			snprintf(buf + n, len - n, "%s%" PRId64 " controller reset%s", n ? "; " : "",
				 e->resets, e->resets == 1 ? "" : "s");
		}
		break;
	case NTP_DIAG_SATURATED:
		queue_text(buf, len, v->part == NTP_DIAG_PART_STORAGE ? &e->backend : &e->host_queue);
		break;
	case NTP_DIAG_STARVED:
		queue_text(q, sizeof(q), &e->host_queue);
		snprintf(buf, len, "%s, %d %s", q, e->host_queue.submitters,
			 e->host_queue.submitter ? e->host_queue.submitter : "submitters");
		break;
	case NTP_DIAG_DEFERRED:
		dur(a, sizeof(a), e->deferred_delay_ns);
		dur(b, sizeof(b), e->inline_delay_ns);
		if (e->inline_sends)
			snprintf(buf, len, "%.0f%% deferred, send %s vs %s inline",
				 100.0 * (double)e->deferred / (double)(e->deferred + e->inline_sends),
				 a, b);
		else
			snprintf(buf, len, "all deferred, send %s", a);
		off_io_cpu_text(buf, len, e);
		break;
	case NTP_DIAG_NETWORK:
		dur(a, sizeof(a), (double)e->network_p50_ns);
		snprintf(buf, len, "network p50 %s", a);
		break;
	case NTP_DIAG_BACKEND:
		if (e->backend.known)
			queue_text(buf, len, &e->backend);
		break;
	default:
		break;
	}
}

const char *ntp_diag__cause_text(const struct ntp_diag_line *l)
{
	if (l->v.cause == NTP_DIAG_NETWORK)
		return l->v.lossy ? "lossy network" : "slow network";
	return ntp_diag_rules[l->v.cause].text;
}

/* s cut to width columns with "..." (0: not cut) */
static void cut(char *s, size_t len, size_t width)
{
	if (width >= 4 && width < len && strlen(s) > width)
		snprintf(s + width - 3, len - (width - 3), "...");
}

void ntp_diag__text(const struct ntp_diag_line *l, char *buf, size_t len, size_t width)
{
	const struct ntp_diag_verdict *v = &l->v;
	char ev[160], head[96] = "";

	ntp_diag__evidence_text(l, ev, sizeof(ev));
	if (v->cause != NTP_DIAG_INSUFFICIENT && v->tail_stage >= 0)
		snprintf(head, sizeof(head), "%s %.0f%% of tail, ",
			 ntp_diag__stage_label(l, v->tail_stage), v->tail_pct);
	else if (v->cause != NTP_DIAG_INSUFFICIENT && v->mean_stage >= 0)
		snprintf(head, sizeof(head), "%s %.0f%% of mean, ",
			 ntp_diag__stage_label(l, v->mean_stage), v->mean_pct);
	snprintf(buf, len, "%s%s%s%s%s", head, ntp_diag__cause_text(l), ev[0] ? " (" : "", ev,
		 ev[0] ? ")" : "");
	cut(buf, len, width);
}

const char *ntp_diag__missing(const struct ntp_diag *d, size_t i, char *buf, size_t len)
{
	const struct {
		bool has;
		const char *what, *so;
	} ev[] = {
		{ d->has.deferral, "send deferral", "no deferred send is named" },
		{ d->has.submitters, "processes", "no queue is named starved" },
		{ d->has.queue_depth, "queue depth", "no host queue is saturated" },
		{ d->has.resets, "resets", "errors are the commands' status" },
	}, tev[] = {
		{ d->has.backend, "backend counters", "storage is not named saturated" },
	};
	const char *where = d->has.engine ? "the engine" : "this file";

	for (size_t k = 0; d->has.host && k < sizeof(ev) / sizeof(ev[0]); k++)
		if (!ev[k].has && !i--) {
			snprintf(buf, len, "%s: not recorded in %s (%s)", ev[k].what, where, ev[k].so);
			return buf;
		}
	for (size_t k = 0; d->has.target && k < sizeof(tev) / sizeof(tev[0]); k++)
		if (!tev[k].has && !i--) {
			snprintf(buf, len, "%s: not recorded in %s (%s)", tev[k].what, where, tev[k].so);
			return buf;
		}
	return NULL;
}

void ntp_diag__label(const struct ntp_diag_line *l, char *buf, size_t len)
{
	char size[32], above[32];

	if (!l->g) {
		snprintf(buf, len, "recording");
		return;
	}
	ntp_size__str(l->g->bytes, size, sizeof(size));
	if (!l->e.tail_stat) {
		snprintf(buf, len, "%s %s %s", l->g->io_type, size, l->g->ns);
		return;
	}
	dur(above, sizeof(above), (double)l->e.tail_above_ns);
	snprintf(buf, len, "%s %s %s %s %s", l->g->io_type, size, l->g->ns,
		 ntp_stats[l->e.tail_stat].name, above);
}

const struct ntp_diag_line *ntp_diag__line_of(const struct ntp_diag *d,
					      const struct ntp_report_group *g,
					      struct ntp_diag_line *l)
{
	/* line k is of the report's groups[k] */
	if (!g || !d->ngroups || g < d->r->groups || g >= d->r->groups + d->ngroups)
		return NULL;
	ntp_diag__group(d, (size_t)(g - d->r->groups), l);
	return l;
}

void ntp_diag__change_text(const struct ntp_diag_line *base, const struct ntp_diag_line *new_line,
			   char *buf, size_t len, size_t width)
{
	const struct ntp_diag_line *l = new_line ? new_line : base;
	char size[32], text[256], was[64] = "";

	ntp_size__str(l->g->bytes, size, sizeof(size));
	if (!new_line)
		snprintf(text, sizeof(text), "only in the baseline");
	else if (!base)
		snprintf(text, sizeof(text), "only in the new run: ");
	else
		text[0] = '\0';
	if (base && new_line && base->v.cause != new_line->v.cause)
		snprintf(was, sizeof(was), "%s -> ", base->v.cause == NTP_DIAG_NONE ? "none" :
			 ntp_diag__cause_text(base));
	else if (base && new_line)
		snprintf(was, sizeof(was), "unchanged: ");
	if (new_line) {
		size_t n = strlen(text);

		ntp_diag__text(new_line, text + n, sizeof(text) - n, 0);
	}
	snprintf(buf, len, "%s %s %s: %s%s", l->g->io_type, size, l->g->ns, was, text);
	cut(buf, len, width);
}

void ntp_diag__full_text(const struct ntp_diag_line *l, char *buf, size_t len, size_t width)
{
	char label[160], text[256];

	ntp_diag__label(l, label, sizeof(label));
	ntp_diag__text(l, text, sizeof(text), 0);
	snprintf(buf, len, "%s: %s", label, text);
	cut(buf, len, width);
}
