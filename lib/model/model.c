// SPDX-License-Identifier: GPL-2.0
/*
 * report: a group's making and freeing, and the small computations on a
 * group that every printer (text, JSON, compare) shares.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/model/model.h"

int ntp_report_group__init(struct ntp_report_group *g, int file, const char *io_type,
			   int64_t bytes, const char *ns, int nstages)
{
	memset(g, 0, sizeof(*g));
	g->host_file = file;
	g->bytes = bytes;
	g->est_rate = -1;
	g->nstages = nstages;
	g->io_type = strdup(io_type);
	g->ns = strdup(ns);
	g->stage = calloc(nstages > 0 ? (size_t)nstages : 1, sizeof(*g->stage));
	if (g->io_type && g->ns && g->stage)
		return 0;
	ntp_report_group__free(g);
	return -ENOMEM;
}

void ntp_report_group__free(struct ntp_report_group *g)
{
	free(g->io_type);
	free(g->ns);
	ntp_summary__free(&g->e2e);
	for (int s = 0; g->stage && s < g->nstages; s++)
		ntp_summary__free(&g->stage[s]);
	free(g->stage);
	ntp_summary__free(&g->app.e2e);
	for (int s = 0; s < NTP_APP_STAGES; s++)
		ntp_summary__free(&g->app.stage[s]);
	g->io_type = g->ns = NULL;
	g->stage = NULL;
}

int64_t ntp_report__round_ns(double ns)
{
	return (int64_t)llround(ns);
}

/* from the exact integer sums, so commands that add up give exactly 0 */
double ntp_report__stages_unattributed_ns(const struct ntp_report_group *g, int nstages)
{
	int64_t d = g->sum_e2e;

	if (!g->e2e.n)
		return 0;
	for (int s = 0; s < nstages; s++)
		d -= g->sum_stage[s];
	return (double)d / (double)g->e2e.n;
}

/* a group of impossible commands alone has nothing that could add up: never ok */
int ntp_report__sum_ok(const struct ntp_report_group *g, int nstages)
{
	int64_t sum = 0;

	if (!g->e2e.n && ntp_report__impossible(g))
		return 0;
	/* the sums were checked as they grew (model_groups.c): these cannot overflow */
	for (int s = 0; s < nstages; s++)
		sum += g->sum_stage[s];
	return sum == g->sum_e2e && !g->mismatched;
}

uint64_t ntp_report__impossible(const struct ntp_report_group *g)
{
	uint64_t n = 0;

	for (int i = 0; i < NTP_IMPOSSIBLE_MAX; i++)
		n += g->impossible[i];
	return n;
}

const char *ntp_report__impossible_name(enum ntp_impossible why)
{
	switch (why) {
	case NTP_IMPOSSIBLE_BACKWARDS:
		return "backwards";
	case NTP_IMPOSSIBLE_NOT_NUMBER:
		return "not_a_number";
	case NTP_IMPOSSIBLE_OVERFLOW:
		return "overflow";
	case NTP_IMPOSSIBLE_MAX:
		break;
	}
	return "?";
}

double ntp_report__share_pct(const struct ntp_report_group *g, double mean_ns)
{
	if (g->e2e.n == 0 || g->e2e.mean == 0)
		return NAN;
	return mean_ns / g->e2e.mean * 100.0;
}

enum ntp_report_kind ntp_report__kind(enum ntp_kind k)
{
	return k == NTP_KIND_HOST ? NTP_REPORT_HOST : k == NTP_KIND_TARGET ? NTP_REPORT_TARGET :
	       NTP_REPORT_JOINED;
}
