// SPDX-License-Identifier: GPL-2.0
/*
 * report: the two tables of groups every text report prints, a recording
 * alone and joined recordings alike (report_text.c, compare_text.c): the
 * end-to-end latency of each group, and each group's stages.  Their columns
 * are report_table.c's; times in us, means rounded to whole ns first.
 * stddev is the last column of both, not beside the mean: added after the
 * others, it leaves every older column where `-t` readers and awk scripts
 * count it.
 */
#include <inttypes.h>
#include <string.h>

#include "lib/core/size.h"
#include "lib/report/report_fields.h"
#include "lib/model/model.h"
#include "lib/report/report_table.h"
#include "lib/report/report_text_tables.h"

/* the end-to-end table: one row per group; the file column only over several files */
enum { G_FILE, G_IO_TYPE, G_SIZE, G_NS, G_N, G_RATE, G_MIN, G_MEAN, G_P50, G_P90, G_P99, G_P999,
	G_MAX, G_STDDEV, G_COLS };
static const struct ntp_col group_cols[G_COLS] = {
	[G_FILE]    = { "file", 4, "%" PRId64 },
	[G_IO_TYPE] = { "io_type", -7, "%s" },
	[G_SIZE]    = { "size", 7, "%s" },
	[G_NS]      = { "namespace", -12, "%s" },
	[G_N]       = { "n", 9, "%" PRId64 },
	[G_RATE]    = { "est_cmds/s", 12, "%.1f" },
	[G_MIN]     = { "min", 9, "%.2f" },
	[G_MEAN]    = { "mean", 9, "%.2f" },
	[G_P50]     = { "p50", 9, "%.2f" },
	[G_P90]     = { "p90", 9, "%.2f" },
	[G_P99]     = { "p99", 9, "%.2f" },
	[G_P999]    = { "p99.9", 9, "%.2f" },
	[G_MAX]     = { "max", 9, "%.2f" },
	[G_STDDEV]  = { "stddev", 9, "%.2f" },
};

/* the stage table of one group: one row per stage, then unattributed and the total */
enum { S_STAGE, S_MIN, S_MEAN, S_P50, S_P90, S_P99, S_P999, S_MAX, S_SHARE, S_STDDEV, S_COLS };
static const struct ntp_col stage_cols[S_COLS] = {
	[S_STAGE] = { "stage", -12, "%s" },
	[S_MIN]   = { "min", 9, "%.2f" },
	[S_MEAN]  = { "mean", 9, "%.2f" },
	[S_P50]   = { "p50", 9, "%.2f" },
	[S_P90]   = { "p90", 9, "%.2f" },
	[S_P99]   = { "p99", 9, "%.2f" },
	[S_P999]  = { "p99.9", 9, "%.2f" },
	[S_MAX]   = { "max", 9, "%.2f" },
	[S_SHARE] = { "share%", 7, "%.1f" },
	[S_STDDEV] = { "stddev", 9, "%.2f" },
};

/* each field's column (report_fields.h) in the two tables; -1: not in that table */
static const int group_field_col[NTP_NSTATS] = {
	[NTP_STAT_N] = G_N, [NTP_STAT_RATE] = G_RATE, [NTP_STAT_MIN] = G_MIN,
	[NTP_STAT_MEAN] = G_MEAN, [NTP_STAT_P50] = G_P50, [NTP_STAT_P90] = G_P90,
	[NTP_STAT_P99] = G_P99, [NTP_STAT_P999] = G_P999, [NTP_STAT_MAX] = G_MAX,
	[NTP_STAT_SHARE] = -1, [NTP_STAT_STDDEV] = G_STDDEV,
};
static const int stage_field_col[NTP_NSTATS] = {
	[NTP_STAT_N] = -1, [NTP_STAT_RATE] = -1, [NTP_STAT_MIN] = S_MIN,
	[NTP_STAT_MEAN] = S_MEAN, [NTP_STAT_P50] = S_P50, [NTP_STAT_P90] = S_P90,
	[NTP_STAT_P99] = S_P99, [NTP_STAT_P999] = S_P999, [NTP_STAT_MAX] = S_MAX,
	[NTP_STAT_SHARE] = S_SHARE, [NTP_STAT_STDDEV] = S_STDDEV,
};

