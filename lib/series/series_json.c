// SPDX-License-Identifier: GPL-2.0
/*
 * series: the JSON document, written as the points come (the one JSON
 * writer, lib/fmt/json.c): the members that say what it is of, "rows" (one
 * object per interval and group, with each stage's whole summary, as
 * report's groups have them), then the members known only at the end: each
 * file's interval origin, the join's counts, the totals.
 */
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/fmt/json.h"
#include "lib/cli/version.h"
#include "lib/report/report_filter_text.h"
#include "lib/report/report_json.h"
#include "lib/report/report_json_group.h"
#include "lib/series/series_out.h"

static int json_begin(void *ctx, const struct ntp_series *s)
{
	struct ntp_series_json *t = ctx;
	const struct ntp_view *v = ntp_report__view(&s->r);
	struct ntp_json *j = ntp_json__new(t->f, t->pretty);

	if (!j)
		return NTP_EXIT_FAILURE;
	t->j = j;
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "format_version", NTP_SERIES_FORMAT_VERSION);
	ntp_json__int_field(j, "schema_version", s->r.files[0].hdr.schema_version);
	ntp_json__string_field(j, "command", "series");
	ntp_report__json_kind(j, &s->r);
	ntp_report__json_percentiles(j);
	ntp_json__int_field(j, "interval_ns", s->interval_ns);
	ntp_json__string_field(j, "clock", ntp_series__clock(s));
	ntp_read_filter__json(j, s->filter);
	ntp_json__string_field(j, "by", ntp_series__by_word(s));
	/* --top: null, or what it kept and left out */
	ntp_json__name(j, "top");
	if (s->top) {
		ntp_json__start_object(j);
		ntp_json__uint_field(j, "n", s->top);
		ntp_json__uint_field(j, "groups", s->groups);
		ntp_json__uint_field(j, "groups_hidden", s->groups_hidden);
		ntp_json__uint_field(j, "commands_hidden", s->commands_hidden);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (int k = 0; k < v->nstages; k++)
		ntp_json__string(j, v->stages[k].json);
	ntp_json__end_array(j);
	ntp_json__name(j, "rows");
	ntp_json__start_array(j);
	return 0;
}

static int json_point(void *ctx, const struct ntp_series *s, const struct ntp_series_point *p)
{
	struct ntp_json *j = ((struct ntp_series_json *)ctx)->j;
	const struct ntp_report_group *g = p->g;
	const struct ntp_view *v = ntp_report__view(&s->r);
	bool target = s->r.kind == NTP_REPORT_TARGET;

	ntp_json__start_object(j);
	ntp_json__int_field(j, "file", g->host_file);
	ntp_json__int_field(j, "interval", p->interval);
	ntp_json__int_field(j, "start_ns", p->start_ns);
	ntp_json__int_field(j, "covered_ns", p->covered_ns);
	if (s->by == NTP_DIAG_BY_NONE) {
		ntp_report__json_group_keys(j, g, target);
	} else {
		/* --by: the queue's or the process's name in place of type, size, namespace */
		ntp_json__string_field(j, ntp_series__by_word(s), g->ns);
		ntp_report__json_group_counts(j, g);
	}
	ntp_json__name(j, "e2e");
	ntp_json__start_object(j);
	ntp_report__json_summary(j, &g->e2e);
	ntp_json__end_object(j);
	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (int k = 0; k < v->nstages; k++) {
		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", v->stages[k].json);
		ntp_report__json_summary(j, &g->stage[k]);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__end_object(j);
	return 0;
}

static int json_end(void *ctx, const struct ntp_series *s)
{
	struct ntp_json *j = ((struct ntp_series_json *)ctx)->j;
	const struct ntp_join_counts *c = &s->r.counts;

	ntp_json__end_array(j);
	ntp_json__name(j, "files");
	ntp_json__start_array(j);
	for (int i = 0; i < s->r.nfiles; i++) {
		ntp_json__start_object(j);
		ntp_json__int_field(j, "file", i + 1);
		ntp_report__json_file_id(j, &s->r.files[i].hdr);
		ntp_json__int_field(j, "sample_one_in", s->r.files[i].hdr.sample_one_in);
		/* null: a file whose commands set no interval (a target file of a join) */
		ntp_json__name(j, "origin_ns");
		if (s->origin_known[i])
			ntp_json__int(j, s->origin_ns[i]);
		else
			ntp_json__null(j);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__name(j, "join");
	if (s->r.kind == NTP_REPORT_JOINED) {
		ntp_json__start_object(j);
		ntp_json__int_field(j, "host_commands", c->host_rows);
		ntp_json__int_field(j, "target_commands", c->target_rows);
		ntp_json__int_field(j, "matched", c->matched);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__uint_field(j, "commands", s->commands);
	ntp_json__uint_field(j, "row_count", s->points);
	ntp_json__end_object(j);
	return 0;
}

struct ntp_series_out ntp_series__json_out(struct ntp_series_json *t, FILE *f, bool pretty)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->pretty = pretty;
	return (struct ntp_series_out){ json_begin, json_point, json_end, t };
}

void ntp_series__json_free(struct ntp_series_json *t)
{
	if (t->j)
		ntp_json__delete(t->j);
	t->j = NULL;
}
