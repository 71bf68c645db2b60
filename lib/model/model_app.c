// SPDX-License-Identifier: GPL-2.0
/*
 * report: the application's stages of each group (ntprof-report(1), "The
 * application's stages"), beside the view's stages that model_groups.c
 * fills.  They are of the commands that have the application's stamps
 * only, so they have their own count, samples and sums; the sum check is
 * on the wider end-to-end: submit + e2e + complete + reap = app e2e, with
 * e2e the window's end-to-end latency of those same commands.
 */
#include <errno.h>
#include <math.h>

#include "lib/core/checked.h"
#include "lib/model/model_app.h"

/* its names from the table of stages (lib/core/stage_table.h) */
#define STAGE(s, what) \
	{ ntp_stages[NTP_STAGE_##s].label, ntp_stages[NTP_STAGE_##s].key, what, NTP_STAGE_##s }

const struct ntp_view_stage ntp_report__app_stages[NTP_APP_STAGES] = {
	[NTP_APP_SUBMIT] = STAGE(APP_SUBMIT,
				 "the application's I/O system call entered to the bio issued"),
	[NTP_APP_COMPLETE] = STAGE(APP_COMPLETE,
				   "nvme_complete_rq to the completion posted to the application"),
	[NTP_APP_REAP] = STAGE(APP_REAP,
			       "the completion posted to the application taking it (0 without a reap)"),
};

const struct ntp_view_stage ntp_report__app_total = STAGE(APP_E2E,
	"the application's end-to-end: its system call entered to the completion taken");

void ntp_app_acc__init(struct ntp_app_acc *a)
{
	ntp_samples__init(&a->e2e);
	for (int s = 0; s < NTP_APP_STAGES; s++)
		ntp_samples__init(&a->stage[s]);
}

void ntp_app_acc__free(struct ntp_app_acc *a)
{
	ntp_samples__free(&a->e2e);
	for (int s = 0; s < NTP_APP_STAGES; s++)
		ntp_samples__free(&a->stage[s]);
	ntp_app_acc__init(a);
}

/* the sum of g's stage sums and its window sum; it fits, as add and merge keep it so */
static int64_t parts_total(const struct ntp_report_app *g)
{
	return g->sum_window + g->sum_stage[0] + g->sum_stage[1] + g->sum_stage[2];
}

int ntp_app_acc__add(struct ntp_app_acc *a, struct ntp_report_app *g, int64_t window,
		     const struct ntp_app_row *row)
{
	const int64_t v[NTP_APP_STAGES] = { row->submit, row->complete, row->reap };
	int64_t sums[NTP_APP_STAGES], sum_e2e, sum_window, own;
	bool ovf = false;

	if (row->state != NTP_APP_ROW_OK || row->app_e2e < 0 || v[0] < 0 || v[1] < 0 || v[2] < 0) {
		g->impossible++;
		return 0;
	}
	/* every sum it joins, and theirs together (the sum check adds them), still fits */
	sum_e2e = ntp_checked__add(g->sum_e2e, row->app_e2e, &ovf);
	sum_window = ntp_checked__add(g->sum_window, window, &ovf);
	own = window;
	for (int s = 0; s < NTP_APP_STAGES; s++) {
		sums[s] = ntp_checked__add(g->sum_stage[s], v[s], &ovf);
		own = ntp_checked__add(own, v[s], &ovf);
	}
	ntp_checked__add(parts_total(g), own, &ovf);
	if (ovf) {
		g->impossible++;
		return 0;
	}
	if (ntp_samples__add(&a->e2e, row->app_e2e))
		return -ENOMEM;
	for (int s = 0; s < NTP_APP_STAGES; s++)
		if (ntp_samples__add(&a->stage[s], v[s]))
			return -ENOMEM;
	g->sum_e2e = sum_e2e;
	g->sum_window = sum_window;
	for (int s = 0; s < NTP_APP_STAGES; s++)
		g->sum_stage[s] = sums[s];
	g->reaped += row->reaped;
	/* by the view's construction never; counted so that a wrong one shows */
	if (own != row->app_e2e)
		g->mismatched++;
	return 0;
}

int ntp_app_acc__merge(struct ntp_app_acc *dst, struct ntp_report_app *dg,
		       struct ntp_app_acc *src, const struct ntp_report_app *sg)
{
	bool ovf = false;

	dg->impossible += sg->impossible;
	ntp_checked__add(dg->sum_e2e, sg->sum_e2e, &ovf);
	ntp_checked__add(dg->sum_window, sg->sum_window, &ovf);
	for (int s = 0; s < NTP_APP_STAGES; s++)
		ntp_checked__add(dg->sum_stage[s], sg->sum_stage[s], &ovf);
	ntp_checked__add(parts_total(dg), parts_total(sg), &ovf);
	if (ovf) {
		/* the halves' sums do not fit together: src's application stages are left out */
		dg->impossible += src->e2e.n;
		ntp_app_acc__free(src);
		return 0;
	}
	if (ntp_samples__append(&dst->e2e, &src->e2e))
		return -ENOMEM;
	for (int s = 0; s < NTP_APP_STAGES; s++) {
		if (ntp_samples__append(&dst->stage[s], &src->stage[s]))
			return -ENOMEM;
		dg->sum_stage[s] += sg->sum_stage[s];
	}
	dg->sum_e2e += sg->sum_e2e;
	dg->sum_window += sg->sum_window;
	dg->reaped += sg->reaped;
	dg->mismatched += sg->mismatched;
	return 0;
}

size_t ntp_app_acc__jobs(struct ntp_app_acc *a, struct ntp_report_app *g,
			 struct ntp_summary_job *jobs)
{
	jobs[0] = (struct ntp_summary_job){ &a->e2e, &g->e2e };
	for (int s = 0; s < NTP_APP_STAGES; s++)
		jobs[1 + s] = (struct ntp_summary_job){ &a->stage[s], &g->stage[s] };
	return NTP_APP_JOBS;
}

bool ntp_report__any_app(const struct ntp_report *r)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (r->groups[i].app.e2e.n || r->groups[i].app.impossible)
			return true;
	return false;
}

int ntp_report__app_sum_ok(const struct ntp_report_group *g)
{
	const struct ntp_report_app *a = &g->app;

	if (!a->e2e.n)
		return 0;
	return parts_total(a) == a->sum_e2e && !a->mismatched;
}

double ntp_report__app_share_pct(const struct ntp_report_group *g, double mean_ns)
{
	if (!g->app.e2e.n || g->app.e2e.mean == 0)
		return NAN;
	return mean_ns / g->app.e2e.mean * 100.0;
}
