// SPDX-License-Identifier: GPL-2.0
/*
 * report: the text form of every report (one model, model.h).
 * Every line that is not a table row begins with '#', as in perf report, so
 * `grep -v '^#'` leaves only the rows; the tables of groups are
 * report_text_tables.c's.  A recording alone gets its header as it is;
 * joined recordings one numbered block per file, and a file column.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/core/size.h"
#include "lib/model/model.h"
#include "lib/report/report_filter_text.h"
#include "lib/model/model_header.h"
#include "lib/model/model_view.h"
#include "lib/report/report_text.h"
#include "lib/report/report_text_hist.h"
#include "lib/report/report_text_tables.h"

/* one line of a recording's header: "# LABEL VALUE", the values in one column */
static void line(FILE *f, const struct ntp_header_style *st, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void line(FILE *f, const struct ntp_header_style *st, const char *label, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "# %s%s%-*s ", st->indent, st->sub, 18 - (int)strlen(st->sub), label);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/*
 * The filters record was given, as its options: a filtered recording holds
 * only the commands that passed them, and its report must say so.
 */
static void print_filters(const struct ntp_report_header *h, FILE *f,
			  const struct ntp_header_style *st)
{
	char buf[512] = "";
	size_t n = 0;

	if (!h->filter_session && !h->filter_io_type && !h->filter_sizes) {
		line(f, st, "filters:", "none");
		return;
	}
	if (h->filter_session)
		n += snprintf(buf + n, sizeof(buf) - n, "--session %s ", h->filter_session);
	if (h->filter_io_type && n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n, "--io-type %s ", h->filter_io_type);
	if (h->filter_sizes && n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "--size %s ", h->filter_sizes);
	line(f, st, "filters:", "%s(only the commands that pass them were recorded)", buf);
}

/* report's: every line, under "file:" */
static const struct ntp_header_style ntp_report__header_style = {
	.label = "file:", .indent = "", .sub = "",
	.duration_source = true, .filters = true, .hash_version = true,
};

void ntp_report__print_header_lines(const struct ntp_report_header *h, FILE *f,
				    const struct ntp_header_style *st)
{
	const struct ntp_header_style first = { .indent = st->indent, .sub = "" };

	line(f, &first, st->label, "%s", h->path);
	line(f, st, "role:", "%s", ntp_report__or_unknown(h->role));
	line(f, st, "transport:", "%s", ntp_report__or_unknown(h->transport));
	line(f, st, "kernel release:", "%s", ntp_report__or_unknown(h->kernel_release));
	if (!st->brief) {
		line(f, st, "host:", "%s", ntp_report__or_unknown(h->hostname));
		line(f, st, "start time:", "%s", ntp_report__or_unknown(h->start_time));
	}
	if (h->duration_ns > 0 && st->duration_source)
		line(f, st, "duration:", "%.3f s (%s)", (double)h->duration_ns / 1e9,
		     h->duration_source);
	else if (h->duration_ns > 0)
		line(f, st, "duration:", "%.3f s", (double)h->duration_ns / 1e9);
	else
		line(f, st, "duration:", "unknown");
	if (h->sample_one_in > 0)
		line(f, st, "sample rate:", "1/%" PRId64, h->sample_one_in);
	else
		line(f, st, "sample rate:", "unknown");
	if (st->filters)
		print_filters(h, f, st);
	if (st->hash_version && !st->brief)
		line(f, st, "hash version:", "%" PRId64, h->hash_version);
	if (!st->brief)
		line(f, st, "recorded by:", "%s", ntp_report__or_unknown(h->recorded_by));
	if (st->counts)
		line(f, st, "commands:", "%" PRIu64 " in file, %" PRIu64 " lost", h->rows,
		     h->lost_ringbuf + h->lost_map);
	if (st->brief) {
		line(f, st, "hooks:", "%zu (listed with --header)", h->nhooks);
		return;
	}
	for (size_t i = 0; i < h->nhooks; i++) {
		const struct ntp_report_hook *k = &h->hooks[i];

		line(f, st, "hook:", "%s %s: %s (%s)%s%s", k->side, k->point, k->hook, k->flavour,
		     *k->reason ? ": " : "", k->reason);
	}
}

void ntp_report__print_file_header(const struct ntp_report_header *h, FILE *f, const char *in,
				   bool brief)
{
	struct ntp_header_style st = ntp_report__header_style;

	st.indent = in;
	st.brief = brief;
	ntp_report__print_header_lines(h, f, &st);
}

/* ntprof-report(1) says what the figure counts and what it leaves out */
static void print_cost(const struct ntp_report_header *h, FILE *f, const char *in)
{
	struct ntp_report_cost c;

	if (h->bpf_run_ns < 0) {
		fprintf(f, "# %sntprof's own cost: unknown (recorded without the kernel's BPF statistics)\n", in);
		return;
	}
	if (!ntp_report__cost(h, &c)) {
		fprintf(f, "# %sntprof's own cost: unknown (no command seen while it was measured)\n", in);
		return;
	}
	fprintf(f, "# %sntprof's own cost: %.0f ns per command, %.2f%% of one CPU at %.0f commands/s "
		"(its BPF programs: %" PRId64 " runs, %" PRId64 " ns over %" PRId64 " commands in the first %.1f s)\n",
		in, c.ns_per_command, c.cpu_percent, c.commands_per_s, h->bpf_runs, h->bpf_run_ns,
		h->bpf_commands, (double)h->bpf_window_ns / 1e9);
}

/* whether the recording's side had kprobes: a hooks row of it with that flavour */
static bool side_kprobes(const struct ntp_report_header *h, const char *side)
{
	for (size_t i = 0; i < h->nhooks; i++)
		if (!strcmp(h->hooks[i].side, side) && !strncmp(h->hooks[i].flavour, "k", 1))
			return true;
	return false;
}

/* one side's counts: "commands seen:" alone, "host seen:" in a joined file's block */
static void print_counts(FILE *f, const char *in, const char *side, uint64_t seen,
			 uint64_t sampled, uint64_t lost_rb, uint64_t lost_map, uint64_t rows,
			 bool kprobes, int64_t kprobe_missed, bool brief)
{
	char key[40];

	/* the lost are a warning of their own (print_warnings) */
	if (brief) {
		snprintf(key, sizeof(key), "%s in file:", side);
		fprintf(f, "# %s%-18s %" PRIu64 "\n", in, key, rows);
		return;
	}
	snprintf(key, sizeof(key), "%s seen:", side);
	fprintf(f, "# %s%-18s %" PRIu64 "\n", in, key, seen);
	snprintf(key, sizeof(key), "%s sampled:", side);
	fprintf(f, "# %s%-18s %" PRIu64 "\n", in, key, sampled);
	snprintf(key, sizeof(key), "%s lost:", side);
	fprintf(f, "# %s%-18s %" PRIu64 " (ring buffer full %" PRIu64 ", in-flight map full %"
		PRIu64 ")\n", in, key, lost_rb + lost_map, lost_rb, lost_map);
	snprintf(key, sizeof(key), "%s%skprobes missed:", strcmp(side, "commands") ? side : "",
		 strcmp(side, "commands") ? " " : "");
	if (kprobes && kprobe_missed >= 0)
		fprintf(f, "# %s%-18s %" PRId64 " (hits the kernel skipped: a kprobe that fired while "
			"another ran on its CPU)\n", in, key, kprobe_missed);
	else if (kprobes)
		fprintf(f, "# %s%-18s not recorded in this file\n", in, key);
	snprintf(key, sizeof(key), "%s in file:", side);
	fprintf(f, "# %s%-18s %" PRIu64 "\n", in, key, rows);
}

static void print_file(const struct ntp_report_file *rf, FILE *f, bool joined, bool brief)
{
	const struct ntp_report_header *h = &rf->hdr;
	const char *in = joined ? "  " : "";

	ntp_report__print_file_header(h, f, in, brief);
	if (rf->sides & NTP_SIDE_HOST)
		print_counts(f, in, joined ? "host" : "commands", h->seen, h->sampled,
			     h->lost_ringbuf, h->lost_map, h->rows, side_kprobes(h, "host"),
			     h->kprobe_missed, brief);
	if (rf->sides & NTP_SIDE_TARGET)
		print_counts(f, in, joined ? "target" : "commands", rf->t_seen, rf->t_sampled,
			     rf->t_lost_ringbuf, rf->t_lost_map, rf->t_rows, side_kprobes(h, "target"),
			     h->t_kprobe_missed, brief);
	print_cost(h, f, in);
}

static void print_files(const struct ntp_report *r, FILE *f, bool brief)
{
	bool joined = r->kind == NTP_REPORT_JOINED;

	for (int i = 0; i < r->nfiles; i++) {
		if (joined)
			fprintf(f, "# file %d:\n", i + 1);
		print_file(&r->files[i], f, joined, brief);
	}
}

static void print_pairs(const struct ntp_report *r, FILE *f)
{
	for (int i = 0; i < r->npairs; i++) {
		const struct ntp_join_pair *p = &r->pairs[i];

		fprintf(f, "# %-18s file %d -> file %d: ", "clock pair:", p->host_file + 1,
			p->target_file + 1);
		if (p->clock != NTP_JOIN_CLOCK_TWO) {
			/* one kernel's clock on both sides: known, not estimated */
			fprintf(f, "%s: offset 0 ns, drift 0 ppm, not estimated; %" PRId64 " of %"
				PRId64 " candidate pairs agree within %.0f ns; %" PRId64
				" commands matched\n", ntp_join__clock_name(p->clock), p->support,
				p->candidates, p->tol_ns, p->matched);
			continue;
		}
		if (!p->estimated) {
			fprintf(f, "not estimated: %" PRId64 " candidate pairs, %" PRId64
				" agree (too few); 0 commands matched\n", p->candidates, p->support);
			continue;
		}
		fprintf(f, "offset %+" PRId64 " ns, drift %+.3f ppm (target clock - host clock "
			"at host time %" PRId64 " ns); %" PRId64 " of %" PRId64
			" candidate pairs agree within %.0f ns; %" PRId64 " commands matched\n",
			ntp_report__round_ns(p->offset_ns), p->drift * 1e6, p->t0_ns, p->support,
			p->candidates, p->tol_ns, p->matched);
	}
}

static void print_join_counts(const struct ntp_report *r, FILE *f, bool brief)
{
	const struct ntp_join_counts *c = &r->counts;
	double pct = ntp_report__matched_pct(r);

	fprintf(f, "# %-18s %" PRId64 " (%.2f%% of the %" PRId64 " host commands)\n",
		"commands matched:", c->matched, isfinite(pct) ? pct : 0.0, c->host_rows);
	if (brief)
		return;
	fprintf(f, "# %-18s %" PRId64 " (no target record: lost, or recorded while the target "
		"was not)\n", "unmatched host:", c->unmatched_host);
	fprintf(f, "# %-18s %" PRId64 " (of %" PRId64 " target commands, no host record)\n",
		"unmatched target:", c->unmatched_target, c->target_rows);
	fprintf(f, "# %-18s %" PRId64 " (a target record of the same command outside the clock "
		"offset bound: a mismatch, never joined)\n", "rejected:", c->rejected);
}

static void print_warnings(const struct ntp_report *r, FILE *f)
{
	bool joined = r->kind == NTP_REPORT_JOINED;
	double pct = ntp_report__matched_pct(r);

	if (joined && (!isfinite(pct) || pct < NTP_REPORT_WARN_PCT))
		fprintf(f, "# warning: only %.2f%% of the host's sampled commands were joined "
			"(below %.0f%%): the stages below describe the joined ones only\n",
			isfinite(pct) ? pct : 0.0, NTP_REPORT_WARN_PCT);
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_report_file *rf = &r->files[i];
		uint64_t lost = rf->hdr.lost_ringbuf + rf->hdr.lost_map +
				rf->t_lost_ringbuf + rf->t_lost_map;

		if (lost && joined)
			fprintf(f, "# warning: %" PRIu64 " sampled commands were lost while "
				"recording file %d; the statistics below do not include them\n",
				lost, i + 1);
		else if (lost)
			fprintf(f, "# warning: %" PRIu64 " sampled commands were lost while "
				"recording; the statistics below do not include them\n", lost);
	}
	if (r->kind == NTP_REPORT_TARGET)
		fprintf(f, "# note: %s\n", NTP_REPORT_TARGET_NOTE);
}

