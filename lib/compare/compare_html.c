// SPDX-License-Identifier: GPL-2.0
/*
 * compare: the HTML form (--html FILE), one self-contained page of the
 * same pairing as the text and the JSON: the runs, the stage that changed
 * most, and for each group a chart of each stage's mean in the baseline
 * and the new run side by side, with the table of every statistic
 * compared.  Inline SVG (lib/fmt/svg_chart.h), no script; every string from
 * a recording goes through lib/fmt/xml.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/html.h"
#include "lib/fmt/number.h"
#include "lib/fmt/svg_chart.h"
#include "lib/cli/version.h"
#include "lib/fmt/xml.h"
#include "lib/compare/compare_html.h"
#include "lib/compare/compare_model.h"
#include "lib/core/size.h"

static void files(FILE *f, const struct ntp_compare *c)
{
	static const char *const run[NTP_CMP_RUNS] = { "baseline", "new" };

	fputs("<table><tr><th class=\"l\">run</th><th class=\"l\">path</th><th class=\"l\">role</th>"
	      "<th class=\"l\">kernel</th><th class=\"l\">host</th><th class=\"l\">start</th>"
	      "<th>sample rate</th></tr>\n", f);
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		for (int i = 0; i < c->run[r].nfiles; i++) {
			const struct ntp_report_header *h = &c->run[r].files[i].hdr;

			fputs("<tr>", f);
			ntp_html__cell(f, run[r]);
			ntp_html__cell(f, h->path);
			ntp_html__cell(f, ntp_report__or_unknown(h->role));
			ntp_html__cell(f, ntp_report__or_unknown(h->kernel_release));
			ntp_html__cell(f, ntp_report__or_unknown(h->hostname));
			ntp_html__cell(f, ntp_report__or_unknown(h->start_time));
			fprintf(f, "<td>1/%" PRId64 "</td></tr>\n", h->sample_one_in);
		}
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < c->ndifferences; i++) {
		fputs("<p>Differs: ", f);
		ntp_xml__text(f, c->differences[i]);
		fputs("</p>\n", f);
	}
	for (size_t i = 0; i < c->nwarnings; i++) {
		fputs("<p class=\"warn\">Warning: ", f);
		ntp_xml__text(f, c->warnings[i]);
		fputs("</p>\n", f);
	}
}

static void group_name(char *buf, size_t len, const struct ntp_compare_group *g)
{
	char size[32];

	ntp_size__str(g->bytes, size, sizeof(size));
	snprintf(buf, len, "%s %s %s", g->io_type, size, g->label);
}

static void most(FILE *f, const struct ntp_compare *c)
{
	const struct ntp_compare_most *m = &c->most;
	char name[160];

	if (!m->g) {
		fputs("<p>Changed most: nothing (no stage in both runs).</p>\n", f);
		return;
	}
	group_name(name, sizeof(name), m->g);
	fputs("<p><b>Changed most:</b> ", f);
	ntp_xml__text(f, m->stage->text);
	fputs(" of ", f);
	ntp_xml__text(f, name);
	fprintf(f, ": mean %+.3f \u00b5s", (double)m->mean.delta / 1000.0);
	if (isfinite(m->mean.ratio))
		fprintf(f, " (%+.2f%%)", (m->mean.ratio - 1.0) * 100.0);
	fputs(".</p>\n", f);
}

/* one group: its stages' means, baseline and new side by side */
static int group_chart(FILE *f, const struct ntp_compare_group *g)
{
	static const char *const series[NTP_CMP_RUNS] = { "baseline", "new" };
	const char **rows = calloc(g->nstages, sizeof(*rows));
	double *v = calloc(g->nstages * NTP_CMP_RUNS, sizeof(*v));
	char name[160], title[256];

	if (!rows || !v) {
		free(rows);
		free(v);
		return -ENOMEM;
	}
	for (size_t k = 0; k < g->nstages; k++) {
		struct ntp_compare_value val;

		ntp_compare__value(&g->stage[k], NTP_STAT_MEAN, &val);
		rows[k] = g->stage[k].text;
		for (int r = 0; r < NTP_CMP_RUNS; r++)
			v[k * NTP_CMP_RUNS + r] = val.has[r] ? (double)val.v[r] / 1000.0 : NAN;
	}
	group_name(name, sizeof(name), g);
	snprintf(title, sizeof(title), "%s: mean of each stage, baseline and new", name);
	ntp_svg__hbars(f, &(struct ntp_hbar_chart){ title, "\u00b5s", (int)g->nstages,
						   NTP_CMP_RUNS, rows, series, v, false, 0, NULL });
	free(rows);
	free(v);
	return 0;
}