/*
 * The columns shown, into idx: the key columns [first, nkeys), then every
 * other column, or with -F those of fl in its order.  Their number.
 */
static int pick(int first, int nkeys, int ncols, const int *field_col,
		const struct ntp_report_fields *fl, int *idx)
{
	int n = 0;

	for (int c = first; c < nkeys; c++)
		idx[n++] = c;
	if (!fl || !fl->nfields) {
		for (int c = nkeys; c < ncols; c++)
			idx[n++] = c;
		return n;
	}
	for (int i = 0; i < fl->nfields; i++)
		if (field_col[fl->list[i]] >= 0)
			idx[n++] = field_col[fl->list[i]];
	return n;
}

/* the picked columns and cells, side by side */
static void print_picked(FILE *f, const struct ntp_col *all, const struct ntp_cell *cells,
			 const int *idx, int n, const char *sep)
{
	/* G_COLS is the wider table */
	struct ntp_col cols[G_COLS];
	struct ntp_cell c[G_COLS];

	for (int i = 0; i < n; i++) {
		cols[i] = all[idx[i]];
		if (cells)
			c[i] = cells[idx[i]];
	}
	if (cells)
		ntp_report__print_row(f, cols, n, c, sep);
	else
		ntp_report__print_titles(f, cols, n, sep);
}

_Static_assert((int)G_COLS >= (int)S_COLS, "print_picked holds a row of either table");

bool ntp_report__stage_tables_shown(const struct ntp_report_fields *fl)
{
	int idx[S_COLS];

	return pick(S_STAGE, S_MIN, S_COLS, stage_field_col, fl, idx) > S_MIN;
}

void ntp_report__print_group_titles(FILE *f, bool file_col, const char *ns_title, const char *sep,
				    const struct ntp_report_fields *fl)
{
	struct ntp_col cols[G_COLS];
	int idx[G_COLS];
	int n = pick(file_col ? G_FILE : G_IO_TYPE, G_N, G_COLS, group_field_col, fl, idx);

	memcpy(cols, group_cols, sizeof(cols));
	cols[G_NS].name = ns_title;
	print_picked(f, cols, NULL, idx, n, sep);
}

void ntp_report__print_group_row(FILE *f, const struct ntp_report_group *g, bool file_col,
				 const char *sep, const struct ntp_report_fields *fl)
{
	int idx[G_COLS];
	int n = pick(file_col ? G_FILE : G_IO_TYPE, G_N, G_COLS, group_field_col, fl, idx);
	struct ntp_cell c[G_COLS];
	char size[32];

	ntp_size__str(g->bytes, size, sizeof(size));
	c[G_FILE] = ntp_report__int_cell(g->host_file);
	c[G_IO_TYPE] = ntp_report__str_cell(g->io_type);
	c[G_SIZE] = ntp_report__str_cell(size);
	c[G_NS] = ntp_report__str_cell(g->ns);
	c[G_N] = ntp_report__int_cell((int64_t)g->e2e.n);
	c[G_RATE] = g->est_rate >= 0 ? ntp_report__dbl_cell(g->est_rate) :
		    (struct ntp_cell){ NTP_CELL_NONE };
	c[G_MIN] = ntp_report__us_cell(g->e2e.min);
	c[G_MEAN] = ntp_report__us_cell(ntp_report__round_ns(g->e2e.mean));
	c[G_P50] = ntp_report__us_cell(g->e2e.p50);
	c[G_P90] = ntp_report__us_cell(g->e2e.p90);
	c[G_P99] = ntp_report__us_cell(g->e2e.p99);
	c[G_P999] = ntp_report__us_cell(g->e2e.p999);
	c[G_MAX] = ntp_report__us_cell(g->e2e.max);
	c[G_STDDEV] = ntp_report__us_cell(ntp_report__round_ns(g->e2e.stddev));
	print_picked(f, group_cols, c, idx, n, sep);
}

