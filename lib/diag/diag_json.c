// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnosis as JSON (ntprof-report(1), JSON, "diagnosis"): each line's
 * cause, the rules that hold, the dominant stages and every number of its
 * evidence, for report's and compare's documents alike.
 */
#include <math.h>

#include "lib/core/stat_table.h"
#include "lib/diag/diag.h"
#include "lib/fmt/json.h"

static void stage_member(struct ntp_json *j, const char *name, const struct ntp_diag_line *l,
			 int i, double pct)
{
	ntp_json__name(j, name);
	if (i < 0) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "stage", ntp_stages[l->e.stage[i]].key);
	ntp_json__double_field(j, "share_pct", pct);
	ntp_json__end_object(j);
}

/* the sends off and on the queue's io_cpu: null where no command has both CPUs recorded */
static void cpu_sends(struct ntp_json *j, const struct ntp_diag_evidence *e)
{
	bool known = e->off_io_cpu + e->on_io_cpu > 0;

	ntp_json__name(j, "off_io_cpu");
	if (known)
		ntp_json__uint(j, e->off_io_cpu);
	else
		ntp_json__null(j);
	ntp_json__name(j, "on_io_cpu");
	if (known)
		ntp_json__uint(j, e->on_io_cpu);
	else
		ntp_json__null(j);
	ntp_json__double_field(j, "off_io_cpu_delay_ns", e->off_io_cpu ? e->off_io_cpu_delay_ns : NAN);
	ntp_json__double_field(j, "on_io_cpu_delay_ns", e->on_io_cpu ? e->on_io_cpu_delay_ns : NAN);
}

static void queue_member(struct ntp_json *j, const char *name, const struct ntp_diag_queue *q)
{
	ntp_json__name(j, name);
	if (!q->known) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "name", q->name);
	ntp_json__double_field(j, "in_flight", q->inflight);
	ntp_json__bool_field(j, "measured", q->measured);
	ntp_json__name(j, "depth");
	if (q->depth > 0)
		ntp_json__int(j, q->depth);
	else
		ntp_json__null(j);
	ntp_json__name(j, "processes");
	if (q->submitter)
		ntp_json__int(j, q->submitters);
	else
		ntp_json__null(j);
	ntp_json__end_object(j);
}

