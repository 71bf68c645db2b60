// SPDX-License-Identifier: GPL-2.0
/*
 * report: the groups a scan fills, for every report alike (a recording
 * alone, joined recordings, the detailed stages, a target alone): each row
 * into its group's samples and exact sums, the sets of several readers
 * merged, then each group summarized and the groups put in the report's
 * order.  Only the samples are held: 8 bytes per stage and command, each
 * group's freed as soon as it is summarized.  A row finds its group by a
 * hash of its key, so that the time is linear in the commands however
 * many groups there are (a crafted file may have one per command), and a
 * group costs its summary and its samples, nothing fixed beyond.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/checked.h"
#include "lib/core/stat_table.h"
#include "lib/model/model_groups.h"
#include "lib/model/model.h"

static void acc_init(struct ntp_group_acc *a)
{
	ntp_samples__init(&a->e2e);
	for (int s = 0; s < NTP_VIEW_MAX_STAGES; s++)
		ntp_samples__init(&a->stage[s]);
	ntp_app_acc__init(&a->app);
}

/* frees the samples and leaves them empty, so a second call is harmless */
static void acc_free(struct ntp_group_acc *a)
{
	ntp_samples__free(&a->e2e);
	for (int s = 0; s < NTP_VIEW_MAX_STAGES; s++)
		ntp_samples__free(&a->stage[s]);
	ntp_app_acc__free(&a->app);
	acc_init(a);
}

void ntp_group_set__free(struct ntp_group_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		acc_free(&set->acc[i]);
		ntp_report_group__free(&set->g[i]);
	}
	free(set->acc);
	free(set->g);
	free(set->slots);
	memset(set, 0, sizeof(*set));
}

/* FNV-1a over the key's parts */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t key_hash(int file, const char *io_type, int64_t bytes, const char *ns)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv(h, &file, sizeof(file));
	h = fnv(h, &bytes, sizeof(bytes));
	h = fnv(h, io_type, strlen(io_type) + 1);
	return fnv(h, ns, strlen(ns) + 1);
}

static int same_key(const struct ntp_report_group *g, int file, const char *io_type,
		    int64_t bytes, const char *ns)
{
	return g->host_file == file && g->bytes == bytes && !strcmp(g->io_type, io_type) &&
	       !strcmp(g->ns, ns);
}

/* group k into the table, which has room */
static void slot_put(struct ntp_group_set *set, size_t k)
{
	const struct ntp_report_group *g = &set->g[k];
	size_t i = key_hash(g->host_file, g->io_type, g->bytes, g->ns) & (set->nslots - 1);

	while (set->slots[i])
		i = (i + 1) & (set->nslots - 1);
	set->slots[i] = k + 1;
}

/* at most half full, so that a probe ends soon; -ENOMEM */
static int slots_grow(struct ntp_group_set *set)
{
	size_t n = set->nslots ? 2 * set->nslots : 64;
	size_t *s;

	if (set->n + 1 <= set->nslots / 2)
		return 0;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	free(set->slots);
	set->slots = s;
	set->nslots = n;
	for (size_t k = 0; k < set->n; k++)
		slot_put(set, k);
	return 0;
}

/* below this many groups, comparing them all costs less than a hash */
#define FEW_GROUPS 8