static void summary_cells(struct ntp_cell *c, const struct ntp_summary *s, double share)
{
	c[S_MIN] = ntp_report__us_cell(s->min);
	c[S_MEAN] = ntp_report__us_cell(ntp_report__round_ns(s->mean));
	c[S_P50] = ntp_report__us_cell(s->p50);
	c[S_P90] = ntp_report__us_cell(s->p90);
	c[S_P99] = ntp_report__us_cell(s->p99);
	c[S_P999] = ntp_report__us_cell(s->p999);
	c[S_MAX] = ntp_report__us_cell(s->max);
	c[S_SHARE] = ntp_report__dbl_cell(share);
	c[S_STDDEV] = ntp_report__us_cell(ntp_report__round_ns(s->stddev));
}

static void print_sum_check(FILE *f, const struct ntp_report_group *g, int nstages,
			    const char *total)
{
	int64_t stage_sum = 0;

	for (int s = 0; s < nstages; s++)
		stage_sum += g->sum_stage[s];
	if (!g->e2e.n && ntp_report__impossible(g)) {
		fprintf(f, "# sum check: none: every command of the group is impossible\n");
		return;
	}
	if (ntp_report__sum_ok(g, nstages)) {
		fprintf(f, "# sum check: ok (the stage means add up to the %s mean; "
			"0 of %zu commands do not add up)\n", total, g->e2e.n);
		return;
	}
	/* to the ns, and the difference finer still: it may be a fraction of one */
	fprintf(f, "# sum check: FAILED: the stage means add up to %.3f us, the %s mean is "
		"%.3f us (difference %.2f ns); %" PRIu64 " of %zu commands do not add up\n",
		(double)stage_sum / (double)g->e2e.n / 1000.0, total,
		(double)g->sum_e2e / (double)g->e2e.n / 1000.0,
		ntp_report__stages_unattributed_ns(g, nstages), g->mismatched, g->e2e.n);
}

/* what was left out, and why (ntprof-report(1), Impossible commands); nothing when none */
static void print_impossible(FILE *f, const struct ntp_report_group *g)
{
	static const char *const what[NTP_IMPOSSIBLE_MAX] = {
		[NTP_IMPOSSIBLE_BACKWARDS] = "a stage that goes backwards",
		[NTP_IMPOSSIBLE_NOT_NUMBER] = "NULL or no number where a time belongs",
		[NTP_IMPOSSIBLE_OVERFLOW] = "arithmetic that overflows",
	};
	const char *sep = "";

	if (!ntp_report__impossible(g))
		return;
	fprintf(f, "# warning: %" PRIu64 " impossible commands excluded:", ntp_report__impossible(g));
	for (int i = 0; i < NTP_IMPOSSIBLE_MAX; i++) {
		if (!g->impossible[i])
			continue;
		fprintf(f, "%s %" PRIu64 " with %s", sep, g->impossible[i], what[i]);
		sep = ",";
	}
	fputc('\n', f);
}

/*
 * One of the application's rows: "-" for a group none of whose commands has
 * the application's stamps; its share of the app e2e mean.
 */
static void app_row(FILE *f, const struct ntp_report_group *g, const char *label,
		    const struct ntp_summary *s, const int *idx, int n, const char *sep)
{
	struct ntp_cell c[S_COLS];

	for (int i = 0; i < S_COLS; i++)
		c[i] = (struct ntp_cell){ NTP_CELL_NONE };
	if (g->app.e2e.n)
		summary_cells(c, s, ntp_report__app_share_pct(g, s->mean));
	c[S_STAGE] = ntp_report__str_cell(label);
	print_picked(f, stage_cols, c, idx, n, sep);
}

