// SPDX-License-Identifier: GPL-2.0
/*
 * compare: pair the groups and stages of two report models (compare.h), and
 * the arithmetic of every value, shared by the text and the JSON so that
 * they cannot disagree.
 *
 * Groups are matched on (I/O type, size, namespace), stages on their JSON
 * name: a group or a stage found in one recording only becomes a row with
 * one side empty, never dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/compare/compare_model.h"
#include "lib/core/interval.h"
#include "lib/model/model_groups.h"
#include "lib/model/model_load.h"

/* the statistic as report shows it: the mean rounded to the ns */
static int64_t stat_of(const struct ntp_summary *s, enum ntp_stat stat)
{
	return ntp_stat__of(s, stat);
}

/*
 * The delta's 95% interval and its test's p-value: Welch's for the mean,
 * the two runs' order-statistic intervals combined for a percentile
 * (lib/core/interval.h).  Tested when both runs have the commands the
 * statistic needs (lib/core/stat_table.h: a p99 needs 500 in each run, a
 * p99.9 5000) and --min-n: with fewer the tail is not estimated well
 * enough to tell a change, and no interval is given.  The verdict waits
 * for every row's p-value (decide()).
 */
static void interval(const struct ntp_compare_stage *st, enum ntp_stat stat,
		     struct ntp_compare_value *out)
{
	const struct ntp_summary *b = st->s[NTP_CMP_BASE], *n = st->s[NTP_CMP_NEW];
	int q = stat - NTP_STAT_PCT;       /* the percentile's index in p_lo[], p_hi[] */

	out->p = NAN;
	out->need_n = ntp_stats[stat].min_n > st->min_n ? ntp_stats[stat].min_n : st->min_n;
	/* in both runs, but too few commands in one to show the statistic at all */
	if (!out->has_delta && b && b->n && n && n->n)
		out->verdict = NTP_CMP_NOT_TESTED;
	if (!out->has_delta)
		return;
	out->verdict = NTP_CMP_NOT_TESTED;
	if (b->n < ntp_stats[stat].min_n || n->n < ntp_stats[stat].min_n || b->n < 2 || n->n < 2)
		return;
	if (stat == NTP_STAT_MEAN) {
		out->has_ci = ntp_interval__mean_diff(b->n, b->mean, b->stddev, n->n, n->mean,
						      n->stddev, &out->ci_lo, &out->ci_hi);
		out->p = ntp_interval__mean_diff_p(b->n, b->mean, b->stddev, n->n, n->mean,
						   n->stddev);
	} else {
		out->has_ci = ntp_interval__quantile_diff(stat_of(b, stat), b->p_lo[q], b->p_hi[q],
							  stat_of(n, stat), n->p_lo[q], n->p_hi[q],
							  &out->ci_lo, &out->ci_hi);
		out->p = ntp_interval__quantile_diff_p(stat_of(b, stat), b->p_lo[q], b->p_hi[q],
						       stat_of(n, stat), n->p_lo[q], n->p_hi[q]);
	}
	out->tested = out->has_ci && !isnan(out->p) && b->n >= out->need_n &&
		      n->n >= out->need_n;
	if (out->tested)
		out->verdict = NTP_CMP_NOISE;
}

static void make_value(const struct ntp_compare_stage *st, enum ntp_stat stat,
		       struct ntp_compare_value *out)
{
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		/* "-" for a run with too few commands to show it (lib/core/stat_table.h) */
		out->has[r] = st->s[r] && ntp_stat__shown(st->s[r], stat);
		if (out->has[r])
			out->v[r] = stat_of(st->s[r], stat);
	}
	out->ratio = NAN;
	out->has_delta = out->has[NTP_CMP_BASE] && out->has[NTP_CMP_NEW];
	if (out->has_delta) {
		out->delta = out->v[NTP_CMP_NEW] - out->v[NTP_CMP_BASE];
		if (out->v[NTP_CMP_BASE])
			out->ratio = (double)out->v[NTP_CMP_NEW] / (double)out->v[NTP_CMP_BASE];
	}
	interval(st, stat, out);
}

void ntp_compare__value(const struct ntp_compare_stage *st, enum ntp_stat stat,
			struct ntp_compare_value *out)
{
	*out = st->val[stat];
}

