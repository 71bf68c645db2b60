// SPDX-License-Identifier: GPL-2.0
/*
 * compare: the text form.  As in report, every line that is not a table row
 * begins with '#', so `grep -v '^#'` leaves only the rows; the rows carry
 * their group, stage and statistic, so each one stands alone in a script.
 * Times are microseconds with three decimals: whole nanoseconds, so a delta
 * is shown exactly.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/cli/term.h"
#include "lib/compare/compare_model.h"
#include "lib/compare/compare_text.h"
#include "lib/core/size.h"
#include "lib/model/model_filter.h"
#include "lib/model/model.h"
#include "lib/report/report_filter_text.h"
#include "lib/model/model_sort.h"
#include "lib/report/report_table.h"
#include "lib/report/report_text.h"

static const char *const run_label[NTP_CMP_RUNS] = { "baseline:", "new:" };

/* the commands of each side the file has: a target recording's are target_io's */
static void print_file(const struct ntp_report_file *rf, const char *label, FILE *f, bool brief)
{
	const struct ntp_header_style st = { .label = label, .indent = "", .sub = "  ",
					     .brief = brief };
	const struct ntp_report_header *h = &rf->hdr;
	bool both = (rf->sides & NTP_SIDE_HOST) && (rf->sides & NTP_SIDE_TARGET);

	ntp_report__print_header_lines(h, f, &st);
	if (rf->sides & NTP_SIDE_HOST)
		fprintf(f, "#   %-16s %" PRIu64 " in file, %" PRIu64 " lost%s\n", "commands:",
			h->rows, h->lost_ringbuf + h->lost_map, both ? " (host)" : "");
	if (rf->sides & NTP_SIDE_TARGET)
		fprintf(f, "#   %-16s %" PRIu64 " in file, %" PRIu64 " lost%s\n", "commands:",
			rf->t_rows, rf->t_lost_ringbuf + rf->t_lost_map, both ? " (target)" : "");
}

static void print_header(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o)
{
	/* -q: the warnings only, which qualify the numbers */
	if (o->quiet) {
		for (size_t i = 0; i < c->nwarnings; i++)
			fprintf(f, "# warning: %s\n", c->warnings[i]);
		return;
	}
	fprintf(f, "# ntprof compare\n");
	for (int r = 0; r < NTP_CMP_RUNS; r++)
		for (int i = 0; i < c->run[r].nfiles; i++)
			print_file(&c->run[r].files[i], run_label[r], f, !o->header);
	ntp_read_filter__print_text(f, c->run[NTP_CMP_BASE].filter);
	ntp_report_sort__print_text(f, &o->sort, true);
	for (size_t i = 0; i < c->ndifferences; i++)
		fprintf(f, "# %-18s %s\n", "differs:", c->differences[i]);
	for (size_t i = 0; i < c->nwarnings; i++)
		fprintf(f, "# warning: %s\n", c->warnings[i]);
	fprintf(f, "#\n# the first file is the baseline; delta = new - baseline, "
		"ratio = new / baseline\n");
	fprintf(f, "# statistics:");
	for (int s = 0; s < NTP_NSTATS; s++)
		if (c->stats & (1u << s))
			fprintf(f, " %s", ntp_stats[s].name);
	fprintf(f, " (us); rows found in one recording only are marked in 'present'\n");
	fprintf(f, "# ci95: the delta's 95%% interval\n# sig: \"yes\" beyond the noise (5%%, "
		"corrected for the %zu rows tested) and the floor (%g%% and %g us); \"small\" beyond "
		"the noise only; \"no\" within it;\n#      \"n<N\" not tested: fewer than N "
		"commands in a run (", c->ntests, c->floor_pct, c->floor_ns / 1000.0);
	for (int s = 0, k = 0; s < NTP_NSTATS; s++) {
		if (!(c->stats & (1u << s)) || !(ntp_stats[s].uses & NTP_STAT_CHANGE))
			continue;
		fprintf(f, "%s%s %" PRIu64, k++ ? ", " : "", ntp_stats[s].name,
			ntp_stats[s].min_n > c->min_n ? ntp_stats[s].min_n : c->min_n);
	}
	fprintf(f, ")\n");
	for (int t = 0; t < o->nthresholds; t++) {
		char rule[96];

		ntp_compare__rule_str(&o->threshold[t], rule, sizeof(rule));
		fprintf(f, "# threshold: %s: may grow by at most %g%% (beyond the noise)\n",
			rule, o->threshold[t].pct);
	}
}

