// SPDX-License-Identifier: GPL-2.0
/*
 * report: the text form.  Every line that is not data begins with '#', as in
 * perf report, so `grep -v '^#'` leaves only the rows.  The tables of groups
 * are report_text_tables.c's, as in the report on joined recordings.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/core/size.h"
#include "lib/report/report_model.h"
#include "lib/report/report_query.h"
#include "lib/report/report_text.h"
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

const struct ntp_header_style ntp_report__header_style = {
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
	line(f, st, "host:", "%s", ntp_report__or_unknown(h->hostname));
	line(f, st, "start time:", "%s", ntp_report__or_unknown(h->start_time));
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
	if (st->hash_version)
		line(f, st, "hash version:", "%" PRId64, h->hash_version);
	line(f, st, "recorded by:", "%s", ntp_report__or_unknown(h->recorded_by));
	if (st->counts)
		line(f, st, "commands:", "%" PRIu64 " in file, %" PRIu64 " lost", h->rows,
		     h->lost_ringbuf + h->lost_map);
	for (size_t i = 0; i < h->nhooks; i++) {
		const struct ntp_report_hook *k = &h->hooks[i];

		line(f, st, "hook:", "%s %s: %s (%s)%s%s", k->side, k->point, k->hook, k->flavour,
		     *k->reason ? ": " : "", k->reason);
	}
}

void ntp_report__print_file_header(const struct ntp_report_header *h, FILE *f, const char *in)
{
	struct ntp_header_style st = ntp_report__header_style;

	st.indent = in;
	ntp_report__print_header_lines(h, f, &st);
}

/* ntprof-report(1) says what the figure counts and what it leaves out */
static void print_cost(const struct ntp_report_header *h, FILE *f)
{
	struct ntp_report_cost c;

	if (h->bpf_run_ns < 0) {
		fprintf(f, "# ntprof's own cost: unknown (recorded without the kernel's BPF statistics)\n");
		return;
	}
	if (!ntp_report__cost(h, &c)) {
		fprintf(f, "# ntprof's own cost: unknown (no command seen while it was measured)\n");
		return;
	}
	fprintf(f, "# ntprof's own cost: %.0f ns per command, %.2f%% of one CPU at %.0f commands/s "
		"(its BPF programs: %" PRId64 " runs, %" PRId64 " ns over %" PRId64 " commands in the first %.1f s)\n",
		c.ns_per_command, c.cpu_percent, c.commands_per_s, h->bpf_runs, h->bpf_run_ns,
		h->bpf_commands, (double)h->bpf_window_ns / 1e9);
}

static void print_header(const struct ntp_report *r, FILE *f)
{
	const struct ntp_report_header *h = &r->hdr;
	uint64_t lost = h->lost_ringbuf + h->lost_map;

	fprintf(f, "# ntprof report\n");
	ntp_report__print_file_header(h, f, "");
	fprintf(f, "# %-18s %" PRIu64 "\n", "commands seen:", h->seen);
	fprintf(f, "# %-18s %" PRIu64 "\n", "commands sampled:", h->sampled);
	fprintf(f, "# %-18s %" PRIu64 " (ring buffer full %" PRIu64 ", in-flight map full %" PRIu64 ")\n",
		"commands lost:", lost, h->lost_ringbuf, h->lost_map);
	fprintf(f, "# %-18s %" PRIu64 "\n", "commands in file:", h->rows);
	print_cost(h, f);
	if (lost)
		fprintf(f, "# warning: %" PRIu64 " sampled commands were lost while recording; "
			"the statistics below do not include them\n", lost);
}

static void print_groups(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	fprintf(f, "#\n# end-to-end latency per group (us); est_cmds/s is estimated: "
		"n x %" PRId64 " / duration\n", r->hdr.sample_one_in);
	ntp_report__print_group_titles(f, false, "namespace", o->field_separator);
	for (size_t i = 0; i < r->ngroups; i++)
		if (ntp_report__group_shown(r, &r->groups[i], o))
			ntp_report__print_group_row(f, &r->groups[i], false, o->field_separator);
}

static void print_stages(const struct ntp_report_group *g, FILE *f, const char *sep)
{
	char size[32];

	ntp_size__str(g->bytes, size, sizeof(size));
	fprintf(f, "#\n# stages of %s %s %s (n=%zu), us; share%% of the end-to-end mean\n",
		g->io_type, size, g->ns, g->e2e.n);
	ntp_report__print_stage_table(f, g, ntp_stage_names, NTP_STAGE_MAX, "end-to-end", sep);
}

int ntp_report__print_text(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	size_t hidden = 0;

	print_header(r, f);
	if (!r->ngroups) {
		fprintf(f, "#\n# no sampled host commands in this recording\n");
		return NTP_EXIT_OK;
	}
	print_groups(r, f, o);
	for (size_t i = 0; i < r->ngroups; i++) {
		if (ntp_report__group_shown(r, &r->groups[i], o))
			print_stages(&r->groups[i], f, o->field_separator);
		else
			hidden++;
	}
	fprintf(f, "#\n# * network: %s\n", NTP_REPORT_NETWORK_STAR_NOTE);
	if (hidden)
		fprintf(f, "# %zu groups below --percent-limit %g%% not shown\n", hidden,
			o->percent_limit);
	return NTP_EXIT_OK;
}