void ntp_compare__verdict_str(const struct ntp_compare_value *v, char *buf, size_t len)
{
	switch (v->verdict) {
	case NTP_CMP_CHANGED:
		snprintf(buf, len, "yes");
		break;
	case NTP_CMP_SMALL:
		snprintf(buf, len, "small");
		break;
	case NTP_CMP_NOISE:
		snprintf(buf, len, "no");
		break;
	case NTP_CMP_NOT_TESTED:
		snprintf(buf, len, "n<%" PRIu64, v->need_n);
		break;
	default:
		snprintf(buf, len, "-");
	}
}

const char *ntp_compare__verdict_key(enum ntp_compare_verdict v)
{
	switch (v) {
	case NTP_CMP_CHANGED:
		return "changed";
	case NTP_CMP_SMALL:
		return "small";
	case NTP_CMP_NOISE:
		return "noise";
	case NTP_CMP_NOT_TESTED:
		return "not_tested";
	default:
		return NULL;
	}
}

/* the nearest rank of stats.c, in integers: ceil(p/100 * n) */
static uint64_t nearest_rank(int64_t millionths, size_t n)
{
	unsigned __int128 x = (unsigned __int128)millionths * n;
	uint64_t r = (uint64_t)((x + 100000000 - 1) / 100000000);

	if (r < 1)
		r = 1;
	return r > n ? n : r;
}

/* appends to buf, never past len */
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (k > 0)
		*off += (size_t)k < len - *off ? (size_t)k : len - *off;
}

void ntp_compare__formula(const struct ntp_compare_stage *st, enum ntp_stat stat,
			  char *buf, size_t len)
{
	static const char *const run_name[NTP_CMP_RUNS] = { "baseline", "new" };
	struct ntp_compare_value v;
	size_t off = 0;

	ntp_compare__value(st, stat, &v);
	buf[0] = '\0';
	put(buf, len, &off, "%s, ns: ", ntp_stats[stat].name);
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		const struct ntp_summary *s = st->s[r];

		if (!v.has[r])
			put(buf, len, &off, "%s = none (not in that recording)", run_name[r]);
		else if (stat == NTP_STAT_MEAN)
			put(buf, len, &off, "%s = round(%" PRId64 " / %zu) = %" PRId64,
			    run_name[r], st->sum[r], s->n, v.v[r]);
		else
			put(buf, len, &off, "%s = sorted[%" PRIu64 " of %zu] = %" PRId64,
			    run_name[r], nearest_rank(llround(ntp_stats[stat].pct * 1e6), s->n), s->n,
			    v.v[r]);
		put(buf, len, &off, "; ");
	}
	if (!v.has_delta) {
		put(buf, len, &off, "delta and ratio: none (needs both recordings)");
		return;
	}
	put(buf, len, &off, "delta = new - baseline = %" PRId64 " - %" PRId64 " = %" PRId64 "; ",
	    v.v[NTP_CMP_NEW], v.v[NTP_CMP_BASE], v.delta);
	if (isfinite(v.ratio))
		put(buf, len, &off, "ratio = new / baseline = %" PRId64 " / %" PRId64 " = %.4f",
		    v.v[NTP_CMP_NEW], v.v[NTP_CMP_BASE], v.ratio);
	else
		put(buf, len, &off, "ratio = none (baseline is 0)");
}

/* ---- pairing -------------------------------------------------------------------- */

struct side_group {
	const struct ntp_report_group *g;
	int run;
	int place;              /* host_place() of its file */
};

/*
 * A group's host file as its place among the run's files with host
 * commands, from 1: the files of a run come in any order ("t.ntp,h.ntp"),
 * and its Nth host file is paired with the other run's Nth.
 */
static int host_place(const struct ntp_report *rep, int host_file)
{
	int n = 0;

	for (int i = 0; i < rep->nfiles && i < host_file; i++)
		n += !!(rep->files[i].sides & NTP_SIDE_HOST);
	return n ? n : host_file;
}

/* the pairing key: that place, then the group's (namespace, type, size) */
static int same_group(const struct side_group *x, const struct side_group *y)
{
	int c = x->place - y->place;

	return c ? c : ntp_report__group_cmp(x->g, y->g);
}

static int side_cmp(const void *a, const void *b)
{
	const struct side_group *x = a, *y = b;
	int c = same_group(x, y);

	return c ? c : x->run - y->run;
}

