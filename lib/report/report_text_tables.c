// SPDX-License-Identifier: GPL-2.0
/*
 * report: the two tables of groups every text report prints, a recording
 * alone and joined recordings alike (report_text.c, compare_text.c): the
 * end-to-end latency of each group, and each group's stages.  Their columns
 * are report_table.c's, their statistics lib/core/stat_table.h's; times in
 * us, means rounded to whole ns first.
 */
#include <inttypes.h>
#include <string.h>

#include "lib/core/size.h"
#include "lib/report/report_fields.h"
#include "lib/model/model.h"
#include "lib/report/report_table.h"
#include "lib/report/report_text_tables.h"

/*
 * A row's cells and columns are indexed alike: the table's key columns
 * first, then one per statistic, at KEYS + its enum ntp_stat.
 */
enum { K_FILE, K_IO_TYPE, K_SIZE, K_NS, KEYS };
enum { K_STAGE = K_FILE };
#define COLS (KEYS + NTP_NSTATS)
#define STAT(st) (KEYS + (st))

static const struct ntp_col group_keys[KEYS] = {
	[K_FILE]    = { "file", 4, "%" PRId64 },
	[K_IO_TYPE] = { "io_type", -7, "%s" },
	[K_SIZE]    = { "size", 7, "%s" },
	[K_NS]      = { "namespace", -12, "%s" },
};
static const struct ntp_col stage_key = { "stage", -12, "%s" };

/* statistic st's column: its title, 9 wide (the rate 12, the share 7) */
static struct ntp_col stat_col(enum ntp_stat st)
{
	const char *title = ntp_stats[st].title;

	switch (st) {
	case NTP_STAT_N:
		return (struct ntp_col){ title, 9, "%" PRId64 };
	case NTP_STAT_RATE:
		return (struct ntp_col){ title, 12, "%.1f" };
	case NTP_STAT_SHARE:
		return (struct ntp_col){ title, 7, "%.1f" };
	default:
		return (struct ntp_col){ title, 9, "%.2f" };
	}
}

/* the table's columns, keys and statistics, by index */
static void columns(struct ntp_col *cols, bool stage_table)
{
	for (int k = 0; k < KEYS; k++)
		cols[k] = stage_table ? stage_key : group_keys[k];
	for (int st = 0; st < NTP_NSTATS; st++)
		cols[STAT(st)] = stat_col((enum ntp_stat)st);
}

/* does the table have statistic st: n and the rate the end-to-end one, the share the stages' */
static bool has_stat(enum ntp_stat st, bool stage_table)
{
	if (st == NTP_STAT_N || st == NTP_STAT_RATE)
		return !stage_table;
	if (st == NTP_STAT_SHARE)
		return stage_table;
	return true;
}

/*
 * The columns shown, into idx: the key columns [first, nkeys), then the
 * statistics (n and the rate, min, mean, the listed percentiles, max, the
 * share, stddev: stddev last, so that every older column keeps its place
 * for `-t` readers and awk scripts), or with -F those of fl in its order.
 * Their number.
 */
static int pick(int first, int nkeys, bool stage_table, const struct ntp_report_fields *fl,
		int *idx)
{
	enum ntp_stat st[NTP_NSTATS + 4];
	int n = 0, ns = 0;

	for (int c = first; c < nkeys; c++)
		idx[n++] = c;
	if (fl && fl->nfields) {
		for (int i = 0; i < fl->nfields; i++)
			st[ns++] = fl->list[i];
	} else {
		st[ns++] = NTP_STAT_N;
		st[ns++] = NTP_STAT_RATE;
		ns += ntp_stat__latencies(st + ns);
		st[ns++] = NTP_STAT_SHARE;
		st[ns++] = NTP_STAT_STDDEV;
	}
	for (int i = 0; i < ns; i++)
		if (has_stat(st[i], stage_table))
			idx[n++] = STAT(st[i]);
	return n;
}