static void print_groups(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	bool joined = r->kind == NTP_REPORT_JOINED;
	/* a target groups by its backend device: it has no namespace disk */
	const char *ns_title = r->kind == NTP_REPORT_TARGET ? "device" : "namespace";

	if (r->kind == NTP_REPORT_TARGET)
		fprintf(f, "#\n# residence on the target per group (us) of the sampled target "
			"commands: %s; est_cmds/s is estimated: n x N / duration of the file\n",
			r->rdma ? "received to response posted, less the RDMA READ of a write's data" :
			"received to response sent, less an R2T write's wait for its data");
	else if (joined)
		fprintf(f, "#\n# end-to-end latency per group (us) of the joined commands; "
			"est_cmds/s is estimated: n x N / duration of the host file\n");
	else
		fprintf(f, "#\n# end-to-end latency per group (us); est_cmds/s is estimated: "
			"n x %" PRId64 " / duration\n", r->files[0].hdr.sample_one_in);
	ntp_report__print_percentile_note(f);
	ntp_report__print_group_table(f, r, joined, ns_title, o->field_separator, &o->fields,
				      &o->term);
}

static void print_stages(const struct ntp_report *r, const struct ntp_report_group *g, FILE *f,
			 const struct ntp_report_opts *o)
{
	const struct ntp_view *v = ntp_report__view(r);
	const char *total = ntp_report__total_label(r);
	char size[32], file[32] = "";

	ntp_size__str(g->bytes, size, sizeof(size));
	if (r->kind == NTP_REPORT_JOINED)
		snprintf(file, sizeof(file), " of file %d", g->host_file);
	fprintf(f, "#\n# stages of %s %s %s%s (n=%zu), us; share%% of the %s mean\n",
		g->io_type, size, g->ns, file, g->e2e.n, total);
	/* the application's stages are of the commands with its stamps alone: say how many */
	if (r->app)
		fprintf(f, "# application's side: %zu of the %zu commands (%" PRIu64 " reaped); "
			"submit, complete, reap and app e2e are theirs, their share%% of the app "
			"e2e mean\n", g->app.e2e.n, g->e2e.n, g->app.reaped);
	ntp_report__print_app_stage_table(f, g, v->stages, v->nstages, total, o->field_separator,
					  &o->fields, r->app, &o->term);
	if (o->histogram) {
		char group[160];

		snprintf(group, sizeof(group), "%s %s %s%s", g->io_type, size, g->ns, file);
		ntp_report__print_group_histograms(f, g, v->stages, v->nstages, total, group,
						   &o->hist);
	}
}

