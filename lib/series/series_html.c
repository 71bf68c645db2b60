// SPDX-License-Identifier: GPL-2.0
/*
 * series --html FILE: the series as one page, for each group two line
 * charts over the recording's time (inline SVG, lib/fmt/svg_chart.h): the
 * mean of each stage, and the p99 of each stage and of the total, per
 * interval.  Unlike the text, JSON and CSV, a chart needs every point before
 * its axes are known, so this printer keeps them: a few numbers per group
 * and interval, not the commands.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/html.h"
#include "lib/fmt/svg_chart.h"
#include "lib/cli/version.h"
#include "lib/fmt/xml.h"
#include "lib/core/size.h"
#include "lib/series/series_out.h"

/* the points of one group, in the order they came (interval by interval) */
struct line_group {
	int file;
	char *io_type, *ns;
	int64_t bytes;
	size_t n, cap;
	double *t;                    /* each point's time since the origin, s */
	double *mean, *p99;           /* [series * cap + i], us; series = stages, then the total */
};

static void group_free(struct line_group *g)
{
	free(g->io_type);
	free(g->ns);
	free(g->t);
	free(g->mean);
	free(g->p99);
}

void ntp_series__html_free(struct ntp_series_html *h)
{
	for (size_t i = 0; i < h->ngroups; i++)
		group_free(&h->groups[i]);
	free(h->groups);
	h->groups = NULL;
	h->ngroups = 0;
}

static struct line_group *find(struct ntp_series_html *h, const struct ntp_report_group *g)
{
	struct line_group *n;
	void *p;

	for (size_t i = 0; i < h->ngroups; i++) {
		n = &h->groups[i];
		if (n->file == g->host_file && n->bytes == g->bytes && !strcmp(n->io_type, g->io_type) &&
		    !strcmp(n->ns, g->ns))
			return n;
	}
	p = realloc(h->groups, (h->ngroups + 1) * sizeof(*h->groups));
	if (!p)
		return NULL;
	h->groups = p;
	n = &h->groups[h->ngroups];
	memset(n, 0, sizeof(*n));
	n->file = g->host_file;
	n->bytes = g->bytes;
	n->io_type = strdup(g->io_type);
	n->ns = strdup(g->ns);
	if (!n->io_type || !n->ns) {
		group_free(n);
		return NULL;
	}
	h->ngroups++;
	return n;
}

/* room for one more point of each of the nseries series */
static int grow(struct line_group *g, int nseries)
{
	size_t cap = g->cap ? 2 * g->cap : 64;
	double *t = malloc(cap * sizeof(*t));
	double *m = malloc(cap * nseries * sizeof(*m)), *q = malloc(cap * nseries * sizeof(*q));

	if (!t || !m || !q) {
		free(t);
		free(m);
		free(q);
		return -ENOMEM;
	}
	for (int s = 0; s < nseries; s++) {
		for (size_t i = 0; i < g->n; i++) {
			m[s * cap + i] = g->mean[s * g->cap + i];
			q[s * cap + i] = g->p99[s * g->cap + i];
		}
	}
	if (g->n)
		memcpy(t, g->t, g->n * sizeof(*t));
	free(g->t);
	free(g->mean);
	free(g->p99);
	g->t = t;
	g->mean = m;
	g->p99 = q;
	g->cap = cap;
	return 0;
}

static int begin(void *ctx, const struct ntp_series *s)
{
	struct ntp_series_html *h = ctx;

	h->nstages = ntp_report__view(&s->r)->nstages;
	return 0;
}

