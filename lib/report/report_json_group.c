// SPDX-License-Identifier: GPL-2.0
/*
 * report: a group's JSON object and its summaries, the same in every
 * report's document (report_json.c) and in compare's, as the text's tables
 * are (report_text_tables.c).
 */
#include <stdio.h>

#include "lib/core/stat_table.h"
#include "lib/fmt/json.h"
#include "lib/core/hist.h"
#include "lib/report/report_json_group.h"
#include "lib/model/model.h"

void ntp_report__json_percentiles(struct ntp_json *j)
{
	ntp_json__name(j, "percentiles");
	ntp_json__start_array(j);
	for (int i = 0; i < ntp_summary__npercentiles(); i++) {
		const struct ntp_stat_desc *d = &ntp_stats[NTP_STAT_PCT + i];

		ntp_json__start_object(j);
		ntp_json__string_field(j, "name", d->name);
		ntp_json__string_field(j, "key", d->key);
		ntp_json__double_field(j, "p", d->pct);
		ntp_json__int_field(j, "min_n_shown", (int64_t)d->min_shown);
		ntp_json__int_field(j, "min_n_tested", (int64_t)d->min_n);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}

/*
 * A summary's latencies, in the documents' order (schema/report.schema.json):
 * min, mean, stddev, the listed percentiles, max; null where the summary
 * has too few commands for one (no command: none), never a 0 or a
 * maximum that reads as that statistic.
 */
void ntp_report__json_summary(struct ntp_json *j, const struct ntp_summary *s)
{
	enum ntp_stat st[NTP_NSTATS + 1];
	int n = ntp_stat__latencies(st);

	for (int i = n; i > 2; i--)
		st[i] = st[i - 1];
	st[2] = NTP_STAT_STDDEV;
	for (int i = 0; i <= n; i++) {
		const struct ntp_stat_desc *d = &ntp_stats[st[i]];
		char key[40];

		snprintf(key, sizeof(key), "%s_%s", d->key, d->unit);
		if (ntp_stat__shown(s, st[i]))
			ntp_json__int_field(j, key, ntp_stat__of(s, st[i]));
		else
			ntp_json__name(j, key), ntp_json__null(j);
	}
}

/*
 * --histogram: the contiguous range of buckets (form's number an octave)
 * from the first non-empty one to the last (empty ones between kept, as the
 * text draws them), bounds inclusive in ns whatever the form's unit; the
 * first bucket (below 1 ns) starts at the smallest sample.  Without
 * --histogram (hist NULL) the member is null: every document has it.
 */
static void histogram_member(struct ntp_json *j, const struct ntp_summary *s,
			     const struct ntp_hist_form *hist)
{
	int bits = ntp_hist_form__bits(hist), first = 1, last = 0;

	ntp_json__name(j, "histogram");
	if (!hist || !s->hist) {
		ntp_json__null(j);
		return;
	}
	if (s->n)
		ntp_hist__range(s->hist, bits, &first, &last);
	ntp_json__start_array(j);
	for (int k = first; k <= last; k++) {
		ntp_json__start_object(j);
		ntp_json__int_field(j, "lo_ns", k == 0 ? s->min : ntp_hist__lo(k, bits));
		ntp_json__int_field(j, "hi_ns", ntp_hist__hi(k, bits));
		ntp_json__uint_field(j, "count", ntp_hist__count(s->hist, k, bits));
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}

void ntp_report__json_group_keys(struct ntp_json *j, const struct ntp_report_group *g, bool target)
{
	ntp_json__string_field(j, "io_type", g->io_type);
	ntp_json__int_field(j, "bytes", g->bytes);
	/* a host's groups are of its namespace disks, a target alone's of its backend devices */
	ntp_json__string_field(j, "namespace", target ? NULL : g->ns);
	ntp_json__string_field(j, "device", target ? g->ns : NULL);
	ntp_report__json_group_counts(j, g);
}

void ntp_report__json_group_counts(struct ntp_json *j, const struct ntp_report_group *g)
{
	ntp_json__uint_field(j, "n", g->e2e.n);
	ntp_json__name(j, "est_cmds_per_s");
	if (g->est_rate >= 0)
		ntp_json__double(j, g->est_rate);
	else
		ntp_json__null(j);
}

/*
 * "app": the application's stages of the group (ntprof-report(1), JSON),
 * null when the report has none: of the commands with the application's
 * stamps, their count, the app e2e, submit, complete and reap, and the
 * wider sum check.
 */
static void app_member(struct ntp_json *j, const struct ntp_report_group *g, bool app,
		       const struct ntp_hist_form *histogram)
{
	const struct ntp_report_app *a = &g->app;
	int64_t parts = a->sum_window;

	ntp_json__name(j, "app");
	if (!app) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__uint_field(j, "n", a->e2e.n);
	ntp_json__uint_field(j, "reaped", a->reaped);
	ntp_json__uint_field(j, "impossible_commands", a->impossible);
	ntp_json__name(j, "e2e");
	ntp_json__start_object(j);
	ntp_report__json_summary(j, &a->e2e);
	histogram_member(j, &a->e2e, histogram);
	ntp_json__end_object(j);
	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (int s = 0; s < NTP_APP_STAGES; s++) {
		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", ntp_report__app_stages[s].json);
		ntp_report__json_summary(j, &a->stage[s]);
		histogram_member(j, &a->stage[s], histogram);
		ntp_json__double_field(j, "share_pct", ntp_report__app_share_pct(g, a->stage[s].mean));
		ntp_json__end_object(j);
		parts += a->sum_stage[s];
	}
	ntp_json__end_array(j);
	ntp_json__name(j, "sum_check");
	ntp_json__start_object(j);
	ntp_json__bool_field(j, "ok", ntp_report__app_sum_ok(g));
	ntp_json__int_field(j, "stage_sum_ns", parts);
	ntp_json__int_field(j, "e2e_sum_ns", a->sum_window);
	ntp_json__int_field(j, "app_e2e_sum_ns", a->sum_e2e);
	ntp_json__uint_field(j, "mismatched_commands", a->mismatched);
	ntp_json__end_object(j);
	ntp_json__end_object(j);
}

void ntp_report__json_group(struct ntp_json *j, const struct ntp_report_group *g,
			    const struct ntp_view_stage *stages, int nstages, bool target,
			    const struct ntp_hist_form *histogram, bool app)
{
	double un = ntp_report__stages_unattributed_ns(g, nstages);
	int64_t stage_sum = 0;

	ntp_json__start_object(j);
	ntp_json__int_field(j, "file", g->host_file);
	ntp_report__json_group_keys(j, g, target);

	/* a target alone: its residence (the document's "e2e_is") */
	ntp_json__name(j, "e2e");
	ntp_json__start_object(j);
	ntp_report__json_summary(j, &g->e2e);
	histogram_member(j, &g->e2e, histogram);
	ntp_json__end_object(j);

	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (int s = 0; s < nstages; s++) {
		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", stages[s].json);
		ntp_report__json_summary(j, &g->stage[s]);
		histogram_member(j, &g->stage[s], histogram);
		ntp_json__double_field(j, "share_pct", ntp_report__share_pct(g, g->stage[s].mean));
		ntp_json__end_object(j);
		stage_sum += g->sum_stage[s];
	}
	ntp_json__end_array(j);
	ntp_json__int_field(j, "unattributed_mean_ns", ntp_report__round_ns(un));
	ntp_json__double_field(j, "unattributed_pct", ntp_report__share_pct(g, un));

	ntp_json__name(j, "sum_check");
	ntp_json__start_object(j);
	ntp_json__bool_field(j, "ok", ntp_report__sum_ok(g, nstages));
	ntp_json__int_field(j, "stage_sum_ns", stage_sum);
	ntp_json__int_field(j, "e2e_sum_ns", g->sum_e2e);
	ntp_json__uint_field(j, "mismatched_commands", g->mismatched);
	/* always, 0 in a normal recording: the document has one shape */
	ntp_json__uint_field(j, "impossible_commands", ntp_report__impossible(g));
	ntp_json__name(j, "impossible");
	ntp_json__start_object(j);
	for (int i = 0; i < NTP_IMPOSSIBLE_MAX; i++)
		ntp_json__uint_field(j, ntp_report__impossible_name(i), g->impossible[i]);
	ntp_json__end_object(j);
	ntp_json__end_object(j);
	app_member(j, g, app, histogram);
	ntp_json__end_object(j);
}