void ntp_report__print_stage_notes(const struct ntp_report *r, FILE *f)
{
	const struct ntp_view *v = ntp_report__view(r);

	fprintf(f, "#\n# stages (%s):\n", v->name);
	if (r->app)
		fprintf(f, "#   %-12s %s\n", ntp_report__app_stages[NTP_APP_SUBMIT].text,
			ntp_report__app_stages[NTP_APP_SUBMIT].what);
	for (int s = 0; s < v->nstages; s++)
		fprintf(f, "#   %-12s %s\n", v->stages[s].text, v->stages[s].what);
	for (int s = NTP_APP_COMPLETE; r->app && s < NTP_APP_STAGES; s++)
		fprintf(f, "#   %-12s %s\n", ntp_report__app_stages[s].text,
			ntp_report__app_stages[s].what);
	if (r->app)
		fprintf(f, "#   %-12s %s\n", ntp_report__app_total.text, ntp_report__app_total.what);
	if (r->kind == NTP_REPORT_TARGET)
		fprintf(f, "#   %-12s %s\n", "residence", ntp_report__residence(r));
}

static void print_notes(const struct ntp_report *r, FILE *f)
{
	ntp_report__print_stage_notes(r, f);
	for (size_t i = 0; i < r->ngaps; i++) {
		const struct ntp_stage_gap *g = &r->gaps[i];

		fprintf(f, "# hook gap: file %d: %s (hook %s): %s: %s\n", g->file, g->point,
			g->hook, g->stages, g->what);
	}
}