/* the group of a row: usually the previous row's, else by its hash, else a new one */
ssize_t ntp_group_set__find(struct ntp_group_set *set, int file, const char *io_type,
			    int64_t bytes, const char *ns)
{
	struct ntp_report_group *g;

	if (set->n && same_key(&set->g[set->last], file, io_type, bytes, ns))
		return (ssize_t)set->last;
	if (set->n <= FEW_GROUPS) {
		for (size_t k = 0; k < set->n; k++) {
			if (same_key(&set->g[k], file, io_type, bytes, ns)) {
				set->last = k;
				return (ssize_t)k;
			}
		}
	} else if (set->nslots) {
		size_t i = key_hash(file, io_type, bytes, ns) & (set->nslots - 1);

		for (; set->slots[i]; i = (i + 1) & (set->nslots - 1)) {
			size_t k = set->slots[i] - 1;

			if (same_key(&set->g[k], file, io_type, bytes, ns)) {
				set->last = k;
				return (ssize_t)k;
			}
		}
	}
	if (slots_grow(set))
		return -1;
	if (set->n == set->cap) {
		size_t ncap = set->cap ? 2 * set->cap : 16;
		void *p = realloc(set->g, ncap * sizeof(*set->g));

		if (!p)
			return -1;
		set->g = p;
		p = realloc(set->acc, ncap * sizeof(*set->acc));
		if (!p)
			return -1;
		set->acc = p;
		set->cap = ncap;
	}
	g = &set->g[set->n];
	if (ntp_report_group__init(g, file, io_type, bytes, ns, set->nstages))
		return -1;
	acc_init(&set->acc[set->n]);
	set->last = set->n++;
	slot_put(set, set->last);
	return (ssize_t)set->last;
}

void ntp_group_set__impossible(struct ntp_group_set *set, size_t k, enum ntp_impossible why)
{
	set->g[k].impossible[why]++;
}

/* the sum of g's stage sums; it fits, as add and merge keep it so */
static int64_t stage_total(const struct ntp_report_group *g, int nstages)
{
	int64_t t = 0;

	for (int s = 0; s < nstages; s++)
		t += g->sum_stage[s];
	return t;
}

/*
 * Whether one command can be counted: no stage (but those that may be) and
 * no end-to-end latency below 0, and every sum it joins (its group's end-to-end and stage sums,
 * and theirs together, which the sum check adds) still fits in 64 bits.
 */
static int impossible_why(const struct ntp_report_group *g, int nstages, unsigned int negative,
			  int64_t e2e, const int64_t *stage, int64_t *sums)
{
	bool ovf = false;
	int64_t own = 0;

	if (e2e < 0)
		return NTP_IMPOSSIBLE_BACKWARDS;
	for (int s = 0; s < nstages; s++)
		if (stage[s] < 0 && !(negative & 1u << s))
			return NTP_IMPOSSIBLE_BACKWARDS;
	sums[0] = ntp_checked__add(g->sum_e2e, e2e, &ovf);
	for (int s = 0; s < nstages; s++) {
		sums[1 + s] = ntp_checked__add(g->sum_stage[s], stage[s], &ovf);
		own = ntp_checked__add(own, stage[s], &ovf);
	}
	ntp_checked__add(stage_total(g, nstages), own, &ovf);
	return ovf ? NTP_IMPOSSIBLE_OVERFLOW : -1;
}

int ntp_group_set__add(struct ntp_group_set *set, size_t k, int64_t e2e, const int64_t *stage)
{
	return ntp_group_set__add_app(set, k, e2e, stage, NULL);
}

int ntp_group_set__add_app(struct ntp_group_set *set, size_t k, int64_t e2e,
			   const int64_t *stage, const struct ntp_app_row *app)
{
	struct ntp_report_group *g = &set->g[k];
	struct ntp_group_acc *a = &set->acc[k];
	int64_t sum = 0, sums[1 + NTP_VIEW_MAX_STAGES];
	int why = impossible_why(g, set->nstages, set->may_be_negative, e2e, stage, sums);

	if (why >= 0) {
		g->impossible[why]++;
		return 0;
	}
	if (ntp_samples__add(&a->e2e, e2e))
		return -ENOMEM;
	g->sum_e2e = sums[0];
	for (int s = 0; s < set->nstages; s++) {
		if (ntp_samples__add(&a->stage[s], stage[s]))
			return -ENOMEM;
		g->sum_stage[s] = sums[1 + s];
		sum += stage[s];	/* checked above */
		g->negative[s] += stage[s] < 0;
	}
	/* by construction never; counted so that a wrong view or sub-stage shows */
	if (sum != e2e)
		g->mismatched++;
	if (app && app->state != NTP_APP_ROW_NONE)
		return ntp_app_acc__add(&a->app, &g->app, e2e, app);
	return 0;
}