static void count_cell(char *buf, size_t len, const struct ntp_report_group *g)
{
	if (g)
		snprintf(buf, len, "%zu", g->e2e.n);
	else
		snprintf(buf, len, "-");
}

/* a target groups by its backend device */
static const char *ns_title(const struct ntp_compare *c)
{
	return c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET ? "device" : "namespace";
}

/* impossible commands (ntprof-report(1)): left out of both runs' statistics, said per group */
static void print_impossible(const struct ntp_compare *c, FILE *f)
{
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		uint64_t n[NTP_CMP_RUNS];
		char size[32];

		for (int r = 0; r < NTP_CMP_RUNS; r++)
			n[r] = g->g[r] ? ntp_report__impossible(g->g[r]) : 0;
		if (!n[NTP_CMP_BASE] && !n[NTP_CMP_NEW])
			continue;
		ntp_size__str(g->bytes, size, sizeof(size));
		fprintf(f, "# warning: %s %s %s: impossible commands excluded: %" PRIu64
			" in the baseline, %" PRIu64 " in the new\n", g->io_type, size, g->label,
			n[NTP_CMP_BASE], n[NTP_CMP_NEW]);
	}
}

static void print_groups(const struct ntp_compare *c, FILE *f)
{
	fprintf(f, "#\n# groups: sampled commands in each recording\n");
	fprintf(f, "# %-7s %7s %-12s %10s %9s  %s\n", "io_type", "size", ns_title(c),
		"n_baseline", "n_new", "present");
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		char size[32], nb[32], nn[32];

		ntp_size__str(g->bytes, size, sizeof(size));
		count_cell(nb, sizeof(nb), g->g[NTP_CMP_BASE]);
		count_cell(nn, sizeof(nn), g->g[NTP_CMP_NEW]);
		fprintf(f, "  %-7s %7s %-12s %10s %9s  %s\n", g->io_type, size, g->label, nb, nn,
			ntp_compare__present_str(ntp_compare__present(g->g[NTP_CMP_BASE],
								      g->g[NTP_CMP_NEW])));
	}
	print_impossible(c, f);
}

/* nanoseconds as microseconds with every digit: "-" when there is none */
static void us_cell(char *buf, size_t len, bool has, int64_t ns, bool sign)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	if (!has) {
		snprintf(buf, len, "-");
		return;
	}
	/* integers, not a double: no rounding, and never "-0.000" */
	snprintf(buf, len, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : (sign ? "+" : ""),
		 a / 1000, a % 1000);
}

/* the delta's interval in us, "[-0.512,+1.203]"; "-" without one */
static void ci_cell(char *buf, size_t len, const struct ntp_compare_value *v)
{
	char lo[32], hi[32];

	if (!v->has_ci) {
		snprintf(buf, len, "-");
		return;
	}
	us_cell(lo, sizeof(lo), true, (int64_t)llround(v->ci_lo), true);
	us_cell(hi, sizeof(hi), true, (int64_t)llround(v->ci_hi), true);
	snprintf(buf, len, "[%s,%s]", lo, hi);
}

/*
 * The stage rows' columns: the keys (the group, stage and statistic), then
 * the values.  "sig" is 7 wide so that "present" stands two spaces after
 * it; "present", last, is not padded.
 */
enum { V_IO_TYPE, V_SIZE, V_NS, V_STAGE, V_STAT, V_KEYS,
       V_BASE = V_KEYS, V_NEW, V_DELTA, V_RATIO, V_CI, V_SIG, V_PRESENT, V_COLS };

static const struct ntp_col value_cols[V_COLS] = {
	[V_IO_TYPE] = { "io_type", -7, "%s" },
	[V_SIZE]    = { "size", 7, "%s" },
	[V_NS]      = { "namespace", -12, "%s" },
	[V_STAGE]   = { "stage", -12, "%s" },
	[V_STAT]    = { "stat", -5, "%s" },
	[V_BASE]    = { "baseline", 11, "%s" },
	[V_NEW]     = { "new", 11, "%s" },
	[V_DELTA]   = { "delta", 11, "%s" },
	[V_RATIO]   = { "ratio", 8, "%s" },
	[V_CI]      = { "ci95", 23, "%s" },
	[V_SIG]     = { "sig", -7, "%s" },
	[V_PRESENT] = { "present", -8, "%s" },
};

/* one row's text, each cell in its own buffer */
struct value_row {
	char size[32], b[40], n[40], d[40], ratio[40], ci[96], sig[32];
	struct ntp_cell c[V_COLS];
	enum ntp_paint paint;
};