/*
 * The diagnosis (ntprof-report(1), DIAGNOSIS): the recording's line, then
 * each group's, every line within NTP_DIAG_TEXT_WIDTH columns.  Kept with
 * -q, as the warnings are: it is what the tables mean.
 */
static void ntp_report__print_diagnosis(const struct ntp_diag *d, FILE *f)
{
	char line[512];

	fprintf(f, "#\n# diagnosis: the stage of each tail, the cause the evidence supports "
		"(ntprof-report(1))\n");
	ntp_diag__full_text(&d->all, line, sizeof(line), NTP_DIAG_TEXT_WIDTH - 2);
	fprintf(f, "# %s\n", line);
	for (size_t i = 0; i < d->ngroups; i++) {
		struct ntp_diag_line l;

		ntp_diag__group(d, i, &l);
		ntp_diag__full_text(&l, line, sizeof(line), NTP_DIAG_TEXT_WIDTH - 2);
		fprintf(f, "# %s\n", line);
	}
	for (size_t i = 0; ntp_diag__missing(d, i, line, sizeof(line)); i++)
		fprintf(f, "# %s\n", line);
	if (d->all.e.host_alone)
		fprintf(f, "# network* holds the network and the target: a cause in it needs the "
			"target's recording\n");
}

static const char *none_line(const struct ntp_report *r)
{
	if (r->filter)
		return "no commands pass the read filters";
	switch (r->kind) {
	case NTP_REPORT_JOINED:
		return "no joined commands";
	case NTP_REPORT_TARGET:
		return "no sampled target commands in this recording";
	default:
		return "no sampled host commands in this recording";
	}
}

