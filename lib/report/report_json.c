// SPDX-License-Identifier: GPL-2.0
/*
 * report: the JSON form of every report, the same model as the text
 * (model.h), in one shape whatever the recordings: the members that
 * do not apply are null or empty, never missing (ntprof-report(1), JSON,
 * format_version).  Keys are snake_case, times integer nanoseconds with an
 * _ns suffix; means are rounded to whole nanoseconds exactly as the text
 * shows them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/fmt/json.h"
#include "lib/cli/version.h"
#include "lib/model/model_filter.h"
#include "lib/report/report_json.h"
#include "lib/model/model_header.h"
#include "lib/model/model_view.h"
#include "lib/report/report_json_group.h"
#include "lib/model/model.h"
#include "lib/report/report_filter_text.h"
#include "lib/model/model_sort.h"

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

/* which file: the first members of every file's object, report's and compare's */
void ntp_report__json_file_id(struct ntp_json *j, const struct ntp_report_header *h)
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
}

void ntp_report__json_hooks(struct ntp_json *j, const struct ntp_report_header *h)
{
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
}

/* the commands one side of a file saw, as the object name */
static void counts_member(struct ntp_json *j, const char *name, uint64_t seen,
			  uint64_t sampled, uint64_t lost_ringbuf, uint64_t lost_map,
			  uint64_t rows)
{
	ntp_json__name(j, name);
	ntp_json__start_object(j);
	ntp_json__uint_field(j, "seen", seen);
	ntp_json__uint_field(j, "sampled", sampled);
	ntp_json__uint_field(j, "lost", lost_ringbuf + lost_map);
	ntp_json__uint_field(j, "lost_ringbuf", lost_ringbuf);
	ntp_json__uint_field(j, "lost_map", lost_map);
	ntp_json__uint_field(j, "in_file", rows);
	ntp_json__end_object(j);
}

void ntp_report__json_app_stage_notes(struct ntp_json *j, const struct ntp_view_stage *stages,
				      int nstages, const char *residence, bool app)
{
	ntp_json__name(j, "stage_notes");
	ntp_json__start_object(j);
	for (int s = 0; s < nstages; s++)
		if (stages[s].what)
			ntp_json__string_field(j, stages[s].json, stages[s].what);
	if (residence)
		ntp_json__string_field(j, "residence", residence);
	for (int s = 0; app && s < NTP_APP_STAGES; s++)
		ntp_json__string_field(j, ntp_report__app_stages[s].json, ntp_report__app_stages[s].what);
	if (app)
		ntp_json__string_field(j, ntp_report__app_total.json, ntp_report__app_total.what);
	ntp_json__end_object(j);
}

/* "own_cost": ntprof's own cost (ntprof-report(1)), null when the file has none */
static void own_cost_member(struct ntp_json *j, const struct ntp_report_header *h)
{
	struct ntp_report_cost c;

	ntp_json__name(j, "own_cost");
	if (!ntp_report__cost(h, &c)) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__int_field(j, "bpf_runs", h->bpf_runs);
	ntp_json__int_field(j, "bpf_run_ns", h->bpf_run_ns);
	ntp_json__int_field(j, "commands", h->bpf_commands);
	ntp_json__int_field(j, "window_ns", h->bpf_window_ns);
	ntp_json__double_field(j, "ns_per_command", c.ns_per_command);
	ntp_json__double_field(j, "commands_per_s", c.commands_per_s);
	ntp_json__double_field(j, "cpu_percent", c.cpu_percent);
	ntp_json__end_object(j);
}

/* the members of one file's object; the caller opens and closes it */
static void file_members(struct ntp_json *j, const struct ntp_report_header *h)
{
	ntp_report__json_file_id(j, h);
	ntp_json__string_field(j, "duration_source", h->duration_source);
	ntp_json__int_field(j, "sample_one_in", h->sample_one_in);
	filters_member(j, h);
	ntp_json__int_field(j, "hash_version", h->hash_version);
	ntp_json__string_field(j, "recorded_by", h->recorded_by);
	ntp_report__json_hooks(j, h);
	counts_member(j, "commands", h->seen, h->sampled, h->lost_ringbuf, h->lost_map, h->rows);
	own_cost_member(j, h);
}