/* would d's sums overflow with s's added? */
static bool merge_overflows(const struct ntp_report_group *d, const struct ntp_report_group *s,
			    int nstages)
{
	bool ovf = false;

	ntp_checked__add(d->sum_e2e, s->sum_e2e, &ovf);
	for (int st = 0; st < nstages; st++)
		ntp_checked__add(d->sum_stage[st], s->sum_stage[st], &ovf);
	ntp_checked__add(stage_total(d, nstages), stage_total(s, nstages), &ovf);
	return ovf;
}

int ntp_group_set__merge(struct ntp_group_set *dst, struct ntp_group_set *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct ntp_report_group *s = &src->g[i], *d;
		struct ntp_group_acc *sa = &src->acc[i], *da;
		ssize_t k = ntp_group_set__find(dst, s->host_file, s->io_type, s->bytes, s->ns);

		if (k < 0)
			return -ENOMEM;
		d = &dst->g[k];
		da = &dst->acc[k];
		for (int w = 0; w < NTP_IMPOSSIBLE_MAX; w++)
			d->impossible[w] += s->impossible[w];
		if (merge_overflows(d, s, dst->nstages)) {
			/* the two halves' sums do not fit together: src's commands are left out */
			d->impossible[NTP_IMPOSSIBLE_OVERFLOW] += sa->e2e.n;
			acc_free(sa);
			continue;
		}
		if (ntp_samples__append(&da->e2e, &sa->e2e))
			return -ENOMEM;
		for (int st = 0; st < dst->nstages; st++) {
			if (ntp_samples__append(&da->stage[st], &sa->stage[st]))
				return -ENOMEM;
			d->sum_stage[st] += s->sum_stage[st];
		}
		d->sum_e2e += s->sum_e2e;
		d->mismatched += s->mismatched;
		for (int st = 0; st < dst->nstages; st++)
			d->negative[st] += s->negative[st];
		if (ntp_app_acc__merge(&da->app, &d->app, &sa->app, &s->app))
			return -ENOMEM;
	}
	return 0;
}

static int io_type_rank(const char *t)
{
	if (!strcmp(t, "read"))
		return 0;
	if (!strcmp(t, "write"))
		return 1;
	return 2;
}

/*
 * Names in natural order, their numbers as numbers: nvme2n1 before
 * nvme10n1, and with --by the queue "nvme0 q2" before "nvme0 q10".
 */