int ntp_report__print_text(const struct ntp_report *r, const struct ntp_diag *d, FILE *f,
			  const struct ntp_report_opts *o)
{
	/* -q: the header block and the notes go; warnings stay, they qualify the numbers */
	if (o->quiet)
		;
	else if (r->kind == NTP_REPORT_JOINED)
		fprintf(f, "# ntprof report: %d recording%s joined\n", r->nfiles,
			r->nfiles == 1 ? "" : "s");
	else
		fprintf(f, "# ntprof report\n");
	if (!o->quiet)
		print_files(r, f, !o->header);
	if (r->kind == NTP_REPORT_JOINED && !o->quiet) {
		/* the clock pairs are the full header's: one not estimated joins nothing, warned of */
		if (o->header)
			print_pairs(r, f);
		print_join_counts(r, f, !o->header);
	}
	ntp_read_filter__print_text(f, r->filter);
	ntp_report_sort__print_text(f, &o->sort, false);
	print_warnings(r, f);
	if (!r->ngroups && !r->nhidden) {
		fprintf(f, "#\n# %s\n", none_line(r));
		return NTP_EXIT_OK;
	}
	print_groups(r, f, o);
	for (size_t i = 0; i < r->ngroups && ntp_report__stage_tables_shown(&o->fields); i++)
		print_stages(r, &r->groups[i], f, o);
	ntp_report__print_diagnosis(d, f);
	ntp_diag_by__text(f, &d->by);
	if (!o->quiet)
		print_notes(r, f);
	if (r->nhidden)
		fprintf(f, "# %zu groups below --percent-limit %g%% not shown\n", r->nhidden,
			r->percent_limit);
	return NTP_EXIT_OK;
}