/* the wider sum check: submit + end-to-end + complete + reap = app e2e, per command */
static void print_app_sum_check(FILE *f, const struct ntp_report_group *g, const char *total)
{
	const struct ntp_report_app *a = &g->app;
	int64_t parts = a->sum_window;

	for (int s = 0; s < NTP_APP_STAGES; s++)
		parts += a->sum_stage[s];
	if (!a->e2e.n) {
		fprintf(f, "# app sum check: none: no command of the group has the application's "
			"stamps\n");
	} else if (ntp_report__app_sum_ok(g)) {
		fprintf(f, "# app sum check: ok (of the %zu commands with the application's stamps, "
			"submit + %s + complete + reap add up to the app e2e; 0 do not add up)\n",
			a->e2e.n, total);
	} else {
		fprintf(f, "# app sum check: FAILED: of the commands with the application's stamps, "
			"submit + %s + complete + reap add up to %.3f us, the app e2e mean is %.3f us; "
			"%" PRIu64 " of %zu commands do not add up\n",
			total, (double)parts / (double)a->e2e.n / 1000.0,
			(double)a->sum_e2e / (double)a->e2e.n / 1000.0, a->mismatched, a->e2e.n);
	}
	if (a->impossible)
		fprintf(f, "# warning: %" PRIu64 " commands' application stamps excluded from the "
			"application's stages: a stage that goes backwards, no number or arithmetic "
			"that overflows\n", a->impossible);
}

void ntp_report__print_app_stage_table(FILE *f, const struct ntp_report_group *g,
				       const struct ntp_view_stage *stages, int nstages,
				       const char *total, const char *sep,
				       const struct ntp_report_fields *fl, bool app)
{
	double un = ntp_report__stages_unattributed_ns(g, nstages);
	const struct ntp_view_stage *as = ntp_report__app_stages;
	struct ntp_cell c[S_COLS];
	int idx[S_COLS];
	int n = pick(S_STAGE, S_MIN, S_COLS, stage_field_col, fl, idx);

	print_picked(f, stage_cols, NULL, idx, n, sep);
	if (app)
		app_row(f, g, as[NTP_APP_SUBMIT].text, &g->app.stage[NTP_APP_SUBMIT], idx, n, sep);
	for (int s = 0; s < nstages; s++) {
		c[S_STAGE] = ntp_report__str_cell(stages[s].text);
		summary_cells(c, &g->stage[s], ntp_report__share_pct(g, g->stage[s].mean));
		print_picked(f, stage_cols, c, idx, n, sep);
	}
	for (int s = NTP_APP_COMPLETE; app && s < NTP_APP_STAGES; s++)
		app_row(f, g, as[s].text, &g->app.stage[s], idx, n, sep);
	/* what no stage explains: only a mean exists for it */
	for (int i = 0; i < S_COLS; i++)
		c[i] = (struct ntp_cell){ NTP_CELL_NONE };
	c[S_STAGE] = ntp_report__str_cell("unattributed");
	c[S_MEAN] = ntp_report__us_cell(ntp_report__round_ns(un));
	c[S_SHARE] = ntp_report__dbl_cell(ntp_report__share_pct(g, un));
	print_picked(f, stage_cols, c, idx, n, sep);
	c[S_STAGE] = ntp_report__str_cell(total);
	summary_cells(c, &g->e2e, ntp_report__share_pct(g, g->e2e.mean));
	print_picked(f, stage_cols, c, idx, n, sep);
	if (app)
		app_row(f, g, ntp_report__app_total.text, &g->app.e2e, idx, n, sep);
	print_sum_check(f, g, nstages, total);
	if (app)
		print_app_sum_check(f, g, total);
	print_impossible(f, g);
}