static void value_row(struct value_row *row, const struct ntp_compare_group *g,
		      const struct ntp_compare_stage *st, enum ntp_stat stat)
{
	struct ntp_compare_value v;

	ntp_compare__value(st, stat, &v);
	ntp_size__str(g->bytes, row->size, sizeof(row->size));
	us_cell(row->b, sizeof(row->b), v.has[NTP_CMP_BASE], v.v[NTP_CMP_BASE], false);
	us_cell(row->n, sizeof(row->n), v.has[NTP_CMP_NEW], v.v[NTP_CMP_NEW], false);
	us_cell(row->d, sizeof(row->d), v.has_delta, v.delta, true);
	if (isfinite(v.ratio))
		snprintf(row->ratio, sizeof(row->ratio), "%.4f", v.ratio);
	else
		snprintf(row->ratio, sizeof(row->ratio), "-");
	ci_cell(row->ci, sizeof(row->ci), &v);
	ntp_compare__verdict_str(&v, row->sig, sizeof(row->sig));
	row->c[V_IO_TYPE] = ntp_report__str_cell(g->io_type);
	row->c[V_SIZE] = ntp_report__str_cell(row->size);
	row->c[V_NS] = ntp_report__str_cell(g->label);
	row->c[V_STAGE] = ntp_report__str_cell(st->text);
	row->c[V_STAT] = ntp_report__str_cell(ntp_stats[stat].name);
	row->c[V_BASE] = ntp_report__str_cell(row->b);
	row->c[V_NEW] = ntp_report__str_cell(row->n);
	row->c[V_DELTA] = ntp_report__str_cell(row->d);
	row->c[V_RATIO] = ntp_report__str_cell(row->ratio);
	row->c[V_CI] = ntp_report__str_cell(row->ci);
	row->c[V_SIG] = ntp_report__str_cell(row->sig);
	row->c[V_PRESENT] = ntp_report__str_cell(
		ntp_compare__present_str(ntp_compare__present(st->s[NTP_CMP_BASE],
							      st->s[NTP_CMP_NEW])));
	/* what compare found significant: slower in red, faster in green */
	row->paint = v.verdict != NTP_CMP_CHANGED ? NTP_PAINT_NONE :
		     v.delta > 0 ? NTP_PAINT_WORSE : NTP_PAINT_BETTER;
}

/*
 * Every group's stages and statistics, a row each, folded to the terminal's
 * width as report's tables are (lib/report/report_table.h): each block
 * repeats the keys.  --formula's lines follow the rows of the first.
 */
static void print_stages(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o)
{
	struct ntp_col cols[V_COLS], bc[V_COLS];
	struct ntp_cell bv[V_COLS];
	int start[V_COLS + 1], nb;
	char formula[512];

	memcpy(cols, value_cols, sizeof(cols));
	cols[V_NS].name = ns_title(c);
	nb = ntp_report__fold(cols, V_COLS, V_KEYS, o->term.width, start);
	fprintf(f, "#\n# stages (us)\n");
	for (int b = 0; b < nb; b++) {
		int m = ntp_report__block(cols, NULL, V_KEYS, start, b, bc, NULL);

		ntp_report__print_titles(f, bc, m, NULL);
		for (size_t i = 0; i < c->ngroups; i++) {
			const struct ntp_compare_group *g = &c->groups[i];

			for (size_t k = 0; k < g->nstages; k++)
				for (int s = 0; s < NTP_NSTATS; s++) {
					struct value_row row;

					if (!(c->stats & (1u << s)))
						continue;
					value_row(&row, g, &g->stage[k], s);
					ntp_report__block(cols, row.c, V_KEYS, start, b, bc, bv);
					if (row.paint != NTP_PAINT_NONE)
						ntp_term__paint(&o->term, f, row.paint);
					ntp_report__print_cells(f, bc, m, bv, NULL);
					if (row.paint != NTP_PAINT_NONE)
						ntp_term__paint(&o->term, f, NTP_PAINT_NONE);
					fputc('\n', f);
					if (o->formula && !b) {
						ntp_compare__formula(&g->stage[k], s, formula,
								     sizeof(formula));
						fprintf(f, "#   %s\n", formula);
					}
				}
		}
	}
}

