// SPDX-License-Identifier: GPL-2.0
/*
 * report -t SEP: the long form.  The text's two tables mix two row shapes
 * (a group's row, then its stages' rows without the group), write sizes as
 * "4KiB" and times in rounded us, and do not quote: a tool would have to
 * know the layout to read them.  Here every row has the same columns, the
 * group's keys repeated, the statistic named as in the JSON (its unit in
 * its name: _ns integer nanoseconds, _pct percent, n a count,
 * est_cmds_per_s a rate) and its value exact as the JSON has it.  Fields
 * are quoted as dump quotes (lib/fmt/csv.h), and there is no comment line:
 * the first row names the columns.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "lib/fmt/csv.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/report/report_fields.h"
#include "lib/model/model.h"
#include "lib/report/report_separated.h"

static const char *const columns[] = { NTP_REPORT_TIDY_COLUMNS };

struct rows {
	FILE *f;
	const char *sep;
	const struct ntp_report_group *g;
	int target;               /* a target alone: the group is its device */
	const struct ntp_report_fields *fields;   /* -F: the statistics' rows; none: all */
	bool app;                 /* the report has the application's stages */
};

/* is a row of statistic st wanted?  Without -F every one */
static bool wanted(const struct rows *t, enum ntp_stat st)
{
	if (!t->fields || !t->fields->nfields)
		return true;
	for (int i = 0; i < t->fields->nfields; i++)
		if (t->fields->list[i] == st)
			return true;
	return false;
}

void ntp_report__separated_keys(FILE *f, const char *sep, int file, const char *io_type, int64_t bytes,
			   const char *ns, bool target, const char *stage, const char *stat)
{
	const char *const text[] = { io_type, NULL, target ? NULL : ns, target ? ns : NULL, stage,
				     stat };

	ntp_csv__int(f, file);
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		fputs(sep, f);
		if (i == 1)
			ntp_csv__int(f, bytes);
		else
			ntp_csv__text(f, text[i], sep);
	}
}

/* the keys of the row: the group, then the stage and the statistic */
static void keys(const struct rows *t, const char *stage, const char *stat)
{
	ntp_report__separated_keys(t->f, t->sep, t->g->host_file, t->g->io_type, t->g->bytes, t->g->ns,
			      t->target, stage, stat);
	fputs(t->sep, t->f);
}

static void int_row(const struct rows *t, const char *stage, const char *stat, int64_t v)
{
	keys(t, stage, stat);
	ntp_csv__int(t->f, v);
	fputc('\n', t->f);
}

/* NaN or a negative rate (unknown) leaves the value empty, as the JSON's null */
static void dbl_row(const struct rows *t, const char *stage, const char *stat, double v)
{
	keys(t, stage, stat);
	ntp_csv__double(t->f, v);
	fputc('\n', t->f);
}

/* statistic st's row, named by its key and unit ("p99_9_ns"); empty where it is not shown */
static void stat_row(const struct rows *t, const char *stage, const struct ntp_summary *s,
		     enum ntp_stat st)
{
	char name[40];

	if (!wanted(t, st))
		return;
	snprintf(name, sizeof(name), "%s%s%s", ntp_stats[st].key, *ntp_stats[st].unit ? "_" : "",
		 ntp_stats[st].unit);
	if (ntp_stat__shown(s, st))
		int_row(t, stage, name, ntp_stat__of(s, st));
	else
		dbl_row(t, stage, name, NAN);
}

static void summary_rows_share(const struct rows *t, const char *stage,
			       const struct ntp_summary *s, double share)
{
	enum ntp_stat st[NTP_NSTATS];
	int n = ntp_stat__latencies(st);

	stat_row(t, stage, s, NTP_STAT_N);
	for (int i = 0; i < n; i++)
		stat_row(t, stage, s, st[i]);
	stat_row(t, stage, s, NTP_STAT_STDDEV);
	if (wanted(t, NTP_STAT_SHARE))
		dbl_row(t, stage, "share_pct", s->n ? share : NAN);
}

static void summary_rows(const struct rows *t, const char *stage, const struct ntp_summary *s)
{
	summary_rows_share(t, stage, s, ntp_report__share_pct(t->g, s->mean));
}

/* an application stage: its share of the app e2e mean, as the JSON's "app" has it */
static void app_rows(const struct rows *t, const char *stage, const struct ntp_summary *s)
{
	summary_rows_share(t, stage, s, ntp_report__app_share_pct(t->g, s->mean));
}

static void group_rows(struct rows *t, const struct ntp_view *v)
{
	const struct ntp_report_group *g = t->g;
	double un = ntp_report__stages_unattributed_ns(g, v->nstages);

	const struct ntp_view_stage *as = ntp_report__app_stages;

	if (t->app)
		app_rows(t, as[NTP_APP_SUBMIT].json, &g->app.stage[NTP_APP_SUBMIT]);
	for (int s = 0; s < v->nstages; s++)
		summary_rows(t, v->stages[s].json, &g->stage[s]);
	for (int s = NTP_APP_COMPLETE; t->app && s < NTP_APP_STAGES; s++)
		app_rows(t, as[s].json, &g->app.stage[s]);
	if (wanted(t, NTP_STAT_MEAN))
		int_row(t, "unattributed", "mean_ns", ntp_report__round_ns(un));
	if (wanted(t, NTP_STAT_SHARE))
		dbl_row(t, "unattributed", "share_pct", ntp_report__share_pct(g, un));
	/* a target alone: the residence (the JSON's e2e_is) */
	summary_rows(t, "e2e", &g->e2e);
	if (wanted(t, NTP_STAT_RATE))
		dbl_row(t, "e2e", "est_cmds_per_s", g->est_rate >= 0 ? g->est_rate : NAN);
	int_row(t, "e2e", "mismatched_commands", (int64_t)g->mismatched);
	if (!t->app)
		return;
	app_rows(t, ntp_report__app_total.json, &g->app.e2e);
	int_row(t, ntp_report__app_total.json, "mismatched_commands", (int64_t)g->app.mismatched);
}

int ntp_report__print_separated(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	struct rows t = { .f = f, .sep = o->field_separator,
			  .target = r->kind == NTP_REPORT_TARGET, .fields = &o->fields,
			  .app = r->app };
	const struct ntp_view *v = ntp_report__view(r);

	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++) {
		if (i)
			fputs(t.sep, f);
		ntp_csv__text(f, columns[i], t.sep);
	}
	fputc('\n', f);
	for (size_t i = 0; i < r->ngroups; i++) {
		t.g = &r->groups[i];
		group_rows(&t, v);
	}
	return ferror(f) ? NTP_EXIT_FAILURE : NTP_EXIT_OK;
}

void ntp_report__warn_separated(const struct ntp_report *r)
{
	double pct = ntp_report__matched_pct(r);

	if (r->kind == NTP_REPORT_JOINED && (!isfinite(pct) || pct < NTP_REPORT_WARN_PCT))
		ntp_warn("only %.2f%% of the host's sampled commands were joined (below %.0f%%): "
			 "the rows describe the joined ones only", isfinite(pct) ? pct : 0.0,
			 NTP_REPORT_WARN_PCT);
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_report_file *rf = &r->files[i];
		uint64_t lost = rf->hdr.lost_ringbuf + rf->hdr.lost_map +
				rf->t_lost_ringbuf + rf->t_lost_map;

		if (lost)
			ntp_warn("%s: %llu sampled commands were lost while recording; the rows do "
				 "not include them", rf->hdr.path, (unsigned long long)lost);
	}
}