static void files_array(struct ntp_json *j, const struct ntp_report *r)
{
	ntp_json__name(j, "files");
	ntp_json__start_array(j);
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_report_file *f = &r->files[i];

		ntp_json__start_object(j);
		ntp_json__int_field(j, "file", i + 1);
		file_members(j, &f->hdr);
		ntp_json__name(j, "sides");
		ntp_json__start_array(j);
		if (f->sides & NTP_SIDE_HOST)
			ntp_json__string(j, "host");
		if (f->sides & NTP_SIDE_TARGET)
			ntp_json__string(j, "target");
		ntp_json__end_array(j);
		/* "commands" is the host side's, "target_commands" the target's or null */
		if (f->sides & NTP_SIDE_TARGET) {
			counts_member(j, "target_commands", f->t_seen, f->t_sampled,
				      f->t_lost_ringbuf, f->t_lost_map, f->t_rows);
		} else {
			ntp_json__name(j, "target_commands");
			ntp_json__null(j);
		}
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}

static void clock_pairs_array(struct ntp_json *j, const struct ntp_report *r)
{
	ntp_json__name(j, "clock_pairs");
	ntp_json__start_array(j);
	for (int i = 0; i < r->npairs; i++) {
		const struct ntp_join_pair *p = &r->pairs[i];

		ntp_json__start_object(j);
		ntp_json__int_field(j, "host_file", p->host_file + 1);
		ntp_json__int_field(j, "target_file", p->target_file + 1);
		/* one clock: offset and drift are known to be 0, not estimated */
		ntp_json__bool_field(j, "estimated",
				     p->estimated && p->clock == NTP_JOIN_CLOCK_TWO);
		ntp_json__bool_field(j, "same_clock", p->clock != NTP_JOIN_CLOCK_TWO);
		ntp_json__string_field(j, "clock", p->clock != NTP_JOIN_CLOCK_TWO ?
				       ntp_join__clock_name(p->clock) :
				       p->estimated ? "estimated" : "not estimated");
		ntp_json__name(j, "offset_ns");
		if (p->estimated)
			ntp_json__int(j, ntp_report__round_ns(p->offset_ns));
		else
			ntp_json__null(j);
		ntp_json__name(j, "drift_ppm");
		if (p->estimated)
			ntp_json__double(j, p->drift * 1e6);
		else
			ntp_json__null(j);
		ntp_json__int_field(j, "t0_ns", p->t0_ns);
		ntp_json__double_field(j, "tolerance_ns", p->tol_ns);
		ntp_json__int_field(j, "candidates", p->candidates);
		ntp_json__int_field(j, "support", p->support);
		ntp_json__int_field(j, "matched", p->matched);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}

/* "join": what the join matched; null when nothing was joined */
static void join_member(struct ntp_json *j, const struct ntp_report *r)
{
	const struct ntp_join_counts *c = &r->counts;

	ntp_json__name(j, "join");
	if (r->kind != NTP_REPORT_JOINED) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__int_field(j, "host_commands", c->host_rows);
	ntp_json__int_field(j, "target_commands", c->target_rows);
	ntp_json__int_field(j, "matched", c->matched);
	ntp_json__double_field(j, "matched_pct", ntp_report__matched_pct(r));
	ntp_json__int_field(j, "unmatched_host", c->unmatched_host);
	ntp_json__int_field(j, "unmatched_target", c->unmatched_target);
	ntp_json__int_field(j, "rejected", c->rejected);
	ntp_json__end_object(j);
}

static void warnings_array(struct ntp_json *j, const struct ntp_report *r)
{
	double pct = ntp_report__matched_pct(r);

	ntp_json__name(j, "warnings");
	ntp_json__start_array(j);
	if (r->kind == NTP_REPORT_JOINED && (!isfinite(pct) || pct < NTP_REPORT_WARN_PCT))
		ntp_json__string(j, "fewer than 99% of the host's sampled commands were joined: "
				 "the stages describe the joined ones only");
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_report_file *f = &r->files[i];

		if (f->hdr.lost_ringbuf + f->hdr.lost_map + f->t_lost_ringbuf + f->t_lost_map)
			ntp_json__string(j, "sampled commands were lost while recording a file; "
					 "the statistics do not include them");
	}
	ntp_json__end_array(j);
}