static void print_threshold(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o)
{
	if (!o->nthresholds)
		return;
	fprintf(f, "#\n# threshold: %s (%zu group%s over, %zu not tested)\n",
		c->over_threshold ? "EXCEEDED" : c->untested_threshold ? "NOT TESTED" : "ok",
		c->over_threshold, c->over_threshold == 1 ? "" : "s", c->untested_threshold);
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		char size[32];

		char rule[96];

		if (!g->over_threshold && !g->untested)
			continue;
		ntp_size__str(g->bytes, size, sizeof(size));
		if (g->over_threshold) {
			ntp_compare__rule_str(g->tripped, rule, sizeof(rule));
			fprintf(f, "#   %s %s %s: %s %s %+.2f%% (%s)\n", g->io_type, size, g->label,
				g->tripped->stage, ntp_stats[g->tripped->stat].name,
				g->tripped_growth_pct, rule);
		} else {
			ntp_compare__rule_str(g->untested, rule, sizeof(rule));
			fprintf(f, "#   %s %s %s: %s not tested: %s needs %" PRIu64
				" commands in each run\n", g->io_type, size, g->label, rule,
				ntp_stats[g->untested->stat].name, g->untested_need);
		}
	}
}

/* the one line a reader looks for first */
static void print_most(const struct ntp_compare *c, FILE *f)
{
	const struct ntp_compare_most *m = &c->most;
	char size[32], d[40], pct[40] = "";

	if (!m->g) {
		fprintf(f, "#\n# changed most: nothing (no stage in both recordings)\n");
		return;
	}
	ntp_size__str(m->g->bytes, size, sizeof(size));
	us_cell(d, sizeof(d), true, m->mean.delta, true);
	if (isfinite(m->mean.ratio))
		snprintf(pct, sizeof(pct), " (%+.2f%%)", (m->mean.ratio - 1.0) * 100.0);
	if (m->mean.verdict == NTP_CMP_CHANGED)
		fprintf(f, "#\n# changed most: %s of %s %s %s: mean %s us%s\n", m->stage->text,
			m->g->io_type, size, m->g->label, d, pct);
	else
		fprintf(f, "#\n# changed most: no meaningful change (the largest: %s of %s %s %s, "
			"mean %s us%s, %s)\n", m->stage->text, m->g->io_type, size, m->g->label, d,
			pct, m->mean.verdict == NTP_CMP_SMALL ? "within the floor" :
			m->mean.verdict == NTP_CMP_NOISE ? "within the noise" : "too few commands");
}

/*
 * Each run's diagnosis of the recording, then per group what the new run
 * names and what the baseline named where it differs (ntprof-report(1),
 * DIAGNOSIS), each line within NTP_DIAG_TEXT_WIDTH columns
 */
static void print_diagnosis(const struct ntp_compare *c, FILE *f)
{
	static const char *const who[NTP_CMP_RUNS] = { "baseline", "new" };
	char line[512];

	fprintf(f, "#\n# diagnosis: each run's, and per group what changed and why "
		"(ntprof-report(1))\n");
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		ntp_diag__text(&c->diag[r].all, line, sizeof(line),
			       NTP_DIAG_TEXT_WIDTH - 3 - strlen(who[r]) - strlen(" recording: "));
		fprintf(f, "# %s recording: %s\n", who[r], line);
	}
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		struct ntp_diag_line b, n;

		ntp_diag__change_text(ntp_diag__line_of(&c->diag[NTP_CMP_BASE], g->g[NTP_CMP_BASE], &b),
				      ntp_diag__line_of(&c->diag[NTP_CMP_NEW], g->g[NTP_CMP_NEW], &n),
				      line, sizeof(line), NTP_DIAG_TEXT_WIDTH - 2);
		fprintf(f, "# %s\n", line);
	}
}

int ntp_compare__print_text(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o)
{
	print_header(c, f, o);
	if (!c->ngroups) {
		fprintf(f, "#\n# no %s commands in either recording\n",
			c->run[NTP_CMP_BASE].kind == NTP_REPORT_JOINED ? "joined" :
			c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET ? "sampled target" :
			"sampled host");
		print_threshold(c, f, o);
		return NTP_EXIT_OK;
	}
	print_groups(c, f);
	print_stages(c, f, o);
	print_most(c, f);
	print_diagnosis(c, f);
	ntp_compare_by__text(f, &c->by);
	print_threshold(c, f, o);
	/* in the baseline's words: the runs are of one kind */
	if (!o->quiet)
		ntp_report__print_stage_notes(&c->run[NTP_CMP_BASE], f);
	return NTP_EXIT_OK;
}
