// SPDX-License-Identifier: GPL-2.0
/*
 * report: the HTML form (--html FILE), one self-contained page of the same
 * model as the text and the JSON: the recordings, a chart of where each
 * group's time goes (the stage means end to end), a chart of each stage's
 * tail (p99), each group's latency distribution (with --histogram each
 * stage's too), and the report's tables.  The charts are inline SVG
 * (lib/fmt/svg_chart.h); the page has no script and loads nothing, so it
 * opens the same from a file, a mail or a CI artifact.  Every string from a
 * recording goes through lib/fmt/xml.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/html.h"
#include "lib/fmt/svg_chart.h"
#include "lib/cli/version.h"
#include "lib/fmt/xml.h"
#include "lib/core/hist.h"
#include "lib/core/size.h"
#include "lib/model/model_header.h"
#include "lib/report/report_html.h"
#include "lib/report/report_json.h"
#include "lib/model/model.h"

/* are the groups of more than one file (several host recordings joined)? */
static bool several_files(const struct ntp_report *r)
{
	for (size_t i = 1; i < r->ngroups; i++)
		if (r->groups[i].host_file != r->groups[0].host_file)
			return true;
	return false;
}

/* a group as a row label: "read 4KiB nvme0n1", with its file when there are several */
static char *group_label(const struct ntp_report *r, const struct ntp_report_group *g)
{
	char size[32], *s = NULL;
	int k;

	ntp_size__str(g->bytes, size, sizeof(size));
	if (several_files(r))
		k = asprintf(&s, "%s %s %s (file %d)", g->io_type, size, g->ns, g->host_file);
	else
		k = asprintf(&s, "%s %s %s", g->io_type, size, g->ns);
	return k < 0 ? NULL : s;
}

