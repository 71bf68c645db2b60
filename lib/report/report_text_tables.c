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

#include "lib/cli/term.h"
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

/*
 * A table's rows, given one at a time by a function: its cells, indexed as
 * the columns, and how the row is marked.
 */
typedef void (*row_fn)(void *ctx, int row, struct ntp_cell *c, enum ntp_paint *paint);

/*
 * The picked columns idx[0..n) (their first nkeys the keys) of nrows rows,
 * folded to the terminal's width (report_table.h): each block its titles,
 * then every row again, the keys first.  A marked row is coloured up to
 * its newline.
 */
static void print_table(FILE *f, const struct ntp_col *all, const int *idx, int n, int nkeys,
			int nrows, row_fn fn, void *ctx, const char *sep, const struct ntp_term *term)
{
	struct ntp_col cols[COLS], bc[COLS];
	struct ntp_cell c[COLS], pc[COLS], bv[COLS];
	int start[COLS + 1], nb;

	for (int i = 0; i < n; i++)
		cols[i] = all[idx[i]];
	/* separated fields are read by a program: never folded */
	nb = ntp_report__fold(cols, n, nkeys, sep || !term ? 0 : term->width, start);
	for (int b = 0; b < nb; b++) {
		int m = ntp_report__block(cols, NULL, nkeys, start, b, bc, NULL);

		ntp_report__print_titles(f, bc, m, sep);
		for (int r = 0; r < nrows; r++) {
			enum ntp_paint paint = NTP_PAINT_NONE;

			fn(ctx, r, c, &paint);
			for (int i = 0; i < n; i++)
				pc[i] = c[idx[i]];
			ntp_report__block(cols, pc, nkeys, start, b, bc, bv);
			if (paint != NTP_PAINT_NONE)
				ntp_term__paint(term, f, paint);
			ntp_report__print_cells(f, bc, m, bv, sep);
			if (paint != NTP_PAINT_NONE)
				ntp_term__paint(term, f, NTP_PAINT_NONE);
			fputc('\n', f);
		}
	}
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

/* the end-to-end table's rows: the report's groups */
struct group_rows {
	const struct ntp_report *r;
	char size[32];
};

static void group_row(void *ctx, int row, struct ntp_cell *c, enum ntp_paint *paint)
{
	struct group_rows *gr = ctx;
	const struct ntp_report_group *g = &gr->r->groups[row];

	ntp_size__str(g->bytes, gr->size, sizeof(gr->size));
	c[K_FILE] = ntp_report__int_cell(g->host_file);
	c[K_IO_TYPE] = ntp_report__str_cell(g->io_type);
	c[K_SIZE] = ntp_report__str_cell(gr->size);
	c[K_NS] = ntp_report__str_cell(g->ns);
	c[STAT(NTP_STAT_N)] = ntp_report__int_cell((int64_t)g->e2e.n);
	c[STAT(NTP_STAT_RATE)] = g->est_rate >= 0 ? ntp_report__dbl_cell(g->est_rate) :
				 ntp_report__none_cell();
	latency_cells(c, &g->e2e);
	*paint = NTP_PAINT_NONE;
}

void ntp_report__print_group_table(FILE *f, const struct ntp_report *r, bool file_col,
				   const char *ns_title, const char *sep,
				   const struct ntp_report_fields *fl, const struct ntp_term *term)
{
	struct group_rows gr = { .r = r };
	struct ntp_col cols[COLS];
	int idx[COLS];
	int first = file_col ? K_FILE : K_IO_TYPE;
	int n = pick(first, KEYS, false, fl, idx);

	columns(cols, false);
	cols[K_NS].name = ns_title;
	print_table(f, cols, idx, n, KEYS - first, (int)r->ngroups, group_row, &gr, sep, term);
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

/* a stage table's rows, made before it is printed: their cells and marks */
#define MAX_ROWS (NTP_VIEW_MAX_STAGES + NTP_APP_STAGES + 3)
struct stage_rows {
	struct ntp_cell c[MAX_ROWS][COLS];
	enum ntp_paint paint[MAX_ROWS];
	int n;
};

static struct ntp_cell *stage_row(struct stage_rows *sr, const char *label, enum ntp_paint paint)
{
	struct ntp_cell *c = sr->c[sr->n];

	for (int i = 0; i < COLS; i++)
		c[i] = ntp_report__none_cell();
	c[K_STAGE] = ntp_report__str_cell(label);
	sr->paint[sr->n++] = paint;
	return c;
}

static void stage_row_at(void *ctx, int row, struct ntp_cell *c, enum ntp_paint *paint)
{
	struct stage_rows *sr = ctx;

	memcpy(c, sr->c[row], sizeof(sr->c[row]));
	*paint = sr->paint[row];
}

/*
 * One of the application's rows: "-" for a group none of whose commands has
 * the application's stamps; its share of the app e2e mean.
 */
static void app_row(struct stage_rows *sr, const struct ntp_report_group *g, const char *label,
		    const struct ntp_summary *s)
{
	struct ntp_cell *c = stage_row(sr, label, NTP_PAINT_NONE);

	if (g->app.e2e.n)
		summary_cells(c, s, ntp_report__app_share_pct(g, s->mean));
}

/* the stage where most of the group's time goes, marked; -1 with fewer than two stages */
static int dominant_stage(const struct ntp_report_group *g, int nstages)
{
	int best = -1;

	if (nstages < 2)
		return -1;
	for (int s = 0; s < nstages; s++)
		if (g->stage[s].n && (best < 0 || g->stage[s].mean > g->stage[best].mean))
			best = s;
	return best;
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
				       const struct ntp_report_fields *fl, bool app,
				       const struct ntp_term *term)
{
	double un = ntp_report__stages_unattributed_ns(g, nstages);
	const struct ntp_view_stage *as = ntp_report__app_stages;
	struct stage_rows rows, *sr = &rows;
	struct ntp_col cols[COLS];
	struct ntp_cell *c;
	int idx[COLS];
	int n = pick(K_STAGE, K_STAGE + 1, true, fl, idx);
	int hot = dominant_stage(g, nstages);

	sr->n = 0;
	columns(cols, true);
	if (app)
		app_row(sr, g, as[NTP_APP_SUBMIT].text, &g->app.stage[NTP_APP_SUBMIT]);
	for (int s = 0; s < nstages; s++) {
		c = stage_row(sr, stages[s].text, s == hot ? NTP_PAINT_HOT : NTP_PAINT_NONE);
		summary_cells(c, &g->stage[s], ntp_report__share_pct(g, g->stage[s].mean));
	}
	for (int s = NTP_APP_COMPLETE; app && s < NTP_APP_STAGES; s++)
		app_row(sr, g, as[s].text, &g->app.stage[s]);
	/* what no stage explains: only a mean exists for it */
	c = stage_row(sr, "unattributed", NTP_PAINT_NONE);
	c[STAT(NTP_STAT_MEAN)] = ntp_report__us_cell(ntp_report__round_ns(un));
	c[STAT(NTP_STAT_SHARE)] = ntp_report__dbl_cell(ntp_report__share_pct(g, un));
	c = stage_row(sr, total, NTP_PAINT_NONE);
	summary_cells(c, &g->e2e, ntp_report__share_pct(g, g->e2e.mean));
	if (app)
		app_row(sr, g, ntp_report__app_total.text, &g->app.e2e);
	print_table(f, cols, idx, n, 1, sr->n, stage_row_at, sr, sep, term);
	print_sum_check(f, g, nstages, total);
	if (app)
		print_app_sum_check(f, g, total);
	print_impossible(f, g);
}