static void evidence(struct ntp_json *j, const struct ntp_diag_line *l)
{
	const struct ntp_diag_evidence *e = &l->e;

	ntp_json__name(j, "evidence");
	ntp_json__start_object(j);
	ntp_json__uint_field(j, "n", e->n);
	ntp_json__uint_field(j, "tail_n", e->tail_n);
	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	for (int s = 0; s < e->nstages; s++) {
		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", ntp_stages[e->stage[s]].key);
		ntp_json__double_field(j, "mean_ns", e->mean_ns[s]);
		ntp_json__double_field(j, "tail_mean_ns", e->tail_n ? e->tail_ns[s] : NAN);
		ntp_json__uint_field(j, "negative", e->negative[s]);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__double_field(j, "e2e_mean_ns", e->e2e_mean_ns);
	ntp_json__double_field(j, "e2e_tail_mean_ns", e->tail_n ? e->e2e_tail_ns : NAN);
	ntp_json__uint_field(j, "errors", e->errors);
	ntp_json__name(j, "first_status");
	if (e->errors)
		ntp_json__int(j, e->first_status);
	else
		ntp_json__null(j);
	ntp_json__name(j, "controller_resets");
	if (e->resets >= 0)
		ntp_json__int(j, e->resets);
	else
		ntp_json__null(j);
	queue_member(j, "host_queue", &e->host_queue);
	queue_member(j, "backend", &e->backend);
	ntp_json__name(j, "sends");
	if (e->sends_known) {
		ntp_json__start_object(j);
		ntp_json__uint_field(j, "deferred", e->deferred);
		ntp_json__uint_field(j, "inline", e->inline_sends);
		ntp_json__double_field(j, "deferred_delay_ns", e->deferred ? e->deferred_delay_ns : NAN);
		ntp_json__double_field(j, "inline_delay_ns",
				       e->inline_sends ? e->inline_delay_ns : NAN);
		cpu_sends(j, e);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "clock");
	if (e->joined) {
		ntp_json__start_object(j);
		ntp_json__bool_field(j, "estimated", e->clock_estimated);
		ntp_json__double_field(j, "drift", e->drift);
		ntp_json__double_field(j, "tolerance_ns", e->tol_ns);
		ntp_json__double_field(j, "unpaired_pct", e->unpaired_pct);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "network_p50_ns");
	if (e->network_p50_ns > 0)
		ntp_json__int(j, e->network_p50_ns);
	else
		ntp_json__null(j);
	ntp_json__end_object(j);
}

/* l as a JSON object (ntprof-report(1), JSON, "diagnosis") */
static void ntp_diag__json_line(struct ntp_json *j, const struct ntp_diag_line *l)
{
	char text[512];

	ntp_json__start_object(j);
	if (l->g) {
		ntp_json__int_field(j, "file", l->g->host_file);
		ntp_json__string_field(j, "io_type", l->g->io_type);
		ntp_json__int_field(j, "bytes", l->g->bytes);
		ntp_json__string_field(j, "namespace", l->e.target_alone ? NULL : l->g->ns);
		ntp_json__string_field(j, "device", l->e.target_alone ? l->g->ns : NULL);
	}
	ntp_diag__text(l, text, sizeof(text), 0);
	ntp_json__string_field(j, "cause", ntp_diag_rules[l->v.cause].key);
	ntp_json__string_field(j, "text", text);
	ntp_json__name(j, "holds");
	ntp_json__start_array(j);
	for (int c = 0; c < NTP_DIAG_NCAUSES; c++)
		if (l->v.holds & 1u << c)
			ntp_json__string(j, ntp_diag_rules[c].key);
	ntp_json__end_array(j);
	ntp_json__bool_field(j, "lossy", l->v.lossy);
	ntp_json__string_field(j, "clock_why", l->v.why);
	stage_member(j, "mean_stage", l, l->v.mean_stage, l->v.mean_pct);
	stage_member(j, "tail_stage", l, l->v.tail_stage, l->v.tail_pct);
	ntp_json__name(j, "tail");
	if (l->e.tail_stat) {
		ntp_json__start_object(j);
		ntp_json__string_field(j, "percentile", l->g ? ntp_stats[l->e.tail_stat].name : NULL);
		ntp_json__name(j, "above_ns");
		if (l->g)
			ntp_json__int(j, l->e.tail_above_ns);
		else
			ntp_json__null(j);
		ntp_json__uint_field(j, "n", l->e.tail_n);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	evidence(j, l);
	ntp_json__end_object(j);
}

void ntp_diag__json(struct ntp_json *j, const struct ntp_diag *d)
{
	ntp_json__start_object(j);
	ntp_json__name(j, "sources");
	ntp_json__start_object(j);
	ntp_json__bool_field(j, "send_deferral", d->has.deferral);
	ntp_json__bool_field(j, "processes", d->has.submitters);
	ntp_json__bool_field(j, "queue_depth", d->has.queue_depth);
	ntp_json__bool_field(j, "backend_stats", d->has.backend);
	ntp_json__bool_field(j, "controller_resets", d->has.resets);
	ntp_json__end_object(j);
	ntp_json__name(j, "recording");
	ntp_diag__json_line(j, &d->all);
	ntp_json__name(j, "groups");
	ntp_json__start_array(j);
	for (size_t i = 0; i < d->ngroups; i++) {
		struct ntp_diag_line l;

		ntp_diag__group(d, i, &l);
		ntp_diag__json_line(j, &l);
	}
	ntp_json__end_array(j);
	ntp_json__end_object(j);
}