/* one entry of a run's stages */
static void put_stage(struct ntp_compare_stage *out, const struct ntp_view_stage *st, int run,
		      const struct ntp_summary *s, int64_t sum)
{
	memset(out, 0, sizeof(*out));
	out->text = st->text;
	out->json = st->json;
	out->s[run] = s;
	out->sum[run] = sum;
}

/*
 * The stages of one run's group (its report's view, and the application's
 * around them when the run has them: ntprof-report(1)), then its
 * end-to-end latency.  The application's are of the commands with their
 * stamps, which is what each run's report says of them too.
 */
static size_t run_stages(const struct ntp_report *rep, const struct ntp_report_group *g, int run,
			 struct ntp_compare_stage *out)
{
	const struct ntp_view *v = ntp_report__view(rep);
	const struct ntp_view_stage *as = ntp_report__app_stages;
	const struct ntp_view_stage total = { ntp_report__total_label(rep),
					      ntp_stages[NTP_STAGE_E2E].key, NULL, NTP_STAGE_E2E };
	size_t n = 0;

	if (rep->app)
		put_stage(&out[n++], &as[NTP_APP_SUBMIT], run, &g->app.stage[NTP_APP_SUBMIT],
			  g->app.sum_stage[NTP_APP_SUBMIT]);
	for (int s = 0; s < v->nstages; s++)
		put_stage(&out[n++], &v->stages[s], run, &g->stage[s], g->sum_stage[s]);
	for (int s = NTP_APP_COMPLETE; rep->app && s < NTP_APP_STAGES; s++)
		put_stage(&out[n++], &as[s], run, &g->app.stage[s], g->app.sum_stage[s]);
	if (rep->app)
		put_stage(&out[n++], &ntp_report__app_total, run, &g->app.e2e, g->app.sum_e2e);
	put_stage(&out[n++], &total, run, &g->e2e, g->sum_e2e);
	return n;
}

/*
 * The union of the two runs' stages, matched by name: the baseline's order,
 * then stages only the new run has, and the end-to-end latency last.
 */
static int pair_stages(const struct ntp_compare *c, struct ntp_compare_group *cg)
{
	struct ntp_compare_stage side[NTP_CMP_RUNS][NTP_VIEW_MAX_STAGES + NTP_APP_STAGES + 2];
	size_t n[NTP_CMP_RUNS] = { 0, 0 }, k = 0;
	bool used[NTP_VIEW_MAX_STAGES + NTP_APP_STAGES + 2] = { false };

	for (int r = 0; r < NTP_CMP_RUNS; r++)
		if (cg->g[r])
			n[r] = run_stages(&c->run[r], cg->g[r], r, side[r]);
	cg->stage = calloc(n[0] + n[1], sizeof(*cg->stage));
	if (!cg->stage)
		return -ENOMEM;
	/* the end-to-end entry is each list's last: kept for the end */
	for (size_t i = 0; i + 1 < n[0]; i++) {
		cg->stage[k] = side[0][i];
		for (size_t j = 0; j + 1 < n[1]; j++) {
			if (!used[j] && !strcmp(side[1][j].json, side[0][i].json)) {
				cg->stage[k].s[1] = side[1][j].s[1];
				cg->stage[k].sum[1] = side[1][j].sum[1];
				used[j] = true;
				break;
			}
		}
		k++;
	}
	for (size_t j = 0; j + 1 < n[1]; j++)
		if (!used[j])
			cg->stage[k++] = side[1][j];
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		if (!n[r])
			continue;
		if (!cg->stage[k].text)
			cg->stage[k] = side[r][n[r] - 1];
		cg->stage[k].s[r] = side[r][n[r] - 1].s[r];
		cg->stage[k].sum[r] = side[r][n[r] - 1].sum[r];
	}
	cg->nstages = k + 1;
	return 0;
}

