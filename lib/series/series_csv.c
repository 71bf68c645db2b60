// SPDX-License-Identifier: GPL-2.0
/*
 * series: the CSV, for scripts and spreadsheets.  One title line, then one
 * row per interval and group, of one shape: every key column in every row,
 * times in integer ns, sizes in bytes, strings quoted as RFC 4180 (and dump)
 * quote them, an empty field for an unknown rate.
 */
#include <inttypes.h>
#include <string.h>

#include "lib/fmt/csv.h"
#include "lib/cli/exit.h"
#include "lib/series/series_out.h"

/* RFC 4180: quote a field holding a separator, a quote or a line break */
static int csv_begin(void *ctx, const struct ntp_series *s)
{
	struct ntp_series_csv *t = ctx;
	const struct ntp_view *v = ntp_report__view(&s->r);

	fprintf(t->f, "file,interval,start_ns,covered_ns,io_type,bytes,%s,n,est_cmds_per_s,"
		"e2e_mean_ns,e2e_p99_ns", s->r.kind == NTP_REPORT_TARGET ? "device" : "namespace");
	for (int k = 0; k < v->nstages; k++)
		fprintf(t->f, ",%s_mean_ns,%s_p99_ns", v->stages[k].json, v->stages[k].json);
	fputc('\n', t->f);
	return 0;
}

static int csv_point(void *ctx, const struct ntp_series *s, const struct ntp_series_point *p)
{
	struct ntp_series_csv *t = ctx;
	const struct ntp_report_group *g = p->g;
	const struct ntp_view *v = ntp_report__view(&s->r);

	fprintf(t->f, "%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",", g->host_file, p->interval,
		p->start_ns, p->covered_ns);
	ntp_csv__text(t->f, g->io_type, ",");
	fprintf(t->f, ",%" PRId64 ",", g->bytes);
	ntp_csv__text(t->f, g->ns, ",");
	fprintf(t->f, ",%zu,", g->e2e.n);
	if (g->est_rate >= 0)
		fprintf(t->f, "%.3f", g->est_rate);
	fprintf(t->f, ",%" PRId64 ",%" PRId64, ntp_report__round_ns(g->e2e.mean), g->e2e.p99);
	for (int k = 0; k < v->nstages; k++)
		fprintf(t->f, ",%" PRId64 ",%" PRId64, ntp_report__round_ns(g->stage[k].mean),
			g->stage[k].p99);
	fputc('\n', t->f);
	return 0;
}

static int csv_end(void *ctx, const struct ntp_series *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

struct ntp_series_out ntp_series__csv_out(struct ntp_series_csv *t, FILE *f)
{
	t->f = f;
	return (struct ntp_series_out){ csv_begin, csv_point, csv_end, t };
}