int ntp_report__group_cmp(const struct ntp_report_group *x, const struct ntp_report_group *y)
{
	int c = strverscmp(x->ns, y->ns);

	if (c)
		return c;
	c = io_type_rank(x->io_type) - io_type_rank(y->io_type);
	if (c)
		return c;
	c = strcmp(x->io_type, y->io_type);
	if (c)
		return c;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* host file first: a report on several files shows each file's groups together */
static int file_group_cmp(const void *a, const void *b)
{
	const struct ntp_report_group *x = a, *y = b;
	int c = x->host_file - y->host_file;

	return c ? c : ntp_report__group_cmp(x, y);
}

/* a group found and given no command: nothing to show */
static bool empty(const struct ntp_report_group *g, const struct ntp_group_acc *a)
{
	uint64_t impossible = 0;

	for (int w = 0; w < NTP_IMPOSSIBLE_MAX; w++)
		impossible += g->impossible[w];
	return !a->e2e.n && !impossible && !g->mismatched;
}

/* the groups given no command left out: a joined summary finds its groups as it reads */
static void drop_empty(struct ntp_group_set *set)
{
	size_t k = 0;

	for (size_t i = 0; i < set->n; i++) {
		if (empty(&set->g[i], &set->acc[i])) {
			acc_free(&set->acc[i]);
			ntp_report_group__free(&set->g[i]);
			continue;
		}
		set->g[k] = set->g[i];
		set->acc[k++] = set->acc[i];
	}
	set->n = k;
}

/*
 * g's tail (model.h) from its samples, before any is sorted: the i-th
 * sample of the end-to-end latency and of each stage are one command's,
 * since a command's values are added together and merged together (the
 * same counts, so the same capacities, so ntp_samples__append moves them
 * alike).  0 or -ENOMEM.
 */
static int tail(struct ntp_report_group *g, const struct ntp_group_acc *a, int nstages)
{
	struct ntp_report_tail *t = &g->tail;
	long double sum[NTP_VIEW_MAX_STAGES] = { 0 }, e2e = 0;
	double *stage_mean = t->stage_mean;     /* kept: the block of g->stage */
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->stage_mean = stage_mean;
	for (int s = 0; s < nstages; s++)
		stage_mean[s] = 0;
	t->stat = ntp_stat__tail_tested(a->e2e.n);
	if (t->stat == NTP_STAT_N)
		return 0;
	t->above_ns = ntp_stats__percentile_of(a->e2e.v, a->e2e.n, ntp_stats[t->stat].pct, &err);
	if (err)
		return err;
	for (size_t i = 0; i < a->e2e.n; i++) {
		if (a->e2e.v[i] <= t->above_ns)
			continue;
		t->n++;
		e2e += a->e2e.v[i];
		for (int s = 0; s < nstages; s++)
			sum[s] += a->stage[s].v[i];
	}
	if (!t->n)
		return 0;
	t->e2e_mean = (double)(e2e / t->n);
	for (int s = 0; s < nstages; s++)
		t->stage_mean[s] = (double)(sum[s] / t->n);
	return 0;
}

/* groups summarized at once: a bound on the jobs' memory, and samples freed as they go */
#define FINISH_GROUPS 1024

int ntp_group_set__finish(struct ntp_group_set *set, struct ntp_report_group **groups,
			  size_t *ngroups)
{
	/* a group's summaries: end-to-end, its stages, the application's */
	const size_t per = 1 + (size_t)set->nstages + NTP_APP_JOBS;
	struct ntp_summary_job *jobs = malloc(FINISH_GROUPS * per * sizeof(*jobs));
	int err = jobs ? 0 : -ENOMEM;

	drop_empty(set);
	for (size_t g0 = 0; g0 < set->n && !err; g0 += FINISH_GROUPS) {
		size_t g1 = g0 + FINISH_GROUPS < set->n ? g0 + FINISH_GROUPS : set->n, n = 0;

		for (size_t i = g0; i < g1 && !err; i++)
			err = tail(&set->g[i], &set->acc[i], set->nstages);
		for (size_t i = g0; i < g1 && !err; i++) {
			jobs[n++] = (struct ntp_summary_job){ &set->acc[i].e2e, &set->g[i].e2e };
			for (int s = 0; s < set->nstages; s++)
				jobs[n++] = (struct ntp_summary_job){ &set->acc[i].stage[s],
								      &set->g[i].stage[s] };
			n += ntp_app_acc__jobs(&set->acc[i].app, &set->g[i].app, &jobs[n]);
		}
		/* these groups' summaries at once, on threads; then their samples go */
		if (!err)
			err = ntp_samples__summarize_all(jobs, n, set->histograms);
		for (size_t i = g0; i < g1; i++)
			acc_free(&set->acc[i]);
	}
	free(jobs);
	/* on an error too the groups go to *groups, whose owner frees them and their summaries */
	for (size_t i = 0; i < set->n; i++)
		acc_free(&set->acc[i]);
	if (set->n)	/* qsort(NULL, 0, ...) is undefined */
		qsort(set->g, set->n, sizeof(*set->g), file_group_cmp);
	*groups = set->g;
	*ngroups = set->n;
	free(set->acc);
	free(set->slots);
	memset(set, 0, sizeof(*set));
	return err;
}