static int pair_groups(struct ntp_compare *c)
{
	size_t total = c->run[0].ngroups + c->run[1].ngroups, k = 0;
	struct side_group *all = calloc(total ? total : 1, sizeof(*all));
	bool numbered = false;

	if (!all)
		return -ENOMEM;
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		for (size_t i = 0; i < c->run[r].ngroups; i++) {
			const struct ntp_report_group *g = &c->run[r].groups[i];

			all[k] = (struct side_group){ g, r, host_place(&c->run[r], g->host_file) };
			numbered |= all[k++].place > 1;
		}
	}
	qsort(all, total, sizeof(*all), side_cmp);
	c->groups = calloc(total ? total : 1, sizeof(*c->groups));
	if (!c->groups) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < total; i++) {
		struct ntp_compare_group *cg;

		/* the same group in the new run follows its baseline twin */
		if (i && all[i].run == NTP_CMP_NEW && all[i - 1].run == NTP_CMP_BASE &&
		    !same_group(&all[i], &all[i - 1])) {
			c->groups[c->ngroups - 1].g[NTP_CMP_NEW] = all[i].g;
			continue;
		}
		cg = &c->groups[c->ngroups++];
		cg->io_type = all[i].g->io_type;
		cg->ns = all[i].g->ns;
		cg->bytes = all[i].g->bytes;
		cg->file = all[i].place;
		if (numbered)
			snprintf(cg->label, sizeof(cg->label), "%d:%s", cg->file, cg->ns);
		else
			snprintf(cg->label, sizeof(cg->label), "%s", cg->ns);
		cg->g[all[i].run] = all[i].g;
	}
	free(all);
	for (size_t i = 0; i < c->ngroups; i++) {
		if (pair_stages(c, &c->groups[i]))
			return -ENOMEM;
		for (size_t s = 0; s < c->groups[i].nstages; s++)
			c->groups[i].stage[s].min_n = c->min_n;
	}
	return 0;
}

/* ---- what differs between the recordings ---------------------------------------- */

static int add_line(char ***list, size_t *n, const char *fmt, ...)
{
	char *s = NULL, **p;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	p = realloc(*list, (*n + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return -ENOMEM;
	}
	p[(*n)++] = s;
	*list = p;
	return 0;
}

static int text_differs(struct ntp_compare *c, const char *what, const char *a, const char *b)
{
	if (!strcmp(ntp_report__or_unknown(a), ntp_report__or_unknown(b)))
		return 0;
	return add_line(&c->differences, &c->ndifferences, "%s: %s -> %s", what, ntp_report__or_unknown(a),
			ntp_report__or_unknown(b));
}

static const struct ntp_report_hook *find_hook(const struct ntp_report_header *h,
					       const struct ntp_report_hook *k)
{
	for (size_t i = 0; i < h->nhooks; i++)
		if (!strcmp(h->hooks[i].side, k->side) && !strcmp(h->hooks[i].point, k->point))
			return &h->hooks[i];
	return NULL;
}

/* each stage boundary whose hook or attach flavour changed, or that one run lacks */
static int hooks_differ(struct ntp_compare *c, const struct ntp_report_header *a,
			const struct ntp_report_header *b, const char *pre)
{
	int rc = 0;

	for (size_t i = 0; i < a->nhooks && !rc; i++) {
		const struct ntp_report_hook *x = &a->hooks[i], *y = find_hook(b, x);

		if (!y)
			rc = add_line(&c->differences, &c->ndifferences,
				      "%shook %s %s: %s (%s) -> none", pre, x->side, x->point,
				      x->hook, x->flavour);
		else if (strcmp(x->hook, y->hook) || strcmp(x->flavour, y->flavour))
			rc = add_line(&c->differences, &c->ndifferences,
				      "%shook %s %s: %s (%s) -> %s (%s)", pre, x->side, x->point,
				      x->hook, x->flavour, y->hook, y->flavour);
	}
	for (size_t i = 0; i < b->nhooks && !rc; i++) {
		const struct ntp_report_hook *y = &b->hooks[i];

		if (!find_hook(a, y))
			rc = add_line(&c->differences, &c->ndifferences,
				      "%shook %s %s: none -> %s (%s)", pre, y->side, y->point,
				      y->hook, y->flavour);
	}
	return rc;
}

/* what differs between file i of each run; "file 2: " before each line over several files */
static int file_differs(struct ntp_compare *c, int i, const char *pre)
{
	const struct ntp_report_header *a = &c->run[0].files[i].hdr, *b = &c->run[1].files[i].hdr;
	char what[64];
	int rc = 0;

#define WHAT(s) (snprintf(what, sizeof(what), "%s%s", pre, s), what)
	rc |= text_differs(c, WHAT("kernel release"), a->kernel_release, b->kernel_release);
	rc |= text_differs(c, WHAT("host"), a->hostname, b->hostname);
	if (a->sample_one_in != b->sample_one_in)
		rc |= add_line(&c->differences, &c->ndifferences,
			       "%ssample rate: 1/%" PRId64 " -> 1/%" PRId64, pre, a->sample_one_in,
			       b->sample_one_in);
	if (a->hash_version != b->hash_version)
		rc |= add_line(&c->differences, &c->ndifferences,
			       "%shash version: %" PRId64 " -> %" PRId64, pre, a->hash_version,
			       b->hash_version);
	rc |= text_differs(c, WHAT("recorded by"), a->recorded_by, b->recorded_by);
#undef WHAT
	rc |= hooks_differ(c, a, b, pre);
	return rc;
}

static const char *none_words(enum ntp_report_kind kind)
{
	switch (kind) {
	case NTP_REPORT_JOINED:
		return "joined";
	case NTP_REPORT_TARGET:
		return "sampled target";
	default:
		return "sampled host";
	}
}

static int header_notes(struct ntp_compare *c)
{
	static const char *const run_name[NTP_CMP_RUNS] = { "baseline", "new recording" };
	const struct ntp_report_header *a = &c->run[0].files[0].hdr, *b = &c->run[1].files[0].hdr;
	int nfiles = c->run[0].nfiles < c->run[1].nfiles ? c->run[0].nfiles : c->run[1].nfiles;
	int rc = 0;

	if (c->run[0].nfiles != c->run[1].nfiles)
		rc |= add_line(&c->differences, &c->ndifferences, "recordings: %d -> %d",
			       c->run[0].nfiles, c->run[1].nfiles);
	for (int i = 0; i < nfiles; i++) {
		char pre[32] = "";

		if (nfiles > 1)
			snprintf(pre, sizeof(pre), "file %d: ", i + 1);
		rc |= file_differs(c, i, pre);
	}

	/* different rates sample different shares: the tails rest on other counts */
	if (a->sample_one_in != b->sample_one_in) {
		rc |= add_line(&c->warnings, &c->nwarnings,
			       "sample rates differ (baseline 1/%" PRId64 ", new 1/%" PRId64 "): "
			       "the statistics rest on different shares of the commands",
			       a->sample_one_in, b->sample_one_in);
		/* the one warning worth stderr: the numbers below are still printed */
		if (!rc)
			ntp_warn("%s", c->warnings[c->nwarnings - 1]);
	}
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		uint64_t lost = 0;

		for (int i = 0; i < c->run[r].nfiles; i++) {
			const struct ntp_report_file *f = &c->run[r].files[i];

			lost += f->hdr.lost_ringbuf + f->hdr.lost_map + f->t_lost_ringbuf +
				f->t_lost_map;
		}
		if (lost)
			rc |= add_line(&c->warnings, &c->nwarnings,
				       "the %s lost %" PRIu64 " sampled commands while recording; "
				       "its statistics do not include them", run_name[r], lost);
		if (!c->run[r].ngroups)
			rc |= add_line(&c->warnings, &c->nwarnings, "the %s has no %s commands",
				       run_name[r], none_words(c->run[r].kind));
	}
	return rc ? -ENOMEM : 0;
}