/* ns in us with three decimals, exactly (lib/fmt/number.h), as the text shows them */
static void us(FILE *f, bool has, int64_t ns, bool sign)
{
	char buf[40];

	if (!has) {
		fputs("<td>-</td>", f);
		return;
	}
	ntp_num__us(buf, sizeof(buf), ns, 3);
	fprintf(f, "<td>%s%s</td>", sign && ns >= 0 ? "+" : "", buf);
}

static void group_table(FILE *f, const struct ntp_compare *c, const struct ntp_compare_group *g)
{
	fputs("<table><tr><th class=\"l\">stage</th><th class=\"l\">stat</th><th>baseline</th>"
	      "<th>new</th><th>delta</th><th>ratio</th><th>95% interval of the delta</th>"
	      "<th class=\"l\">significant</th><th class=\"l\">present</th></tr>\n", f);
	for (size_t k = 0; k < g->nstages; k++) {
		for (int s = 0; s < NTP_NSTATS; s++) {
			struct ntp_compare_value v;
			char sig[32];

			if (!(c->stats & (1u << s)))
				continue;
			ntp_compare__value(&g->stage[k], s, &v);
			fputs("<tr>", f);
			ntp_html__cell(f, g->stage[k].text);
			ntp_html__cell(f, ntp_stats[s].name);
			us(f, v.has[NTP_CMP_BASE], v.v[NTP_CMP_BASE], false);
			us(f, v.has[NTP_CMP_NEW], v.v[NTP_CMP_NEW], false);
			us(f, v.has_delta, v.delta, true);
			if (isfinite(v.ratio))
				fprintf(f, "<td>%.4f</td>", v.ratio);
			else
				fputs("<td>-</td>", f);
			if (v.has_ci)
				fprintf(f, "<td>[%+.3f, %+.3f]</td>", v.ci_lo / 1000.0, v.ci_hi / 1000.0);
			else
				fputs("<td>-</td>", f);
			ntp_compare__verdict_str(&v, sig, sizeof(sig));
			ntp_html__cell(f, sig);
			ntp_html__cell(f, ntp_compare__present_str(ntp_compare__present(
				g->stage[k].s[NTP_CMP_BASE], g->stage[k].s[NTP_CMP_NEW])));
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

int ntp_compare__print_html(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o)
{
	(void)o;
	ntp_html__begin(f, "ntprof compare");
	fprintf(f, "<h1>ntprof compare: %s</h1>\n",
		ntp_compare__kind_words(c->run[NTP_CMP_BASE].kind));
	files(f, c);
	most(f, c);
	ntp_diag__html(f, &c->diag[NTP_CMP_BASE], "Diagnosis: the baseline");
	ntp_diag__html(f, &c->diag[NTP_CMP_NEW], "Diagnosis: the new run");
	ntp_compare_by__html(f, &c->by);
	if (!c->ngroups)
		fputs("<p>No commands in either run.</p>\n", f);
	for (size_t i = 0; i < c->ngroups; i++) {
		char name[160];

		group_name(name, sizeof(name), &c->groups[i]);
		fputs("<h2>", f);
		ntp_xml__text(f, name);
		fprintf(f, " (%s)</h2>\n", ntp_compare__present_str(ntp_compare__present(
			c->groups[i].g[NTP_CMP_BASE], c->groups[i].g[NTP_CMP_NEW])));
		if (group_chart(f, &c->groups[i])) {
			ntp_error("the HTML comparison: %s", strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
		group_table(f, c, &c->groups[i]);
	}
	ntp_html__end(f, ntp_version_string, "ntprof-compare(1)");
	return NTP_EXIT_OK;
}
