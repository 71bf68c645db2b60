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

	if (s->by != NTP_DIAG_BY_NONE)
		fprintf(t->f, "file,interval,start_ns,covered_ns,%s,n,est_cmds_per_s",
			ntp_series__by_word(s));
	else
		fprintf(t->f, "file,interval,start_ns,covered_ns,io_type,bytes,%s,n,est_cmds_per_s",
			s->r.kind == NTP_REPORT_TARGET ? "device" : "namespace");
	for (int k = -1; k < v->nstages; k++) {
		const char *key = k < 0 ? "e2e" : v->stages[k].json;

		fprintf(t->f, ",%s_mean_ns", key);
		for (int q = 0; q < s->npct; q++)
			fprintf(t->f, ",%s_%s_ns", key, ntp_stats[s->pct[q]].key);
	}
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
	if (s->by == NTP_DIAG_BY_NONE) {
		ntp_csv__text(t->f, g->io_type, ",");
		fprintf(t->f, ",%" PRId64 ",", g->bytes);
	}
	ntp_csv__text(t->f, g->ns, ",");
	fprintf(t->f, ",%zu,", g->e2e.n);
	if (g->est_rate >= 0)
		fprintf(t->f, "%.3f", g->est_rate);
	for (int k = -1; k < v->nstages; k++) {
		const struct ntp_summary *sm = k < 0 ? &g->e2e : &g->stage[k];

		fprintf(t->f, ",%" PRId64, ntp_report__round_ns(sm->mean));
		/* a percentile of too few commands: an empty field, as the JSON's null */
		for (int q = 0; q < s->npct; q++) {
			fputc(',', t->f);
			if (ntp_stat__shown(sm, s->pct[q]))
				fprintf(t->f, "%" PRId64, ntp_stat__of(sm, s->pct[q]));
		}
	}
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