const char *ntp_compare__kind_words(enum ntp_report_kind kind)
{
	switch (kind) {
	case NTP_REPORT_JOINED:
		return "joined recordings";
	case NTP_REPORT_TARGET:
		return "target recordings";
	default:
		return "host recordings";
	}
}

/*
 * The stage whose mean moved the most (in ns, either way) in a group found
 * in both runs: the one line a reader looks for first.  A change beyond
 * the noise and the floor comes before any other, then one within the
 * floor, then one tested, then one too few to tell: else the line would
 * point at the noise of a group of seven commands.  Only the first kind
 * is a change (ntprof-compare(1)): the line says so.
 */
static int most_rank(const struct ntp_compare_value *v)
{
	switch (v->verdict) {
	case NTP_CMP_CHANGED:
		return 3;
	case NTP_CMP_SMALL:
		return 2;
	case NTP_CMP_NOISE:
		return 1;
	default:
		return 0;
	}
}

static void find_most(struct ntp_compare *c)
{
	int64_t best = -1;
	int best_rank = -1;

	memset(&c->most, 0, sizeof(c->most));
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];

		/* the last entry is the end-to-end latency: not a stage, nor the app e2e */
		for (size_t k = 0; k + 1 < g->nstages; k++) {
			struct ntp_compare_value v;
			int64_t d;
			int rank;

			if (!strcmp(g->stage[k].json, ntp_report__app_total.json))
				continue;
			ntp_compare__value(&g->stage[k], NTP_STAT_MEAN, &v);
			if (!v.has_delta)
				continue;
			d = v.delta < 0 ? -v.delta : v.delta;
			rank = most_rank(&v);
			if (rank > best_rank || (rank == best_rank && d > best)) {
				best = d;
				best_rank = rank;
				c->most = (struct ntp_compare_most){ g, &g->stage[k], v };
			}
		}
	}
}