static int point(void *ctx, const struct ntp_series *s, const struct ntp_series_point *p)
{
	struct ntp_series_html *h = ctx;
	struct line_group *g = find(h, p->g);
	int ns = h->nstages + 1;

	if (!g || (g->n == g->cap && grow(g, ns))) {
		ntp_error("the HTML series: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	g->t[g->n] = ntp_series__t_s(s, p);
	for (int k = 0; k < ns; k++) {
		const struct ntp_summary *sm = k < h->nstages ? &p->g->stage[k] : &p->g->e2e;

		/* an interval without commands of the group leaves a gap */
		g->mean[k * g->cap + g->n] = sm->n ? sm->mean / 1000.0 : NAN;
		g->p99[k * g->cap + g->n] = sm->n ? (double)sm->p99 / 1000.0 : NAN;
	}
	g->n++;
	return 0;
}

/* a series' values of one group as the charts want them: [series * n + i] */
static double *packed(const struct line_group *g, const double *v, int ns, int first, int count)
{
	double *out = malloc((g->n ? g->n : 1) * count * sizeof(*out));

	if (!out)
		return NULL;
	for (int s = 0; s < count; s++)
		for (size_t i = 0; i < g->n; i++)
			out[s * g->n + i] = v[(first + s) * g->cap + i];
	(void)ns;
	return out;
}

static int charts(FILE *f, const struct ntp_series *s, const struct line_group *g, int nst)
{
	const struct ntp_view *v = ntp_report__view(&s->r);
	const char *names[NTP_VIEW_MAX_STAGES + 1];
	double *m = packed(g, g->mean, nst + 1, 0, nst + 1), *q = packed(g, g->p99, nst + 1, 0, nst + 1);
	char size[32], title[256];
	int rc = 0;

	if (!m || !q) {
		rc = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < nst; k++)
		names[k] = v->stages[k].text;
	names[nst] = ntp_report__total_label(&s->r);
	ntp_size__str(g->bytes, size, sizeof(size));
	snprintf(title, sizeof(title), "%s %s %s: mean of each stage and of the %s per %g s",
		 g->io_type, size, g->ns, names[nst], (double)s->interval_ns / 1e9);
	ntp_svg__lines(f, &(struct ntp_line_chart){ title, "s since the start", "\u00b5s", (int)g->n,
						   nst + 1, g->t, names, m, nst + 1 });
	snprintf(title, sizeof(title), "%s %s %s: p99 of each stage and of the %s per %g s",
		 g->io_type, size, g->ns, names[nst], (double)s->interval_ns / 1e9);
	ntp_svg__lines(f, &(struct ntp_line_chart){ title, "s since the start", "\u00b5s", (int)g->n,
						   nst + 1, g->t, names, q, nst + 1 });
out:
	free(m);
	free(q);
	return rc;
}

static int end(void *ctx, const struct ntp_series *s)
{
	struct ntp_series_html *h = ctx;
	FILE *f = h->f;

	ntp_html__begin(f, "ntprof series");
	fputs("<h1>ntprof series: ", f);
	for (int i = 0; i < s->r.nfiles; i++) {
		if (i)
			fputs(", ", f);
		ntp_xml__text(f, s->r.files[i].hdr.path);
	}
	fprintf(f, "</h1>\n<p>%llu commands in %llu points; intervals of %g s on the %s's clock, "
		"from the recording's start.  An interval without commands of a group is a gap in "
		"its lines.</p>\n", (unsigned long long)s->commands, (unsigned long long)s->points,
		(double)s->interval_ns / 1e9, ntp_series__clock(s));
	if (!h->ngroups)
		fputs("<p>No commands.</p>\n", f);
	for (size_t i = 0; i < h->ngroups; i++) {
		char size[32];

		ntp_size__str(h->groups[i].bytes, size, sizeof(size));
		fputs("<h2>", f);
		ntp_xml__text(f, h->groups[i].io_type);
		fprintf(f, " %s ", size);
		ntp_xml__text(f, h->groups[i].ns);
		if (s->r.kind == NTP_REPORT_JOINED && s->r.nfiles > 1)
			fprintf(f, " (file %d)", h->groups[i].file);
		fputs("</h2>\n", f);
		if (charts(f, s, &h->groups[i], h->nstages)) {
			ntp_error("the HTML series: %s", strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
	}
	ntp_html__end(f, ntp_version_string, "ntprof-series(1)");
	return ferror(f) ? NTP_EXIT_FAILURE : 0;
}

struct ntp_series_out ntp_series__html_out(struct ntp_series_html *h, FILE *f)
{
	memset(h, 0, sizeof(*h));
	h->f = f;
	return (struct ntp_series_out){ begin, point, end, h };
}
