// SPDX-License-Identifier: GPL-2.0
/*
 * series --html FILE: the series as one page (inline SVG,
 * lib/fmt/svg_chart.h): first the rate panel, the estimated commands/s of
 * the groups over the recording's time, then for each group two line
 * charts: the mean of each stage, and the p99 of each stage and of the
 * total, per interval.  Unlike the text, JSON and CSV, a chart needs every
 * point before its axes are known, so this printer keeps them: a few
 * numbers per group and interval, not the commands.
 */
#include <errno.h>
#include <inttypes.h>
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
#include "lib/model/model_filter_opt.h"
#include "lib/series/series_out.h"

/* the points of one group, in the order they came (interval by interval) */
struct line_group {
	int file;
	char *io_type, *ns;
	int64_t bytes;
	size_t n, cap;
	double *t;                    /* each point's time since the origin, s */
	double *rate;                 /* each point's est. commands/s; NaN: unknown */
	double *mean, *p99;           /* [series * cap + i], us; series = stages, then the total */
	uint64_t commands;            /* over every point */
};

/* the rate panel's lines: the groups with the most commands, and all of them together */
#define RATE_MAX_LINES 8

static void group_free(struct line_group *g)
{
	free(g->io_type);
	free(g->ns);
	free(g->t);
	free(g->rate);
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
	double *t = malloc(cap * sizeof(*t)), *r = malloc(cap * sizeof(*r));
	double *m = malloc(cap * nseries * sizeof(*m)), *q = malloc(cap * nseries * sizeof(*q));

	if (!t || !r || !m || !q) {
		free(t);
		free(r);
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
	if (g->n) {
		memcpy(t, g->t, g->n * sizeof(*t));
		memcpy(r, g->rate, g->n * sizeof(*r));
	}
	free(g->t);
	free(g->rate);
	free(g->mean);
	free(g->p99);
	g->t = t;
	g->rate = r;
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
	enum ntp_stat tail = ntp_stat__tail();

	if (!g || (g->n == g->cap && grow(g, ns))) {
		ntp_error("the HTML series: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	g->t[g->n] = ntp_series__t_s(s, p);
	g->rate[g->n] = p->g->est_rate >= 0 ? p->g->est_rate : NAN;
	g->commands += p->g->e2e.n;
	for (int k = 0; k < ns; k++) {
		const struct ntp_summary *sm = k < h->nstages ? &p->g->stage[k] : &p->g->e2e;

		/* an interval without commands of the group leaves a gap */
		g->mean[k * g->cap + g->n] = sm->n ? sm->mean / 1000.0 : NAN;
		g->p99[k * g->cap + g->n] = ntp_stat__shown(sm, tail) ?
					    (double)ntp_stat__of(sm, tail) / 1000.0 : NAN;
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

static bool any_value(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			return true;
	return false;
}

/* a group's key: "read 4KiB nvme0n1", or with --by the queue or the process alone */
static void key_name(const struct ntp_series *s, const struct line_group *g, char *buf, size_t len)
{
	char size[32];

	if (s->by != NTP_DIAG_BY_NONE) {
		snprintf(buf, len, "%s", g->ns);
		return;
	}
	ntp_size__str(g->bytes, size, sizeof(size));
	snprintf(buf, len, "%s %s %s", g->io_type, size, g->ns);
}

static int charts(FILE *f, const struct ntp_series *s, const struct line_group *g, int nst)
{
	enum ntp_stat tail = ntp_stat__tail();
	const struct ntp_view *v = ntp_report__view(&s->r);
	const char *names[NTP_VIEW_MAX_STAGES + 1];
	double *m = packed(g, g->mean, nst + 1, 0, nst + 1), *q = packed(g, g->p99, nst + 1, 0, nst + 1);
	char size[200], title[300];
	int rc = 0;

	if (!m || !q) {
		rc = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < nst; k++)
		names[k] = v->stages[k].text;
	names[nst] = ntp_report__total_label(&s->r);
	key_name(s, g, size, sizeof(size));
	snprintf(title, sizeof(title), "%s: mean of each stage and of the %s per %g s",
		 size, names[nst], (double)s->interval_ns / 1e9);
	ntp_svg__lines(f, &(struct ntp_line_chart){ title, "s since the start", "\u00b5s", (int)g->n,
						   nst + 1, g->t, names, m, nst + 1 });
	if (!any_value(q, g->n * (nst + 1))) {
		/* a chart of no point would say nothing: say why there is none */
		fprintf(f, "<p class=\"note\">%s: no interval has the %" PRIu64 " commands a "
			"%s needs (fewer would make it their maximum); a longer --interval "
			"holds more.</p>\n", size, ntp_stats[tail].min_shown,
			ntp_stats[tail].name);
		goto out;
	}
	snprintf(title, sizeof(title), "%s: %s of each stage and of the %s per %g s",
		 size, ntp_stats[tail].name, names[nst],
		 (double)s->interval_ns / 1e9);
	ntp_svg__lines(f, &(struct ntp_line_chart){ title, "s since the start", "\u00b5s", (int)g->n,
						   nst + 1, g->t, names, q, nst + 1 });
out:
	free(m);
	free(q);
	return rc;
}

/* a group's name on the page: "read 4KiB nvme0n1", "(file 2)" when joined files are several */
static void group_name(const struct ntp_series *s, const struct line_group *g, char *buf,
		       size_t len)
{
	char key[200];

	key_name(s, g, key, sizeof(key));
	if (s->r.kind == NTP_REPORT_JOINED && s->r.nfiles > 1)
		snprintf(buf, len, "%s (file %d)", key, g->file);
	else
		snprintf(buf, len, "%s", key);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* groups (indexes into ctx) by their commands, most first; ties in the page's order */
static int by_commands(const void *a, const void *b, void *ctx)
{
	const struct line_group *g = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (g[i].commands != g[j].commands)
		return g[i].commands < g[j].commands ? 1 : -1;
	return (i > j) - (i < j);
}

/*
 * The rate panel: over every interval in which a command started, the
 * estimated commands/s of the RATE_MAX_LINES groups with the most commands
 * (0 where a group had none: none started) and of all the groups shown.
 */
static int rate_panel(FILE *f, const struct ntp_series *s, const struct ntp_series_html *h)
{
	size_t nt = 0, total = 0, nl, *order = NULL;
	double *x = NULL, *v = NULL;
	char (*names)[300] = NULL;
	const char **series = NULL;
	char title[160];
	int rc = -ENOMEM;

	for (size_t i = 0; i < h->ngroups; i++)
		total += h->groups[i].n;
	nl = h->ngroups < RATE_MAX_LINES ? h->ngroups : RATE_MAX_LINES;
	x = malloc((total ? total : 1) * sizeof(*x));
	order = malloc((h->ngroups ? h->ngroups : 1) * sizeof(*order));
	names = calloc(nl + 1, sizeof(*names));
	series = calloc(nl + 1, sizeof(*series));
	if (!x || !order || !names || !series)
		goto out;
	/* the times of the intervals that had commands, each once */
	for (size_t i = 0; i < h->ngroups; i++)
		for (size_t k = 0; k < h->groups[i].n; k++)
			x[nt++] = h->groups[i].t[k];
	qsort(x, nt, sizeof(*x), by_double);
	total = nt;
	nt = 0;
	for (size_t k = 0; k < total; k++)
		if (!nt || x[k] != x[nt - 1])
			x[nt++] = x[k];
	v = calloc((nt ? nt : 1) * (nl + 1), sizeof(*v));
	if (!v)
		goto out;
	for (size_t i = 0; i < h->ngroups; i++)
		order[i] = i;
	qsort_r(order, h->ngroups, sizeof(*order), by_commands, h->groups);
	for (size_t i = 0; i < h->ngroups; i++) {
		const struct line_group *g = &h->groups[order[i]];
		size_t k = 0;

		/* a group's points are in time order, as x is */
		for (size_t p = 0; p < g->n; p++) {
			while (x[k] != g->t[p])
				k++;
			if (i < nl)
				v[i * nt + k] = g->rate[p];
			v[nl * nt + k] += g->rate[p];
		}
	}
	for (size_t i = 0; i < nl; i++) {
		group_name(s, &h->groups[order[i]], names[i], sizeof(names[i]));
		series[i] = names[i];
	}
	if (h->ngroups > 1)
		snprintf(names[nl], sizeof(names[nl]), "all %zu groups", h->ngroups);
	else
		snprintf(names[nl], sizeof(names[nl]), "the group");
	series[nl] = names[nl];
	snprintf(title, sizeof(title), "est. commands/s per %g s interval%s",
		 (double)s->interval_ns / 1e9,
		 h->ngroups > nl ? ": the groups with the most commands, and all" : "");
	ntp_svg__lines(f, &(struct ntp_line_chart){ title, "s since the start", "commands/s",
						   (int)nt, (int)nl + 1, x, series, v, 0 });
	rc = 0;
out:
	free(x);
	free(v);
	free(order);
	free(names);
	free(series);
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
	if (s->filter) {
		char what[1024];

		ntp_read_filter__describe(s->filter, what, sizeof(what));
		fputs("<p>Read filters: ", f);
		ntp_xml__text(f, what);
		fputs(" (only the commands that pass them).</p>\n", f);
	}
	if (s->top)
		fprintf(f, "<p>The %llu groups with the most commands, of %llu; %llu groups "
			"(%llu commands) left out (--top).</p>\n",
			(unsigned long long)(s->groups - s->groups_hidden),
			(unsigned long long)s->groups, (unsigned long long)s->groups_hidden,
			(unsigned long long)s->commands_hidden);
	if (!h->ngroups) {
		fputs("<p>No commands.</p>\n", f);
	} else {
		fputs("<h2>Rate</h2>\n", f);
		if (rate_panel(f, s, h))
			goto nomem;
	}
	for (size_t i = 0; i < h->ngroups; i++) {
		char name[300];

		group_name(s, &h->groups[i], name, sizeof(name));
		fputs("<h2>", f);
		ntp_xml__text(f, name);
		fputs("</h2>\n", f);
		if (charts(f, s, &h->groups[i], h->nstages))
			goto nomem;
	}
	ntp_html__end(f, ntp_version_string, "ntprof-series(1)");
	return ferror(f) ? NTP_EXIT_FAILURE : 0;
nomem:
	ntp_error("the HTML series: %s", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

struct ntp_series_out ntp_series__html_out(struct ntp_series_html *h, FILE *f)
{
	memset(h, 0, sizeof(*h));
	h->f = f;
	return (struct ntp_series_out){ begin, point, end, h };
}
