// SPDX-License-Identifier: GPL-2.0
/*
 * compare: the JSON form, the same pairing as the text (compare.h).  Times
 * are integer nanoseconds (_ns); a value a recording lacks is null.
 */
#include <math.h>

#include "lib/cli/exit.h"
#include "lib/fmt/json.h"
#include "lib/cli/version.h"
#include "lib/compare/compare_json.h"
#include "lib/compare/compare_model.h"
#include "lib/ntp/db_schema.h"
#include "lib/model/model_filter.h"
#include "lib/report/report_json.h"
#include "lib/report/report_json_group.h"
#include "lib/model/model.h"
#include "lib/report/report_filter_text.h"
#include "lib/model/model_sort.h"

static void int_or_null(struct ntp_json *j, const char *name, bool has, int64_t v)
{
	ntp_json__name(j, name);
	if (has)
		ntp_json__int(j, v);
	else
		ntp_json__null(j);
}

static void file_object(struct ntp_json *j, const struct ntp_report_file *rf, bool baseline,
			int file)
{
	const struct ntp_report_header *h = &rf->hdr;
	bool host = rf->sides & NTP_SIDE_HOST, target = rf->sides & NTP_SIDE_TARGET;

	ntp_json__start_object(j);
	ntp_json__bool_field(j, "baseline", baseline);
	ntp_json__int_field(j, "file", file);
	ntp_report__json_file_id(j, h);
	ntp_json__int_field(j, "sample_one_in", h->sample_one_in);
	ntp_json__int_field(j, "hash_version", h->hash_version);
	ntp_json__string_field(j, "recorded_by", h->recorded_by);
	/* the host's commands, or a target recording alone's */
	ntp_json__uint_field(j, "commands_in_file", host ? h->rows : rf->t_rows);
	ntp_json__uint_field(j, "commands_lost", host ? h->lost_ringbuf + h->lost_map :
			     rf->t_lost_ringbuf + rf->t_lost_map);
	/* a file of both sides: its target's too */
	int_or_null(j, "target_commands_in_file", host && target, (int64_t)rf->t_rows);
	int_or_null(j, "target_commands_lost", host && target,
		    (int64_t)(rf->t_lost_ringbuf + rf->t_lost_map));
	ntp_report__json_hooks(j, h);
	ntp_json__end_object(j);
}

static void strings(struct ntp_json *j, const char *name, char *const *s, size_t n)
{
	ntp_json__name(j, name);
	ntp_json__start_array(j);
	for (size_t i = 0; i < n; i++)
		ntp_json__string(j, s[i]);
	ntp_json__end_array(j);
}


static void value_object(struct ntp_json *j, const struct ntp_compare_stage *st,
			 enum ntp_stat stat, const struct ntp_compare_opts *o)
{
	struct ntp_compare_value v;
	char formula[512];

	ntp_compare__value(st, stat, &v);
	ntp_json__name(j, ntp_stats[stat].key);
	ntp_json__start_object(j);
	int_or_null(j, "baseline_ns", v.has[NTP_CMP_BASE], v.v[NTP_CMP_BASE]);
	int_or_null(j, "new_ns", v.has[NTP_CMP_NEW], v.v[NTP_CMP_NEW]);
	int_or_null(j, "delta_ns", v.has_delta, v.delta);
	ntp_json__double_field(j, "ratio", v.ratio);      /* NaN writes null */
	/* the delta's 95% interval and the verdict: null when there is none, or too few */
	ntp_json__double_field(j, "ci95_low_ns", v.has_ci ? v.ci_lo : NAN);
	ntp_json__double_field(j, "ci95_high_ns", v.has_ci ? v.ci_hi : NAN);
	ntp_json__name(j, "significant");
	if (v.tested)
		ntp_json__bool(j, v.significant);
	else
		ntp_json__null(j);
	/* the verdict, its test, and why a row was not tested */
	ntp_json__string_field(j, "verdict", ntp_compare__verdict_key(v.verdict));
	ntp_json__double_field(j, "p_value", v.tested ? v.p : NAN);
	ntp_json__name(j, "needs_n");
	if (v.verdict == NTP_CMP_NOT_TESTED)
		ntp_json__uint(j, v.need_n);
	else
		ntp_json__null(j);
	if (o->formula) {
		ntp_compare__formula(st, stat, formula, sizeof(formula));
		ntp_json__string_field(j, "formula", formula);
	}
	ntp_json__end_object(j);
}

/* a --threshold rule's members: stage, stat, pct */
static void rule_members(struct ntp_json *j, const struct ntp_compare_threshold *t)
{
	ntp_json__string_field(j, "stage", t->stage);
	ntp_json__string_field(j, "stat", ntp_stats[t->stat].key);
	ntp_json__double_field(j, "pct", t->pct);
}

