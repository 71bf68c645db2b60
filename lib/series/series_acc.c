// SPDX-License-Identifier: GPL-2.0
/*
 * series: one interval's groups at a time (series_acc.h).  The rows come in
 * the order of their start, file by file (series_scan.c), so an interval
 * ends when a row of another file or of a later interval arrives; its
 * groups are summarized exactly as report summarizes a group
 * (lib/core/stats.c), printed in report's order of groups, and emptied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/series/series_acc.h"

void ntp_series_acc__init(struct ntp_series_acc *a, struct ntp_series *s,
			  const struct ntp_series_out *outs, int nouts, int nstages)
{
	memset(a, 0, sizeof(*a));
	a->s = s;
	a->outs = outs;
	a->nouts = nouts;
	a->nstages = nstages;
}

/* floor((t - origin) / len): a command before the origin is in interval -1, not 0 */
static int64_t interval_of(const struct ntp_series *s, int file, int64_t t)
{
	int64_t d = t - s->origin_ns[file - 1];

	return d >= 0 ? d / s->interval_ns : -((-d + s->interval_ns - 1) / s->interval_ns);
}

/* a row of a group left out (ntp_series_acc__keep) */
#define LEFT_OUT (-2)

/* the group of a row, found or added: its index, LEFT_OUT, or -1 out of memory */
static ssize_t find(struct ntp_series_acc *a, int file, const char *io, int64_t bytes,
		    const char *ns)
{
	struct ntp_report_group *g;

	/* rows of one group come in runs: try the last one first */
	for (size_t k = 0; k < a->n; k++) {
		size_t i = (a->last + k) % a->n;

		g = &a->g[i];
		if (g->host_file == file && g->bytes == bytes && !strcmp(g->io_type, io) &&
		    !strcmp(g->ns, ns))
			return (ssize_t)(a->last = i);
	}
	if (a->fixed)
		return LEFT_OUT;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		void *ng = realloc(a->g, cap * sizeof(*a->g));

		if (!ng)
			return -1;
		a->g = ng;
		ng = realloc(a->smp, cap * sizeof(*a->smp));
		if (!ng)
			return -1;
		a->smp = ng;
		ng = realloc(a->order, cap * sizeof(*a->order));
		if (!ng)
			return -1;
		a->order = ng;
		a->cap = cap;
	}
	g = &a->g[a->n];
	if (ntp_report_group__init(g, file, io, bytes, ns, a->nstages))
		return -1;
	ntp_samples__init(&a->smp[a->n].e2e);
	for (int s = 0; s < NTP_VIEW_MAX_STAGES; s++)
		ntp_samples__init(&a->smp[a->n].stage[s]);
	return (ssize_t)(a->last = a->n++);
}

static int by_report_order(const void *x, const void *y)
{
	return ntp_report__group_cmp(*(const struct ntp_report_group *const *)x,
				     *(const struct ntp_report_group *const *)y);
}

/* commands/s over the part of the interval inside the recording: n x N / that time */
static double rate(const struct ntp_series *s, const struct ntp_report_group *g,
		   int64_t covered_ns)
{
	int64_t one_in = s->r.files[g->host_file - 1].hdr.sample_one_in;

	if (one_in <= 0 || covered_ns <= 0)
		return -1;
	return (double)g->e2e.n * (double)one_in / ((double)covered_ns / 1e9);
}

int ntp_series_acc__flush(struct ntp_series_acc *a)
{
	struct ntp_series *s = a->s;
	struct ntp_series_point p;
	int64_t end;
	size_t m = 0;
	int rc = 0;

	if (!a->open)
		return 0;
	a->open = false;
	p.interval = a->interval;
	p.start_ns = s->origin_ns[a->file - 1] + a->interval * s->interval_ns;
	p.covered_ns = s->interval_ns;
	/* the last interval may end after the recording did: its rate is over the time it had */
	end = s->end_ns[a->file - 1];
	if (end >= 0 && end > p.start_ns && end - p.start_ns < s->interval_ns)
		p.covered_ns = end - p.start_ns;
	for (size_t i = 0; i < a->n; i++) {
		struct ntp_report_group *g = &a->g[i];
		struct ntp_group_acc *sm = &a->smp[i];

		if (g->host_file != a->file || !sm->e2e.n)
			continue;
		ntp_samples__summarize(&sm->e2e, &g->e2e);
		for (int k = 0; k < a->nstages; k++)
			ntp_samples__summarize(&sm->stage[k], &g->stage[k]);
		g->est_rate = rate(s, g, p.covered_ns);
		a->order[m++] = g;
	}
	qsort(a->order, m, sizeof(*a->order), by_report_order);
	for (size_t i = 0; i < m && !rc; i++) {
		p.g = a->order[i];
		for (int o = 0; o < a->nouts && !rc; o++)
			rc = a->outs[o].point(a->outs[o].ctx, s, &p);
		s->points++;
	}
	for (size_t i = 0; i < a->n; i++) {
		struct ntp_group_acc *sm = &a->smp[i];

		ntp_samples__reset(&sm->e2e);
		for (int k = 0; k < a->nstages; k++)
			ntp_samples__reset(&sm->stage[k]);
	}
	return rc;
}

int ntp_series_acc__keep(struct ntp_series_acc *a, const struct ntp_report_group *keep, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (find(a, keep[i].host_file, keep[i].io_type, keep[i].bytes, keep[i].ns) < 0) {
			ntp_error("series: %s", strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
	}
	a->fixed = true;
	return 0;
}

int ntp_series_acc__add(struct ntp_series_acc *a, const struct ntp_series_row *row)
{
	struct ntp_series *s = a->s;
	struct ntp_group_acc *sm;
	int64_t iv;
	ssize_t k;
	int rc;

	/* a file without meta start_ns: its intervals begin at its first command read */
	if (!s->origin_known[row->file - 1]) {
		s->origin_ns[row->file - 1] = row->t_ns;
		s->origin_known[row->file - 1] = true;
	}
	/* before the interval: a group found or added here has no samples yet */
	k = find(a, row->file, row->io_type ? row->io_type : "", row->bytes,
		 row->ns ? row->ns : "");
	if (k == LEFT_OUT) {
		a->left_out++;
		return 0;
	}
	if (k < 0)
		goto nomem;
	iv = interval_of(s, row->file, row->t_ns);
	if (a->open && (row->file != a->file || iv != a->interval)) {
		rc = ntp_series_acc__flush(a);
		if (rc)
			return rc;
	}
	a->open = true;
	a->file = row->file;
	a->interval = iv;
	sm = &a->smp[k];
	if (ntp_samples__add(&sm->e2e, row->e2e))
		goto nomem;
	for (int i = 0; i < a->nstages; i++)
		if (ntp_samples__add(&sm->stage[i], row->stage[i]))
			goto nomem;
	s->commands++;
	return 0;
nomem:
	ntp_error("series: %s", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

void ntp_series_acc__free(struct ntp_series_acc *a)
{
	for (size_t i = 0; i < a->n; i++) {
		ntp_report_group__free(&a->g[i]);
		ntp_samples__free(&a->smp[i].e2e);
		for (int s = 0; s < NTP_VIEW_MAX_STAGES; s++)
			ntp_samples__free(&a->smp[i].stage[s]);
	}
	free(a->g);
	free(a->smp);
	free(a->order);
	memset(a, 0, sizeof(*a));
}