/* growth of the end-to-end mean, in percent of the baseline's */
/* growth of a value, in percent of the baseline's (NaN unless in both runs) */
static double growth_pct(const struct ntp_compare_value *v)
{
	if (!v->has_delta)
		return NAN;
	if (v->v[NTP_CMP_BASE])
		return (double)v->delta * 100.0 / (double)v->v[NTP_CMP_BASE];
	return v->delta > 0 ? INFINITY : 0;
}

/* the stage a rule names in group cg: its JSON or text name, "e2e" the total; -1 if none */
static ssize_t rule_stage(const struct ntp_compare_group *cg, const char *name)
{
	if (!strcmp(name, "e2e") || !strcmp(name, "end-to-end") || !strcmp(name, "residence"))
		return (ssize_t)cg->nstages - 1;
	for (size_t k = 0; k + 1 < cg->nstages; k++)
		if (!strcmp(cg->stage[k].json, name) || !strcmp(cg->stage[k].text, name))
			return (ssize_t)k;
	return -1;
}

/*
 * Each group against each --threshold rule: over when the rule's statistic
 * grew by more than its percent and the change is beyond the noise
 * (corrected for every row tested), so that noise never fails a CI job.
 * A rule its statistic cannot be tested by in a group found in both runs
 * (too few commands) is said, never passed in silence.
 */
static void check_threshold(struct ntp_compare *c, const struct ntp_compare_opts *o)
{
	for (size_t i = 0; i < c->ngroups; i++) {
		struct ntp_compare_group *cg = &c->groups[i];
		struct ntp_compare_value v;

		ntp_compare__value(&cg->stage[cg->nstages - 1], NTP_STAT_MEAN, &v);
		cg->e2e_growth_pct = growth_pct(&v);
		for (int t = 0; t < o->nthresholds && !cg->tripped; t++) {
			const struct ntp_compare_threshold *rule = &o->threshold[t];
			ssize_t k = rule_stage(cg, rule->stage);
			double g;

			if (k < 0)
				continue;
			ntp_compare__value(&cg->stage[k], rule->stat, &v);
			g = growth_pct(&v);
			if ((v.verdict == NTP_CMP_CHANGED || v.verdict == NTP_CMP_SMALL) &&
			    g > rule->pct) {
				cg->tripped = rule;
				cg->tripped_growth_pct = g;
			} else if (v.verdict == NTP_CMP_NOT_TESTED && !cg->untested) {
				cg->untested = rule;
				cg->untested_need = v.need_n;
			}
		}
		if (cg->tripped) {
			cg->over_threshold = true;
			c->over_threshold++;
		} else if (cg->untested) {
			c->untested_threshold++;
		}
	}
}

void ntp_compare__rule_str(const struct ntp_compare_threshold *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s=%g", t->stage, ntp_stats[t->stat].name, t->pct);
}

/* a rule's stage that no run's view has is a mistake of the command line */
static int check_rules(const struct ntp_compare *c, const struct ntp_compare_opts *o)
{
	const struct ntp_view *v = ntp_report__view(&c->run[NTP_CMP_BASE]);

	for (int t = 0; t < o->nthresholds; t++) {
		const char *name = o->threshold[t].stage;
		bool found = !strcmp(name, "e2e") || !strcmp(name, "end-to-end") ||
			     !strcmp(name, "residence");
		char list[256] = "";
		size_t off = 0;

		for (int s = 0; s < v->nstages && !found; s++)
			found = !strcmp(v->stages[s].json, name) || !strcmp(v->stages[s].text, name);
		if (found)
			continue;
		for (int s = 0; s < v->nstages && off < sizeof(list); s++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s, ",
						v->stages[s].json);
		ntp_error("invalid value '%s' for option '--threshold': no stage '%s' in these "
			  "recordings (stages: %se2e)", name, name, list);
		return NTP_EXIT_USAGE;
	}
	return 0;
}

