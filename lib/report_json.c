// SPDX-License-Identifier: GPL-2.0
/*
 * report: the JSON form, the same model as the text (report_priv.h).  Keys are
 * snake_case, times integer nanoseconds with an _ns suffix; means are rounded
 * to whole nanoseconds exactly as the text shows them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/exit.h"
#include "lib/json.h"
#include "lib/report_priv.h"
#include "lib/version.h"


void ntp_report__json_summary(struct ntp_json *j, const struct ntp_summary *s)
{
	ntp_json__int_field(j, "min_ns", s->min);
	ntp_json__int_field(j, "mean_ns", ntp_report__round_ns(s->mean));
	ntp_json__int_field(j, "p50_ns", s->p50);
	ntp_json__int_field(j, "p90_ns", s->p90);
	ntp_json__int_field(j, "p99_ns", s->p99);
	ntp_json__int_field(j, "p99_9_ns", s->p999);
	ntp_json__int_field(j, "max_ns", s->max);
}

/* record's "4096,131072": byte counts (at most 10 digits), one comma between */
static int size_list_ok(const char *p)
{
	for (;;) {
		size_t n = strspn(p, "0123456789");

		if (!n || n > 10)
			return 0;
		p += n;
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

/* "4096,131072" as [4096, 131072]; a list not of record's form as the string it is */
static void sizes_array(struct ntp_json *j, const char *list)
{
	const char *p = list;
	char *end;

	if (!size_list_ok(list)) {
		ntp_json__string(j, list);
		return;
	}
	ntp_json__start_array(j);
	for (;;) {
		ntp_json__uint(j, strtoull(p, &end, 10));
		if (!*end)
			break;
		p = end + 1;
	}
	ntp_json__end_array(j);
}

/*
 * "filters": null without filters, else the three of record (null when not
 * given), the sizes as numbers of bytes.
 */
static void filters_member(struct ntp_json *j, const struct ntp_report_header *h)
{
	ntp_json__name(j, "filters");
	if (!h->filter_session && !h->filter_io_type && !h->filter_sizes) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "session", h->filter_session);
	ntp_json__string_field(j, "io_type", h->filter_io_type);
	ntp_json__name(j, "sizes");
	if (h->filter_sizes)
		sizes_array(j, h->filter_sizes);
	else
		ntp_json__null(j);
	ntp_json__end_object(j);
}

/* the members of one file's object; the caller opens and closes it */
void ntp_report__json_file(struct ntp_json *j, const struct ntp_report_header *h)
{
	ntp_json__string_field(j, "path", h->path);
	ntp_json__int_field(j, "schema_version", h->schema_version);
	ntp_json__string_field(j, "role", h->role);
	ntp_json__string_field(j, "transport", h->transport);
	ntp_json__string_field(j, "kernel_release", h->kernel_release);
	ntp_json__string_field(j, "hostname", h->hostname);
	ntp_json__string_field(j, "start_time", h->start_time);
	ntp_json__name(j, "duration_ns");
	if (h->duration_ns > 0)
		ntp_json__int(j, h->duration_ns);
	else
		ntp_json__null(j);
	ntp_json__string_field(j, "duration_source", h->duration_source);
	ntp_json__int_field(j, "sample_one_in", h->sample_one_in);
	filters_member(j, h);
	ntp_json__int_field(j, "hash_version", h->hash_version);
	ntp_json__string_field(j, "recorded_by", h->recorded_by);

	ntp_json__name(j, "hooks");
	ntp_json__start_array(j);
	for (size_t i = 0; i < h->nhooks; i++) {
		const struct ntp_report_hook *k = &h->hooks[i];

		ntp_json__start_object(j);
		ntp_json__string_field(j, "side", k->side);
		ntp_json__string_field(j, "point", k->point);
		ntp_json__string_field(j, "hook", k->hook);
		ntp_json__string_field(j, "flavour", k->flavour);
		ntp_json__string_field(j, "reason", k->reason);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);

	ntp_json__name(j, "commands");
	ntp_json__start_object(j);
	ntp_json__uint_field(j, "seen", h->seen);
	ntp_json__uint_field(j, "sampled", h->sampled);
	ntp_json__uint_field(j, "lost", h->lost_ringbuf + h->lost_map);
	ntp_json__uint_field(j, "lost_ringbuf", h->lost_ringbuf);
	ntp_json__uint_field(j, "lost_map", h->lost_map);
	ntp_json__uint_field(j, "in_file", h->rows);
	ntp_json__end_object(j);
}

static void group_object(struct ntp_json *j, const struct ntp_report_group *g)
{
	double un = ntp_report__unattributed_ns(g);
	int64_t stage_sum = 0;

	ntp_json__start_object(j);
	ntp_json__string_field(j, "io_type", g->io_type);
	ntp_json__int_field(j, "bytes", g->bytes);
	ntp_json__string_field(j, "namespace", g->ns);
	ntp_json__uint_field(j, "n", g->e2e.n);
	ntp_json__name(j, "est_cmds_per_s");
	if (g->est_rate >= 0)
		ntp_json__double(j, g->est_rate);
	else
		ntp_json__null(j);

	ntp_json__name(j, "e2e");
	ntp_json__start_object(j);
	ntp_report__json_summary(j, &g->e2e);
	ntp_json__end_object(j);

	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (int s = 0; s < NTP_STAGE_MAX; s++) {
		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", ntp_stage_names[s].json);
		ntp_report__json_summary(j, &g->stage[s]);
		ntp_json__double_field(j, "share_pct", ntp_report__share_pct(g, g->stage[s].mean));
		ntp_json__end_object(j);
		stage_sum += g->sum_stage[s];
	}
	ntp_json__end_array(j);
	ntp_json__int_field(j, "unattributed_mean_ns", ntp_report__round_ns(un));
	ntp_json__double_field(j, "unattributed_pct", ntp_report__share_pct(g, un));

	ntp_json__name(j, "sum_check");
	ntp_json__start_object(j);
	ntp_json__bool_field(j, "ok", stage_sum == g->sum_e2e && !g->mismatched);
	ntp_json__int_field(j, "stage_sum_ns", stage_sum);
	ntp_json__int_field(j, "e2e_sum_ns", g->sum_e2e);
	ntp_json__uint_field(j, "mismatched_commands", g->mismatched);
	ntp_json__end_object(j);
	ntp_json__end_object(j);
}

int ntp_report__print_json(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	struct ntp_json *j = ntp_json__new(f, o->pretty);
	uint64_t lost = r->hdr.lost_ringbuf + r->hdr.lost_map;
	size_t hidden = 0;

	if (!j)
		return NTP_EXIT_FAILURE;
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "schema_version", r->hdr.schema_version);
	ntp_json__string_field(j, "command", "report");

	ntp_json__name(j, "files");
	ntp_json__start_array(j);
	ntp_json__start_object(j);
	ntp_report__json_file(j, &r->hdr);
	ntp_json__end_object(j);
	ntp_json__end_array(j);

	ntp_json__name(j, "warnings");
	ntp_json__start_array(j);
	if (lost)
		ntp_json__string(j, "sampled commands were lost while recording; "
				 "the statistics do not include them");
	ntp_json__end_array(j);

	ntp_json__name(j, "stage_notes");
	ntp_json__start_object(j);
	ntp_json__string_field(j, "network_star", "the network and the target together "
			       "(a host-only recording cannot tell them apart)");
	ntp_json__end_object(j);

	ntp_json__name(j, "groups");
	ntp_json__start_array(j);
	for (size_t i = 0; i < r->ngroups; i++) {
		if (ntp_report__group_shown(r, &r->groups[i], o))
			group_object(j, &r->groups[i]);
		else
			hidden++;
	}
	ntp_json__end_array(j);
	ntp_json__uint_field(j, "hidden_groups", hidden);
	ntp_json__end_object(j);
	ntp_json__delete(j);
	return NTP_EXIT_OK;
}