static void gaps_array(struct ntp_json *j, const struct ntp_report *r)
{
	ntp_json__name(j, "stage_gaps");
	ntp_json__start_array(j);
	for (size_t i = 0; i < r->ngaps; i++) {
		const struct ntp_stage_gap *g = &r->gaps[i];

		ntp_json__start_object(j);
		ntp_json__int_field(j, "file", g->file);
		ntp_json__string_field(j, "point", g->point);
		ntp_json__string_field(j, "hook", g->hook);
		ntp_json__string_field(j, "stages", g->stages);
		ntp_json__string_field(j, "what", g->what);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}

/* "host", "target", "joined" */
static const char *kind_name(enum ntp_report_kind kind)
{
	switch (kind) {
	case NTP_REPORT_JOINED:
		return "joined";
	case NTP_REPORT_TARGET:
		return "target";
	default:
		return "host";
	}
}

/* what a JSON document is of, the first members of report's and compare's */
void ntp_report__json_kind(struct ntp_json *j, const struct ntp_report *r)
{
	const struct ntp_view *v = ntp_report__view(r);

	ntp_json__string_field(j, "kind", kind_name(r->kind));
	ntp_json__string_field(j, "stage_view", v->name);
	/* what a group's "e2e" measures: a target alone sees its residence only */
	ntp_json__string_field(j, "e2e_is", ntp_report__total_label(r));
}

int ntp_report__print_json(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	const struct ntp_view *v = ntp_report__view(r);
	struct ntp_json *j = ntp_json__new(f, o->pretty);

	if (!j)
		return NTP_EXIT_FAILURE;
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "format_version", NTP_REPORT_FORMAT_VERSION);
	ntp_json__int_field(j, "schema_version", r->nfiles ? r->files[0].hdr.schema_version : 0);
	ntp_json__string_field(j, "command", "report");
	ntp_report__json_kind(j, r);
	ntp_report__json_percentiles(j);
	ntp_json__string_field(j, "note", r->kind == NTP_REPORT_TARGET ? NTP_REPORT_TARGET_NOTE :
			       NULL);
	files_array(j, r);
	ntp_read_filter__json(j, r->filter);
	ntp_report_sort__json(j, &o->sort);
	clock_pairs_array(j, r);
	join_member(j, r);
	warnings_array(j, r);
	ntp_report__json_app_stage_notes(j, v->stages, v->nstages,
					 r->kind == NTP_REPORT_TARGET ? ntp_report__residence(r) : NULL,
					 r->app);
	gaps_array(j, r);

	ntp_json__name(j, "groups");
	ntp_json__start_array(j);
	for (size_t i = 0; i < r->ngroups; i++)
		ntp_report__json_group(j, &r->groups[i], v->stages, v->nstages,
				       r->kind == NTP_REPORT_TARGET, o->histogram ? &o->hist : NULL,
				       r->app);
	ntp_json__end_array(j);
	ntp_json__uint_field(j, "hidden_groups", r->nhidden);
	/* the buckets an octave of every "histogram", null without --histogram */
	ntp_json__name(j, "histogram_buckets_per_octave");
	if (o->histogram)
		ntp_json__int(j, 1 << ntp_hist_form__bits(&o->hist));
	else
		ntp_json__null(j);
	ntp_json__end_object(j);
	ntp_json__delete(j);
	return NTP_EXIT_OK;
}
