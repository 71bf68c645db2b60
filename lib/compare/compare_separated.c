// SPDX-License-Identifier: GPL-2.0
/*
 * compare -t SEP: the rows of the text's stages table, each with its whole
 * group (bytes, not "4KiB"), the statistic named as the JSON names it with
 * its unit (mean_ns, p99_9_ns), values in integer nanoseconds as the JSON
 * has them, and an empty field where a run lacks the value.  Each group
 * starts with its sampled commands (stage e2e, stat n), so the groups table
 * needs no second row shape.  Quoted as dump quotes; no comment lines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/csv.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/compare/compare_separated.h"
#include "lib/report/report_separated.h"

static const char *const columns[] = { NTP_COMPARE_TIDY_COLUMNS };

struct rows {
	FILE *f;
	const char *sep;
	const struct ntp_compare_group *g;
	int target;
};

/* report -t's keys; the values follow */
static void keys(const struct rows *t, const char *stage, const char *stat)
{
	ntp_report__separated_keys(t->f, t->sep, t->g->file, t->g->io_type, t->g->bytes, t->g->ns,
			      t->target, stage, stat);
}

static void values(const struct rows *t, const struct ntp_compare_value *v, const char *present)
{
	const char *sep = t->sep;

	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		fputs(sep, t->f);
		if (v->has[r])
			ntp_csv__int(t->f, v->v[r]);
	}
	fputs(sep, t->f);
	if (v->has_delta)
		ntp_csv__int(t->f, v->delta);
	fputs(sep, t->f);
	ntp_csv__double(t->f, v->ratio);
	/* the delta's interval, ns, and the verdict as the JSON has them: empty for null */
	fputs(sep, t->f);
	ntp_csv__double(t->f, v->has_ci ? v->ci_lo : NAN);
	fputs(sep, t->f);
	ntp_csv__double(t->f, v->has_ci ? v->ci_hi : NAN);
	fputs(sep, t->f);
	if (v->tested)
		fputs(v->significant ? "true" : "false", t->f);
	fputs(sep, t->f);
	ntp_csv__text(t->f, present, sep);
	fputc('\n', t->f);
}

/* the group's sampled commands in each run, as a row of the e2e stage */
static void count_row(const struct rows *t)
{
	const struct ntp_compare_group *g = t->g;
	struct ntp_compare_value v = { .ratio = NAN };

	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		v.has[r] = g->g[r] != NULL;
		v.v[r] = g->g[r] ? (int64_t)g->g[r]->e2e.n : 0;
	}
	v.has_delta = v.has[NTP_CMP_BASE] && v.has[NTP_CMP_NEW];
	if (v.has_delta) {
		v.delta = v.v[NTP_CMP_NEW] - v.v[NTP_CMP_BASE];
		if (v.v[NTP_CMP_BASE])
			v.ratio = (double)v.v[NTP_CMP_NEW] / (double)v.v[NTP_CMP_BASE];
	}
	keys(t, "e2e", "n");
	values(t, &v, ntp_compare__present_str(ntp_compare__present(g->g[NTP_CMP_BASE],
								    g->g[NTP_CMP_NEW])));
}

int ntp_compare__print_separated(const struct ntp_compare *c, FILE *f,
			    const struct ntp_compare_opts *o)
{
	struct rows t = { .f = f, .sep = o->field_separator,
			  .target = c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET };
	char stat[32];

	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++) {
		if (i)
			fputs(t.sep, f);
		ntp_csv__text(f, columns[i], t.sep);
	}
	fputc('\n', f);
	for (size_t i = 0; i < c->ngroups; i++) {
		t.g = &c->groups[i];
		count_row(&t);
		for (size_t k = 0; k < t.g->nstages; k++) {
			const struct ntp_compare_stage *st = &t.g->stage[k];

			for (int s = 0; s < NTP_NSTATS; s++) {
				struct ntp_compare_value v;

				if (!(c->stats & (1u << s)))
					continue;
				ntp_compare__value(st, s, &v);
				snprintf(stat, sizeof(stat), "%s_ns", ntp_stats[s].key);
				keys(&t, st->json, stat);
				values(&t, &v, ntp_compare__present_str(
					       ntp_compare__present(st->s[NTP_CMP_BASE],
								    st->s[NTP_CMP_NEW])));
			}
		}
	}
	return ferror(f) ? NTP_EXIT_FAILURE : NTP_EXIT_OK;
}

void ntp_compare__warn_separated(const struct ntp_compare *c)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		ntp_warn("%s", c->warnings[i]);
}
