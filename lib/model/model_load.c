// SPDX-License-Identifier: GPL-2.0
/*
 * report: the one model (model.h) of a source of recordings
 * (model_source.h).  The source's kind decides the model's: a host or a
 * target recording alone, or host and target joined.  The source fills
 * the files' headers and the groups (ops->load); what follows is the
 * same for every source: the stage gaps of --stages=detail, the rates,
 * --sort and --percent-limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model.h"
#include "lib/model/model_app.h"
#include "lib/model/model_evidence.h"
#include "lib/model/model_header.h"
#include "lib/model/model_load.h"
#include "lib/model/model_order.h"
#include "lib/model/model_view.h"

/* n x N / duration of the file the group's commands came from (of its --time window) */
static void estimate_rates(struct ntp_report *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		struct ntp_report_group *g = &r->groups[i];
		const struct ntp_report_header *h;
		int64_t span;

		g->est_rate = -1;
		if (g->host_file < 1 || g->host_file > r->nfiles)
			continue;
		h = &r->files[g->host_file - 1].hdr;
		/* with --time, the commands of the window over the window's length */
		span = ntp_read_filter__window_ns(r->filter, h->duration_ns);
		if (span > 0 && h->sample_one_in > 0)
			g->est_rate = (double)g->e2e.n * (double)h->sample_one_in /
				      ((double)span / 1e9);
	}
}

static enum ntp_view_kind view_of(enum ntp_report_kind kind, bool detail)
{
	switch (kind) {
	case NTP_REPORT_JOINED:
		return detail ? NTP_VIEW_JOINED_DETAIL : NTP_VIEW_JOINED;
	case NTP_REPORT_TARGET:
		return detail ? NTP_VIEW_TARGET_DETAIL : NTP_VIEW_TARGET;
	default:
		return detail ? NTP_VIEW_HOST_DETAIL : NTP_VIEW_HOST;
	}
}

void ntp_report__limit(struct ntp_report *r, double limit)
{
	size_t kept = 0;

	if (limit <= 0 || !r->total)
		return;
	r->percent_limit = limit;
	for (size_t i = 0; i < r->ngroups; i++) {
		if ((double)r->groups[i].e2e.n * 100.0 / (double)r->total >= limit) {
			r->groups[kept++] = r->groups[i];
		} else {
			ntp_report_group__free(&r->groups[i]);
			r->nhidden++;
		}
	}
	r->ngroups = kept;
}

int ntp_report__load(struct ntp_report *r, struct ntp_source *s,
		     const struct ntp_report_load *lo)
{
	bool detail = lo && lo->detail;
	int rc;

	memset(r, 0, sizeof(*r));
	r->filter = lo && ntp_read_filter__any(lo->filter) ? lo->filter : NULL;
	r->histograms = lo && lo->histograms;
	r->kind = ntp_report__kind(s->kind);
	r->view = view_of(r->kind, detail);
	r->rdma = s->rdma;
	r->files = calloc(s->n, sizeof(*r->files));
	if (!r->files) {
		ntp_error("%s: %s", s->files[0].path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	r->nfiles = s->n;
	for (int i = 0; i < s->n; i++)
		r->files[i].sides = s->files[i].sides;
	rc = s->ops->load(s, r, lo);
	for (int i = 0; i < r->nfiles && !rc && detail; i++)
		rc = ntp_report__find_gaps(r, i);
	if (!rc)
		estimate_rates(r);
	r->app = !rc && ntp_report__any_app(r);
	if (!rc)
		rc = ntp_report__order(r, lo ? lo->sort : NULL);
	if (!rc && lo)
		ntp_report__limit(r, lo->percent_limit);
	return rc;
}

void ntp_report__free(struct ntp_report *r)
{
	for (int i = 0; i < r->nfiles; i++) {
		ntp_report__free_header(&r->files[i].hdr);
		ntp_evidence__free(r->files[i].evidence);
	}
	free(r->files);
	free(r->pairs);
	for (size_t i = 0; i < r->ngaps; i++)
		free(r->gaps[i].hook);
	free(r->gaps);
	for (size_t i = 0; i < r->ngroups; i++)
		ntp_report_group__free(&r->groups[i]);
	free(r->groups);
	memset(r, 0, sizeof(*r));
}
