// SPDX-License-Identifier: GPL-2.0
/*
 * report: the JSON form of a report on joined recordings, of the detailed
 * stages of one host recording, or of one target recording alone: the same
 * model as the text (report_jtext.c), the same keys as the report on one
 * recording where they mean the same.
 */
#include <math.h>

#include "lib/cli/exit.h"
#include "lib/cli/json.h"
#include "lib/cli/version.h"
#include "lib/report/report_jjson.h"
#include "lib/report/report_json.h"
#include "lib/report/report_json_group.h"
#include "lib/report/report_model.h"
#include "lib/report/report_view.h"

static void files_array(struct ntp_json *j, const struct ntp_jreport *r)
{
	ntp_json__name(j, "files");
	ntp_json__start_array(j);
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_jfile *f = &r->files[i];

		ntp_json__start_object(j);
		ntp_json__int_field(j, "file", i + 1);
		ntp_report__json_file(j, &f->hdr);
		ntp_json__name(j, "sides");
		ntp_json__start_array(j);
		if (f->sides & NTP_JOIN_HOST)
			ntp_json__string(j, "host");
		if (f->sides & NTP_JOIN_TARGET)
			ntp_json__string(j, "target");
		ntp_json__end_array(j);
		if (f->sides & NTP_JOIN_TARGET)
			ntp_report__json_counts(j, "target_commands", f->t_seen, f->t_sampled,
						f->t_lost_ringbuf, f->t_lost_map, f->t_rows);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}

static void join_members(struct ntp_json *j, const struct ntp_jreport *r)
{
	const struct ntp_join_counts *c = &r->counts;

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

	ntp_json__name(j, "join");
	ntp_json__start_object(j);
	ntp_json__int_field(j, "host_commands", c->host_rows);
	ntp_json__int_field(j, "target_commands", c->target_rows);
	ntp_json__int_field(j, "matched", c->matched);
	ntp_json__double_field(j, "matched_pct", ntp_jreport__matched_pct(r));
	ntp_json__int_field(j, "unmatched_host", c->unmatched_host);
	ntp_json__int_field(j, "unmatched_target", c->unmatched_target);
	ntp_json__int_field(j, "rejected", c->rejected);
	ntp_json__end_object(j);
}

static void warnings_array(struct ntp_json *j, const struct ntp_jreport *r)
{
	double pct = ntp_jreport__matched_pct(r);

	ntp_json__name(j, "warnings");
	ntp_json__start_array(j);
	if (r->joined && (!isfinite(pct) || pct < NTP_JREPORT_WARN_PCT))
		ntp_json__string(j, "fewer than 99% of the host's sampled commands were joined: "
				 "the stages describe the joined ones only");
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_jfile *f = &r->files[i];

		if (f->hdr.lost_ringbuf + f->hdr.lost_map + f->t_lost_ringbuf + f->t_lost_map)
			ntp_json__string(j, "sampled commands were lost while recording a file; "
					 "the statistics do not include them");
	}
	ntp_json__end_array(j);
}

static void notes_members(struct ntp_json *j, const struct ntp_jreport *r)
{
	const struct ntp_view *v = ntp_jreport__view(r);

	ntp_report__json_stage_notes(j, v->stages, v->nstages,
				     r->target_only ? ntp_jreport__residence(r) : NULL);

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

int ntp_jreport__print_json(const struct ntp_jreport *r, FILE *f, const struct ntp_report_opts *o)
{
	const struct ntp_view *v = ntp_jreport__view(r);
	struct ntp_json *j = ntp_json__new(f, o->pretty);
	size_t hidden = 0;

	if (!j)
		return NTP_EXIT_FAILURE;
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "schema_version", r->nfiles ? r->files[0].hdr.schema_version : 0);
	ntp_json__string_field(j, "command", "report");
	ntp_json__bool_field(j, "joined", r->joined);
	ntp_json__bool_field(j, "target_only", r->target_only);
	ntp_json__string_field(j, "stage_view", v->name);
	if (r->target_only)
		ntp_json__string_field(j, "note", NTP_JREPORT_TARGET_NOTE);
	files_array(j, r);
	if (r->joined)
		join_members(j, r);
	warnings_array(j, r);
	notes_members(j, r);

	ntp_json__name(j, "groups");
	ntp_json__start_array(j);
	for (size_t i = 0; i < r->ngroups; i++) {
		if (ntp_report__shown(&r->groups[i], r->total, o))
			ntp_report__json_group(j, &r->groups[i], v->stages, v->nstages, true,
					       r->target_only);
		else
			hidden++;
	}
	ntp_json__end_array(j);
	ntp_json__uint_field(j, "hidden_groups", hidden);
	ntp_json__end_object(j);
	ntp_json__delete(j);
	return NTP_EXIT_OK;
}