/* a change at least the floor: both --min-change % of the baseline and --min-change-ns */
static bool beyond_floor(const struct ntp_compare *c, const struct ntp_compare_value *v)
{
	double d = fabs((double)v->delta), base = fabs((double)v->v[NTP_CMP_BASE]);

	return d >= c->floor_ns && d >= c->floor_pct / 100.0 * base;
}

/* is a statistic's row one of the family tested: shown, or asked of by a rule or the headline */
static bool in_family(const struct ntp_compare *c, const struct ntp_compare_opts *o,
		      enum ntp_stat stat)
{
	if (stat == NTP_STAT_MEAN || (c->stats & (1u << stat)))
		return true;
	for (int t = 0; t < o->nthresholds; t++)
		if (o->threshold[t].stat == stat)
			return true;
	return false;
}

/*
 * Every row's value, then the verdicts: Benjamini and Hochberg's correction
 * over the p-values of every row tested (each group found in both runs,
 * each stage, each statistic shown, named by a rule, or the mean the
 * headline reads), at 5%: of two runs of one workload some row says
 * "changed" at most one time in twenty, and of the rows called changed at
 * most a twentieth are noise; then the floor, which a change must exceed
 * to matter.
 */
static int decide(struct ntp_compare *c, const struct ntp_compare_opts *o)
{
	struct ntp_compare_value **rows = NULL;
	double *p = NULL;
	bool *reject = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < c->ngroups; i++) {
		for (size_t k = 0; k < c->groups[i].nstages; k++) {
			struct ntp_compare_stage *st = &c->groups[i].stage[k];

			for (int s = 0; s < NTP_NSTATS; s++) {
				if (!(ntp_stats[s].uses & NTP_STAT_CHANGE))
					continue;
				make_value(st, s, &st->val[s]);
				if (!st->val[s].tested || !in_family(c, o, s))
					continue;
				if (n == cap) {
					size_t ncap = cap ? 2 * cap : 256;
					void *q = realloc(rows, ncap * sizeof(*rows));

					if (!q) {
						free(rows);
						return -ENOMEM;
					}
					rows = q;
					cap = ncap;
				}
				rows[n++] = &st->val[s];
			}
		}
	}
	c->ntests = n;
	p = malloc((n ? n : 1) * sizeof(*p));
	reject = malloc((n ? n : 1) * sizeof(*reject));
	if (!p || !reject) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = rows[i]->p;
	if (ntp_interval__bh(p, n, NTP_CMP_ALPHA, reject)) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!reject[i])
			continue;
		rows[i]->verdict = beyond_floor(c, rows[i]) ? NTP_CMP_CHANGED : NTP_CMP_SMALL;
		rows[i]->significant = rows[i]->verdict == NTP_CMP_CHANGED;
	}
out:
	free(rows);
	free(p);
	free(reject);
	return rc;
}

int ntp_compare__build(struct ntp_compare *c, const struct ntp_compare_opts *o)
{
	int rc;

	c->stats = o->stats ? o->stats : NTP_CMP_DEFAULT_STATS(ntp_stat__tail());
	c->min_n = o->min_n_set ? o->min_n : NTP_CMP_DEFAULT_MIN_N;
	c->floor_pct = o->floor_pct_set ? o->floor_pct : NTP_CMP_DEFAULT_FLOOR_PCT;
	c->floor_ns = o->floor_ns_set ? (double)o->floor_ns : NTP_CMP_DEFAULT_FLOOR_NS;
	rc = check_rules(c, o);
	if (rc)
		return rc;
	if (pair_groups(c) || header_notes(c) || decide(c, o)) {
		ntp_error("%s, %s: cannot compare: %s", c->arg[0], c->arg[1], strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	check_threshold(c, o);
	find_most(c);
	return 0;
}

void ntp_compare__free(struct ntp_compare *c)
{
	for (size_t i = 0; i < c->ngroups; i++)
		free(c->groups[i].stage);
	free(c->groups);
	for (size_t i = 0; i < c->ndifferences; i++)
		free(c->differences[i]);
	free(c->differences);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	ntp_compare_by__free(&c->by);
	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		ntp_diag__free(&c->diag[r]);
		ntp_report__free(&c->run[r]);
		ntp_source__close(c->src[r]);
		free(c->names[r]);
		c->names[r] = NULL;
	}
	c->groups = NULL;
	c->ngroups = 0;
}