/* the picked columns and cells, side by side */
static void print_picked(FILE *f, const struct ntp_col *all, const struct ntp_cell *cells,
			 const int *idx, int n, const char *sep)
{
	struct ntp_col cols[COLS];
	struct ntp_cell c[COLS];

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

void ntp_report__print_percentile_note(FILE *f)
{
	enum ntp_stat st[NTP_PCT_MAX];
	char mins[256];
	int n = ntp_summary__npercentiles();

	for (int i = 0; i < n; i++)
		st[i] = (enum ntp_stat)(NTP_STAT_PCT + i);
	ntp_stat__minimums(mins, sizeof(mins), st, n, false);
	fprintf(f, "# a percentile from this many commands, '-' with fewer: %s\n", mins);
}

bool ntp_report__stage_tables_shown(const struct ntp_report_fields *fl)
{
	int idx[COLS];

	return pick(K_STAGE, K_STAGE + 1, true, fl, idx) > 1;
}

void ntp_report__print_group_titles(FILE *f, bool file_col, const char *ns_title, const char *sep,
				    const struct ntp_report_fields *fl)
{
	struct ntp_col cols[COLS];
	int idx[COLS];
	int n = pick(file_col ? K_FILE : K_IO_TYPE, KEYS, false, fl, idx);

	columns(cols, false);
	cols[K_NS].name = ns_title;
	print_picked(f, cols, NULL, idx, n, sep);
}

/* s's latencies and stddev in us, each "-" where s has too few commands for it */
static void latency_cells(struct ntp_cell *c, const struct ntp_summary *s)
{
	enum ntp_stat st[NTP_NSTATS + 1];
	int n = ntp_stat__latencies(st);

	st[n++] = NTP_STAT_STDDEV;
	for (int i = 0; i < n; i++)
		c[STAT(st[i])] = ntp_stat__shown(s, st[i]) ?
				 ntp_report__us_cell(ntp_stat__of(s, st[i])) :
				 ntp_report__none_cell();
}

void ntp_report__print_group_row(FILE *f, const struct ntp_report_group *g, bool file_col,
				 const char *sep, const struct ntp_report_fields *fl)
{
	struct ntp_col cols[COLS];
	struct ntp_cell c[COLS];
	int idx[COLS];
	int n = pick(file_col ? K_FILE : K_IO_TYPE, KEYS, false, fl, idx);
	char size[32];

	columns(cols, false);
	ntp_size__str(g->bytes, size, sizeof(size));
	c[K_FILE] = ntp_report__int_cell(g->host_file);
	c[K_IO_TYPE] = ntp_report__str_cell(g->io_type);
	c[K_SIZE] = ntp_report__str_cell(size);
	c[K_NS] = ntp_report__str_cell(g->ns);
	c[STAT(NTP_STAT_N)] = ntp_report__int_cell((int64_t)g->e2e.n);
	c[STAT(NTP_STAT_RATE)] = g->est_rate >= 0 ? ntp_report__dbl_cell(g->est_rate) :
				 ntp_report__none_cell();
	latency_cells(c, &g->e2e);
	print_picked(f, cols, c, idx, n, sep);
}

static void summary_cells(struct ntp_cell *c, const struct ntp_summary *s, double share)
{
	latency_cells(c, s);
	c[STAT(NTP_STAT_SHARE)] = s->n ? ntp_report__dbl_cell(share) : ntp_report__none_cell();
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
		    const struct ntp_summary *s, const struct ntp_col *cols, const int *idx, int n,
		    const char *sep)
{
	struct ntp_cell c[COLS];

	for (int i = 0; i < COLS; i++)
		c[i] = ntp_report__none_cell();
	if (g->app.e2e.n)
		summary_cells(c, s, ntp_report__app_share_pct(g, s->mean));
	c[K_STAGE] = ntp_report__str_cell(label);
	print_picked(f, cols, c, idx, n, sep);
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
	struct ntp_col cols[COLS];
	struct ntp_cell c[COLS];
	int idx[COLS];
	int n = pick(K_STAGE, K_STAGE + 1, true, fl, idx);

	columns(cols, true);
	print_picked(f, cols, NULL, idx, n, sep);
	if (app)
		app_row(f, g, as[NTP_APP_SUBMIT].text, &g->app.stage[NTP_APP_SUBMIT], cols, idx, n,
			sep);
	for (int s = 0; s < nstages; s++) {
		c[K_STAGE] = ntp_report__str_cell(stages[s].text);
		summary_cells(c, &g->stage[s], ntp_report__share_pct(g, g->stage[s].mean));
		print_picked(f, cols, c, idx, n, sep);
	}
	for (int s = NTP_APP_COMPLETE; app && s < NTP_APP_STAGES; s++)
		app_row(f, g, as[s].text, &g->app.stage[s], cols, idx, n, sep);
	/* what no stage explains: only a mean exists for it */
	for (int i = 0; i < COLS; i++)
		c[i] = ntp_report__none_cell();
	c[K_STAGE] = ntp_report__str_cell("unattributed");
	c[STAT(NTP_STAT_MEAN)] = ntp_report__us_cell(ntp_report__round_ns(un));
	c[STAT(NTP_STAT_SHARE)] = ntp_report__dbl_cell(ntp_report__share_pct(g, un));
	print_picked(f, cols, c, idx, n, sep);
	c[K_STAGE] = ntp_report__str_cell(total);
	summary_cells(c, &g->e2e, ntp_report__share_pct(g, g->e2e.mean));
	print_picked(f, cols, c, idx, n, sep);
	if (app)
		app_row(f, g, ntp_report__app_total.text, &g->app.e2e, cols, idx, n, sep);
	print_sum_check(f, g, nstages, total);
	if (app)
		print_app_sum_check(f, g, total);
	print_impossible(f, g);
}