static void rule_object(struct ntp_json *j, const struct ntp_compare_threshold *t)
{
	ntp_json__start_object(j);
	rule_members(j, t);
	ntp_json__end_object(j);
}

static void group_object(struct ntp_json *j, const struct ntp_compare *c,
			 const struct ntp_compare_group *g, const struct ntp_compare_opts *o)
{
	const struct ntp_report_group *b = g->g[NTP_CMP_BASE], *n = g->g[NTP_CMP_NEW];
	bool target = c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET;

	ntp_json__start_object(j);
	ntp_json__string_field(j, "io_type", g->io_type);
	ntp_json__int_field(j, "bytes", g->bytes);
	/* as report's groups: a target alone's are of its backend devices */
	ntp_json__string_field(j, "namespace", target ? NULL : g->ns);
	ntp_json__string_field(j, "device", target ? g->ns : NULL);
	ntp_json__int_field(j, "file", g->file);
	ntp_json__string_field(j, "present", ntp_compare__present_str(ntp_compare__present(b, n)));
	int_or_null(j, "n_baseline", b, b ? (int64_t)b->e2e.n : 0);
	int_or_null(j, "n_new", n, n ? (int64_t)n->e2e.n : 0);
	/* left out of the statistics, as in report (ntprof-report(1), Impossible commands) */
	int_or_null(j, "impossible_baseline", b, b ? (int64_t)ntp_report__impossible(b) : 0);
	int_or_null(j, "impossible_new", n, n ? (int64_t)ntp_report__impossible(n) : 0);
	ntp_json__double_field(j, "e2e_mean_growth_pct", g->e2e_growth_pct);
	ntp_json__bool_field(j, "over_threshold", g->over_threshold);
	ntp_json__name(j, "tripped");
	if (g->tripped) {
		ntp_json__start_object(j);
		rule_members(j, g->tripped);
		ntp_json__double_field(j, "growth_pct", g->tripped_growth_pct);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	/* the first rule its statistic could not test in the group (too few commands) */
	ntp_json__name(j, "not_tested");
	if (g->untested && !g->tripped) {
		ntp_json__start_object(j);
		rule_members(j, g->untested);
		ntp_json__uint_field(j, "needs_n", g->untested_need);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}

	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (size_t k = 0; k < g->nstages; k++) {
		const struct ntp_compare_stage *st = &g->stage[k];

		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", st->json);
		ntp_json__string_field(j, "present",
				       ntp_compare__present_str(ntp_compare__present(
					       st->s[NTP_CMP_BASE], st->s[NTP_CMP_NEW])));
		for (int s = 0; s < NTP_NSTATS; s++)
			if (c->stats & (1u << s))
				value_object(j, st, s, o);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__end_object(j);
}

/* "changed_most": the stage whose mean moved the most, or null */
static void most_member(struct ntp_json *j, const struct ntp_compare *c)
{
	const struct ntp_compare_most *m = &c->most;
	bool target = c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET;

	ntp_json__name(j, "changed_most");
	if (!m->g) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "io_type", m->g->io_type);
	ntp_json__int_field(j, "bytes", m->g->bytes);
	ntp_json__int_field(j, "file", m->g->file);
	ntp_json__string_field(j, "namespace", target ? NULL : m->g->ns);
	ntp_json__string_field(j, "device", target ? m->g->ns : NULL);
	ntp_json__string_field(j, "stage", m->stage->json);
	ntp_json__int_field(j, "baseline_mean_ns", m->mean.v[NTP_CMP_BASE]);
	ntp_json__int_field(j, "new_mean_ns", m->mean.v[NTP_CMP_NEW]);
	ntp_json__int_field(j, "delta_ns", m->mean.delta);
	ntp_json__double_field(j, "ratio", m->mean.ratio);
	ntp_json__name(j, "significant");
	if (m->mean.tested)
		ntp_json__bool(j, m->mean.significant);
	else
		ntp_json__null(j);
	ntp_json__string_field(j, "verdict", ntp_compare__verdict_key(m->mean.verdict));
	ntp_json__end_object(j);
}

/*
 * "diagnosis": each run's as report's, and per group of the comparison
 * the cause each run names and whether it changed
 */
static void diagnosis_member(struct ntp_json *j, const struct ntp_compare *c)
{
	bool target = c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET;
	char text[512];

	ntp_json__name(j, "diagnosis");
	ntp_json__start_object(j);
	ntp_json__name(j, "baseline");
	ntp_diag__json(j, &c->diag[NTP_CMP_BASE]);
	ntp_json__name(j, "new");
	ntp_diag__json(j, &c->diag[NTP_CMP_NEW]);
	ntp_json__name(j, "groups");
	ntp_json__start_array(j);
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		const struct ntp_diag_line *l[NTP_CMP_RUNS];
		struct ntp_diag_line made[NTP_CMP_RUNS];

		for (int r = 0; r < NTP_CMP_RUNS; r++)
			l[r] = ntp_diag__line_of(&c->diag[r], g->g[r], &made[r]);
		ntp_diag__change_text(l[NTP_CMP_BASE], l[NTP_CMP_NEW], text, sizeof(text), 0);
		ntp_json__start_object(j);
		ntp_json__string_field(j, "io_type", g->io_type);
		ntp_json__int_field(j, "bytes", g->bytes);
		ntp_json__int_field(j, "file", g->file);
		ntp_json__string_field(j, "namespace", target ? NULL : g->ns);
		ntp_json__string_field(j, "device", target ? g->ns : NULL);
		ntp_json__string_field(j, "baseline_cause", l[NTP_CMP_BASE] ?
				       ntp_diag_rules[l[NTP_CMP_BASE]->v.cause].key : NULL);
		ntp_json__string_field(j, "new_cause", l[NTP_CMP_NEW] ?
				       ntp_diag_rules[l[NTP_CMP_NEW]->v.cause].key : NULL);
		ntp_json__bool_field(j, "changed", !l[NTP_CMP_BASE] || !l[NTP_CMP_NEW] ||
				     l[NTP_CMP_BASE]->v.cause != l[NTP_CMP_NEW]->v.cause);
		ntp_json__string_field(j, "text", text);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__end_object(j);
}

int ntp_compare__print_json(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o)
{
	const struct ntp_view *v = ntp_report__view(&c->run[NTP_CMP_BASE]);
	struct ntp_json *j = ntp_json__new(f, o->pretty);

	if (!j)
		return NTP_EXIT_FAILURE;
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "format_version", NTP_REPORT_FORMAT_VERSION);
	ntp_json__int_field(j, "schema_version", NTP_DB_SCHEMA_VERSION);
	ntp_json__string_field(j, "command", "compare");
	ntp_report__json_kind(j, &c->run[NTP_CMP_BASE]);
	ntp_report__json_percentiles(j);

	/* the baseline's files, then the new run's; "file" counts within a run */
	ntp_json__name(j, "files");
	ntp_json__start_array(j);
	for (int r = 0; r < NTP_CMP_RUNS; r++)
		for (int i = 0; i < c->run[r].nfiles; i++)
			file_object(j, &c->run[r].files[i], r == NTP_CMP_BASE, i + 1);
	ntp_json__end_array(j);
	ntp_read_filter__json(j, c->run[NTP_CMP_BASE].filter);
	ntp_report_sort__json(j, &o->sort);
	strings(j, "differences", c->differences, c->ndifferences);
	strings(j, "warnings", c->warnings, c->nwarnings);

	ntp_json__name(j, "statistics");
	ntp_json__start_array(j);
	for (int s = 0; s < NTP_NSTATS; s++)
		if (c->stats & (1u << s))
			ntp_json__string(j, ntp_stats[s].key);
	ntp_json__end_array(j);

	ntp_report__json_app_stage_notes(j, v->stages, v->nstages,
					 c->run[NTP_CMP_BASE].kind == NTP_REPORT_TARGET ?
					 ntp_report__residence(&c->run[NTP_CMP_BASE]) : NULL,
					 c->run[NTP_CMP_BASE].app || c->run[NTP_CMP_NEW].app);
	most_member(j, c);
	diagnosis_member(j, c);
	ntp_json__name(j, "by");
	ntp_compare_by__json(j, &c->by);

	ntp_json__name(j, "groups");
	ntp_json__start_array(j);
	for (size_t i = 0; i < c->ngroups; i++)
		group_object(j, c, &c->groups[i], o);
	ntp_json__end_array(j);

	ntp_json__uint_field(j, "min_n", c->min_n);
	ntp_json__double_field(j, "min_change_pct", c->floor_pct);
	ntp_json__double_field(j, "min_change_ns", c->floor_ns);
	ntp_json__uint_field(j, "rows_tested", c->ntests);
	ntp_json__name(j, "threshold");
	if (o->nthresholds) {
		ntp_json__start_object(j);
		ntp_json__name(j, "rules");
		ntp_json__start_array(j);
		for (int t = 0; t < o->nthresholds; t++)
			rule_object(j, &o->threshold[t]);
		ntp_json__end_array(j);
		ntp_json__bool_field(j, "exceeded", c->over_threshold > 0);
		ntp_json__uint_field(j, "groups_over", c->over_threshold);
		ntp_json__uint_field(j, "groups_not_tested", c->untested_threshold);
		ntp_json__string_field(j, "verdict", c->over_threshold ? "exceeded" :
				       c->untested_threshold ? "not_tested" : "ok");
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__end_object(j);
	ntp_json__delete(j);
	return NTP_EXIT_OK;
}