static void file_rows(FILE *f, const struct ntp_report *r)
{
	fputs("<table><tr><th>file</th><th class=\"l\">path</th><th class=\"l\">role</th>"
	      "<th class=\"l\">transport</th><th class=\"l\">kernel</th><th class=\"l\">host</th>"
	      "<th class=\"l\">start</th><th>duration s</th><th>sample rate</th>"
	      "<th>commands in file</th><th>lost</th><th>ntprof's cost ns/cmd</th></tr>\n", f);
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_report_file *rf = &r->files[i];
		const struct ntp_report_header *h = &rf->hdr;
		struct ntp_report_cost c;

		fprintf(f, "<tr><td>%d</td>", i + 1);
		ntp_html__cell(f, h->path);
		ntp_html__cell(f, ntp_report__or_unknown(h->role));
		ntp_html__cell(f, ntp_report__or_unknown(h->transport));
		ntp_html__cell(f, ntp_report__or_unknown(h->kernel_release));
		ntp_html__cell(f, ntp_report__or_unknown(h->hostname));
		ntp_html__cell(f, ntp_report__or_unknown(h->start_time));
		if (h->duration_ns > 0)
			fprintf(f, "<td>%.3f</td>", (double)h->duration_ns / 1e9);
		else
			fputs("<td>unknown</td>", f);
		if (h->sample_one_in > 0)
			fprintf(f, "<td>1/%" PRId64 "</td>", h->sample_one_in);
		else
			fputs("<td>unknown</td>", f);
		fprintf(f, "<td>%" PRIu64 "</td><td>%" PRIu64 "</td>", h->rows + rf->t_rows,
			h->lost_ringbuf + h->lost_map + rf->t_lost_ringbuf + rf->t_lost_map);
		if (ntp_report__cost(h, &c))
			fprintf(f, "<td>%.0f</td>", c.ns_per_command);
		else
			fputs("<td>unknown</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void join_lines(FILE *f, const struct ntp_report *r)
{
	double pct = ntp_report__matched_pct(r);

	if (r->kind != NTP_REPORT_JOINED)
		return;
	fprintf(f, "<p>%" PRId64 " of %" PRId64 " host commands joined (%.2f%%); %" PRId64
		" target commands without a host record; %" PRId64 " rejected.</p>\n",
		r->counts.matched, r->counts.host_rows, isfinite(pct) ? pct : 0.0,
		r->counts.unmatched_target, r->counts.rejected);
	if (!isfinite(pct) || pct < NTP_REPORT_WARN_PCT)
		fprintf(f, "<p class=\"warn\">Fewer than %.0f%% of the host's commands were joined: "
			"the stages describe the joined ones only.</p>\n", NTP_REPORT_WARN_PCT);
}

/* the groups, in the report's order */
static size_t shown_groups(const struct ntp_report *r, const struct ntp_report_group **out)
{
	for (size_t i = 0; i < r->ngroups; i++)
		out[i] = &r->groups[i];
	return r->ngroups;
}

/*
 * Chart one: where the time of a group's command goes, the stage means end
 * to end (they add up to the end-to-end mean).  Chart two: each stage's
 * tail (p99, or the highest percentile listed) beside the end-to-end one,
 * side by side (tails do not add up); a tail not shown (too few commands)
 * has no bar.
 */
static double tail_us(const struct ntp_summary *s, enum ntp_stat tail)
{
	return ntp_stat__shown(s, tail) ? (double)ntp_stat__of(s, tail) / 1000.0 : NAN;
}

static int charts(FILE *f, const struct ntp_report *r, const struct ntp_report_group **g,
		  size_t n)
{
	const struct ntp_view *v = ntp_report__view(r);
	int ns = v->nstages, rc = -ENOMEM;
	const char **rows = calloc(n ? n : 1, sizeof(*rows));
	const char **names = calloc(ns + 1, sizeof(*names));
	double *mean = calloc(n * ns + 1, sizeof(*mean));
	double *p99 = calloc(n * (ns + 1) + 1, sizeof(*p99));
	enum ntp_stat tail = ntp_stat__tail();
	char title[160], none[64];

	if (!rows || !names || !mean || !p99)
		goto out;
	for (int s = 0; s < ns; s++)
		names[s] = v->stages[s].text;
	names[ns] = ntp_report__total_label(r);
	for (size_t i = 0; i < n; i++) {
		rows[i] = group_label(r, g[i]);
		if (!rows[i])
			goto out;
		for (int s = 0; s < ns; s++) {
			mean[i * ns + s] = g[i]->stage[s].mean / 1000.0;
			p99[i * (ns + 1) + s] = tail_us(&g[i]->stage[s], tail);
		}
		p99[i * (ns + 1) + ns] = tail_us(&g[i]->e2e, tail);
	}
	snprintf(title, sizeof(title), "Where the time goes: mean of each stage per group, "
		 "adding up to the %s mean", names[ns]);
	ntp_svg__hbars(f, &(struct ntp_hbar_chart){ title, "\u00b5s", (int)n, ns, rows, names,
						   mean, true, ns + 1, NULL });
	snprintf(title, sizeof(title), "Tails: %s of each stage and of the %s per group",
		 ntp_stats[tail].name, names[ns]);
	snprintf(none, sizeof(none), "too few commands for a %s (%" PRIu64 ")",
		 ntp_stats[tail].name, ntp_stats[tail].min_shown);
	ntp_svg__hbars(f, &(struct ntp_hbar_chart){ title, "\u00b5s", (int)n, ns + 1, rows, names,
						   p99, false, ns + 1, none });
	rc = 0;
out:
	for (size_t i = 0; rows && i < n; i++)
		free((char *)rows[i]);
	free(rows);
	free(names);
	free(mean);
	free(p99);
	return rc;
}

/* min, mean, the percentiles and max in us; "-" for each the summary has too few commands for */
static void summary_cells(FILE *f, const struct ntp_summary *s)
{
	enum ntp_stat st[NTP_NSTATS];
	int n = ntp_stat__latencies(st);

	for (int i = 0; i < n; i++) {
		if (ntp_stat__shown(s, st[i]))
			ntp_html__us_cell(f, ntp_stat__of(s, st[i]));
		else
			ntp_html__none_cell(f);
	}
}

static void stat_heads(FILE *f)
{
	enum ntp_stat st[NTP_NSTATS];
	int n = ntp_stat__latencies(st);

	for (int i = 0; i < n; i++) {
		fputs("<th>", f);
		ntp_xml__text(f, ntp_stats[st[i]].title);
		fputs("</th>", f);
	}
}

static void group_table(FILE *f, const struct ntp_report *r, const struct ntp_report_group **g,
			size_t n)
{
	fprintf(f, "<h2>%s latency per group (\u00b5s)</h2>\n<table><tr><th>file</th>"
		"<th class=\"l\">io_type</th><th>bytes</th><th class=\"l\">%s</th><th>n</th>"
		"<th>est cmds/s</th>",
		r->kind == NTP_REPORT_TARGET ? "Residence" : "End-to-end",
		r->kind == NTP_REPORT_TARGET ? "device" : "namespace");
	stat_heads(f);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<tr><td>%d</td>", g[i]->host_file);
		ntp_html__cell(f, g[i]->io_type);
		fprintf(f, "<td>%" PRId64 "</td>", g[i]->bytes);
		ntp_html__cell(f, g[i]->ns);
		fprintf(f, "<td>%zu</td>", g[i]->e2e.n);
		if (g[i]->est_rate >= 0)
			fprintf(f, "<td>%.1f</td>", g[i]->est_rate);
		else
			fputs("<td>-</td>", f);
		summary_cells(f, &g[i]->e2e);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* an application stage's row (NTP_APP_STAGES: the app e2e), its share of the app e2e mean */
static void app_row(FILE *f, const struct ntp_report_group *g, int s)
{
	const struct ntp_summary *sum = s == NTP_APP_STAGES ? &g->app.e2e : &g->app.stage[s];
	double share = ntp_report__app_share_pct(g, sum->mean);

	fputs("<tr>", f);
	ntp_html__cell(f, s == NTP_APP_STAGES ? ntp_report__app_total.text : ntp_report__app_stages[s].text);
	summary_cells(f, sum);
	fprintf(f, "<td>%.1f</td></tr>\n", isfinite(share) ? share : 0.0);
}

static void stage_tables(FILE *f, const struct ntp_report *r, const struct ntp_report_group **g,
			 size_t n)
{
	const struct ntp_view *v = ntp_report__view(r);

	for (size_t i = 0; i < n; i++) {
		char *label = group_label(r, g[i]);

		fputs("<h2>Stages of ", f);
		ntp_xml__text(f, label ? label : "?");
		fprintf(f, " (n=%zu), \u00b5s</h2>\n<table><tr><th class=\"l\">stage</th>",
			g[i]->e2e.n);
		stat_heads(f);
		fputs("<th>share %</th></tr>\n", f);
		free(label);
		if (r->app)
			fprintf(f, "<p>The application's side: %zu of the %zu commands have its "
				"stamps; submit, complete, reap and app e2e are theirs, their share "
				"of the app e2e mean.</p>\n", g[i]->app.e2e.n, g[i]->e2e.n);
		if (r->app)
			app_row(f, g[i], NTP_APP_SUBMIT);
		for (int s = 0; s < v->nstages; s++) {
			double share = ntp_report__share_pct(g[i], g[i]->stage[s].mean);

			fputs("<tr>", f);
			ntp_html__cell(f, v->stages[s].text);
			summary_cells(f, &g[i]->stage[s]);
			fprintf(f, "<td>%.1f</td></tr>\n", isfinite(share) ? share : 0.0);
		}
		for (int s = NTP_APP_COMPLETE; r->app && s < NTP_APP_STAGES; s++)
			app_row(f, g[i], s);
		fputs("<tr>", f);
		ntp_html__cell(f, ntp_report__total_label(r));
		summary_cells(f, &g[i]->e2e);
		fputs("<td>100.0</td></tr>\n", f);
		if (r->app)
			app_row(f, g[i], NTP_APP_STAGES);
		fputs("</table>\n", f);
		fprintf(f, "<p>Sum check: %s.</p>\n", ntp_report__sum_ok(g[i], v->nstages) ?
			"ok, the stages add up to the total command by command" :
			"FAILED, the stages do not add up to the total");
		if (r->app && g[i]->app.e2e.n)
			fprintf(f, "<p>App sum check: %s.</p>\n", ntp_report__app_sum_ok(g[i]) ?
				"ok, submit, the end-to-end latency, complete and reap add up to the "
				"app e2e command by command" :
				"FAILED, the application's stages do not add up to the app e2e");
	}
}

/*
 * One summary's distribution: its buckets (log-linear, form's number an
 * octave) from the first non-empty to the last, each labelled by its lower
 * bound in form's unit.  Buckets that widen with the latency make the x
 * axis a log scale; two humps show as two humps.
 */
static int distribution(FILE *f, const char *group, const char *stage,
			const struct ntp_summary *s, const struct ntp_hist_form *form)
{
	const struct ntp_hist *h = s->hist;
	int bits = ntp_hist_form__bits(form), first = 1, last = 0, n, rc = -ENOMEM;
	double per_unit = (double)ntp_hist_form__ns_per_unit(form);
	const char **labels;
	char (*buf)[24], title[256], axis[64];
	double *v;

	if (h)
		ntp_hist__range(h, bits, &first, &last);
	n = last - first + 1;
	if (n <= 0)
		return 0;
	labels = calloc(n, sizeof(*labels));
	buf = calloc(n, sizeof(*buf));
	v = calloc(n, sizeof(*v));
	if (!labels || !buf || !v)
		goto out;
	for (int k = first; k <= last; k++) {
		int64_t lo = k == 0 ? 0 : ntp_hist__lo(k, bits);

		snprintf(buf[k - first], sizeof(buf[0]), "%.3g", (double)lo / per_unit);
		labels[k - first] = buf[k - first];
		v[k - first] = (double)ntp_hist__count(h, k, bits);
	}
	snprintf(title, sizeof(title), "%s: %s (n=%zu)", group, stage, s->n);
	snprintf(axis, sizeof(axis), "%s, %d bucket%s an octave",
		 !strcmp(ntp_hist_form__unit(form), "us") ? "\u00b5s" : ntp_hist_form__unit(form),
		 1 << bits, bits ? "s" : "");
	ntp_svg__columns(f, &(struct ntp_column_chart){ title, axis, "commands", n, labels, v });
	rc = 0;
out:
	free(labels);
	free(buf);
	free(v);
	return rc;
}

/* each group's total, and with --histogram each of its stages too */
static int distributions(FILE *f, const struct ntp_report *r, const struct ntp_report_group **g,
			 size_t n, const struct ntp_report_opts *o)
{
	const struct ntp_view *v = ntp_report__view(r);
	int rc = 0;

	fprintf(f, "<h2>Distributions</h2>\n<p>Commands per bucket of latency, %d bucket%s an "
		"octave: each octave twice as wide as the one before, each bucket labelled by its "
		"lower bound.</p>\n<div class=\"dist\">\n", 1 << ntp_hist_form__bits(&o->hist),
		ntp_hist_form__bits(&o->hist) ? "s" : "");
	for (size_t i = 0; i < n && !rc; i++) {
		char *label = group_label(r, g[i]);

		if (!label)
			return -ENOMEM;
		rc = distribution(f, label, ntp_report__total_label(r), &g[i]->e2e, &o->hist);
		for (int st = 0; st < v->nstages && o->histogram && !rc; st++)
			rc = distribution(f, label, v->stages[st].text, &g[i]->stage[st], &o->hist);
		free(label);
	}
	fputs("</div>\n", f);
	return rc;
}

static void notes(FILE *f, const struct ntp_report *r)
{
	const struct ntp_view *v = ntp_report__view(r);

	fprintf(f, "<h2>The stages (%s)</h2>\n<dl>\n", v->name);
	for (int s = 0; s < v->nstages; s++) {
		fputs("<dt>", f);
		ntp_xml__text(f, v->stages[s].text);
		fputs("</dt><dd>", f);
		ntp_xml__text(f, v->stages[s].what);
		fputs("</dd>\n", f);
	}
	if (r->kind == NTP_REPORT_TARGET) {
		fputs("<dt>residence</dt><dd>", f);
		ntp_xml__text(f, ntp_report__residence(r));
		fputs("</dd>\n", f);
	}
	fputs("</dl>\n", f);
}

int ntp_report__print_html(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	const struct ntp_report_group **g = calloc(r->ngroups ? r->ngroups : 1, sizeof(*g));
	size_t n;
	int rc = 0;

	if (!g) {
		ntp_error("the HTML report: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	n = shown_groups(r, g);
	ntp_html__begin(f, "ntprof report");
	fprintf(f, "<h1>ntprof report: %s</h1>\n", r->kind == NTP_REPORT_JOINED ?
		"host and target joined" : r->kind == NTP_REPORT_TARGET ?
		"a target recording alone" : "a host recording alone");
	file_rows(f, r);
	join_lines(f, r);
	if (r->kind == NTP_REPORT_TARGET)
		fprintf(f, "<p>Note: %s.</p>\n", NTP_REPORT_TARGET_NOTE);
	if (!n) {
		fputs("<p>No commands to show.</p>\n", f);
	} else {
		rc = charts(f, r, g, n);
		if (!rc)
			rc = distributions(f, r, g, n, o);
		group_table(f, r, g, n);
		stage_tables(f, r, g, n);
	}
	notes(f, r);
	if (r->nhidden)
		fprintf(f, "<p>%zu groups below --percent-limit %g%% not shown.</p>\n",
			r->nhidden, r->percent_limit);
	ntp_html__end(f, ntp_version_string, "ntprof-report(1)");
	free(g);
	if (rc) {
		ntp_error("the HTML report: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	return NTP_EXIT_OK;
}
