// SPDX-License-Identifier: GPL-2.0
/*
 * report: the text form.  Every line that is not data begins with '#', as in
 * perf report, so `grep -v '^#'` leaves only the rows.  The tables are
 * report_table.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/exit.h"
#include "lib/report_priv.h"

/* the end-to-end table: one row per group */
enum { G_IO_TYPE, G_SIZE, G_NS, G_N, G_RATE, G_MIN, G_MEAN, G_P50, G_P90, G_P99, G_P999, G_MAX, G_COLS };
static const struct ntp_col group_cols[G_COLS] = {
	[G_IO_TYPE] = { "io_type", -7, "%s" },
	[G_SIZE]    = { "size", 7, "%s" },
	[G_NS]      = { "namespace", -12, "%s" },
	[G_N]       = { "n", 9, "%" PRId64 },
	[G_RATE]    = { "est_cmds/s", 12, "%.1f" },
	[G_MIN]     = { "min", 9, "%.2f" },
	[G_MEAN]    = { "mean", 9, "%.2f" },
	[G_P50]     = { "p50", 9, "%.2f" },
	[G_P90]     = { "p90", 9, "%.2f" },
	[G_P99]     = { "p99", 9, "%.2f" },
	[G_P999]    = { "p99.9", 9, "%.2f" },
	[G_MAX]     = { "max", 9, "%.2f" },
};

/* the stage table of one group: one row per stage, then unattributed and the total */
enum { S_STAGE, S_MIN, S_MEAN, S_P50, S_P90, S_P99, S_P999, S_MAX, S_SHARE, S_COLS };
static const struct ntp_col stage_cols[S_COLS] = {
	[S_STAGE] = { "stage", -12, "%s" },
	[S_MIN]   = { "min", 9, "%.2f" },
	[S_MEAN]  = { "mean", 9, "%.2f" },
	[S_P50]   = { "p50", 9, "%.2f" },
	[S_P90]   = { "p90", 9, "%.2f" },
	[S_P99]   = { "p99", 9, "%.2f" },
	[S_P999]  = { "p99.9", 9, "%.2f" },
	[S_MAX]   = { "max", 9, "%.2f" },
	[S_SHARE] = { "share%", 7, "%.1f" },
};

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

/*
 * The filters record was given, as its options: a filtered recording holds
 * only the commands that passed them, and its report must say so.
 */
static void print_filters(const struct ntp_report_header *h, FILE *f, const char *in)
{
	fprintf(f, "# %s%-18s", in, "filters:");
	if (!h->filter_session && !h->filter_io_type && !h->filter_sizes) {
		fputs(" none\n", f);
		return;
	}
	if (h->filter_session)
		fprintf(f, " --session %s", h->filter_session);
	if (h->filter_io_type)
		fprintf(f, " --io-type %s", h->filter_io_type);
	if (h->filter_sizes)
		fprintf(f, " --size %s", h->filter_sizes);
	fputs(" (only the commands that pass them were recorded)\n", f);
}

/* the recording itself: where, what, and the hook of each stage boundary */
void ntp_report__print_file_header(const struct ntp_report_header *h, FILE *f, const char *in)
{
	fprintf(f, "# %s%-18s %s\n", in, "file:", h->path);
	fprintf(f, "# %s%-18s %s\n", in, "role:", or_unknown(h->role));
	fprintf(f, "# %s%-18s %s\n", in, "transport:", or_unknown(h->transport));
	fprintf(f, "# %s%-18s %s\n", in, "kernel release:", or_unknown(h->kernel_release));
	fprintf(f, "# %s%-18s %s\n", in, "host:", or_unknown(h->hostname));
	fprintf(f, "# %s%-18s %s\n", in, "start time:", or_unknown(h->start_time));
	if (h->duration_ns > 0)
		fprintf(f, "# %s%-18s %.3f s (%s)\n", in, "duration:",
			(double)h->duration_ns / 1e9, h->duration_source);
	else
		fprintf(f, "# %s%-18s unknown\n", in, "duration:");
	if (h->sample_one_in > 0)
		fprintf(f, "# %s%-18s 1/%" PRId64 "\n", in, "sample rate:", h->sample_one_in);
	else
		fprintf(f, "# %s%-18s unknown\n", in, "sample rate:");
	print_filters(h, f, in);
	fprintf(f, "# %s%-18s %" PRId64 "\n", in, "hash version:", h->hash_version);
	fprintf(f, "# %s%-18s %s\n", in, "recorded by:", or_unknown(h->recorded_by));
	for (size_t i = 0; i < h->nhooks; i++) {
		const struct ntp_report_hook *k = &h->hooks[i];

		fprintf(f, "# %s%-18s %s %s: %s (%s)%s%s\n", in, "hook:", k->side, k->point, k->hook,
			k->flavour, *k->reason ? ": " : "", k->reason);
	}
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
	if (lost)
		fprintf(f, "# warning: %" PRIu64 " sampled commands were lost while recording; "
			"the statistics below do not include them\n", lost);
}

static void print_groups(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o)
{
	const char *sep = o->field_separator;

	fprintf(f, "#\n# end-to-end latency per group (us); est_cmds/s is estimated: "
		"n x %" PRId64 " / duration\n", r->hdr.sample_one_in);
	ntp_report__print_titles(f, group_cols, G_COLS, sep);
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct ntp_report_group *g = &r->groups[i];
		struct ntp_cell c[G_COLS];
		char size[32];

		if (!ntp_report__group_shown(r, g, o))
			continue;
		ntp_report__size_str(g->bytes, size, sizeof(size));
		c[G_IO_TYPE] = ntp_report__str_cell(g->io_type);
		c[G_SIZE] = ntp_report__str_cell(size);
		c[G_NS] = ntp_report__str_cell(g->ns);
		c[G_N] = ntp_report__int_cell((int64_t)g->e2e.n);
		c[G_RATE] = g->est_rate >= 0 ? ntp_report__dbl_cell(g->est_rate) :
			    (struct ntp_cell){ NTP_CELL_NONE };
		c[G_MIN] = ntp_report__us_cell(g->e2e.min);
		c[G_MEAN] = ntp_report__us_cell(ntp_report__round_ns(g->e2e.mean));
		c[G_P50] = ntp_report__us_cell(g->e2e.p50);
		c[G_P90] = ntp_report__us_cell(g->e2e.p90);
		c[G_P99] = ntp_report__us_cell(g->e2e.p99);
		c[G_P999] = ntp_report__us_cell(g->e2e.p999);
		c[G_MAX] = ntp_report__us_cell(g->e2e.max);
		ntp_report__print_row(f, group_cols, G_COLS, c, sep);
	}
}

static void summary_cells(struct ntp_cell *c, const struct ntp_summary *s, double share)
{
	c[S_MIN] = ntp_report__us_cell(s->min);
	c[S_MEAN] = ntp_report__us_cell(ntp_report__round_ns(s->mean));
	c[S_P50] = ntp_report__us_cell(s->p50);
	c[S_P90] = ntp_report__us_cell(s->p90);
	c[S_P99] = ntp_report__us_cell(s->p99);
	c[S_P999] = ntp_report__us_cell(s->p999);
	c[S_MAX] = ntp_report__us_cell(s->max);
	c[S_SHARE] = ntp_report__dbl_cell(share);
}

static void print_sum_check(const struct ntp_report_group *g, FILE *f)
{
	int64_t stage_sum = 0;

	for (int s = 0; s < NTP_STAGE_MAX; s++)
		stage_sum += g->sum_stage[s];
	if (stage_sum == g->sum_e2e && !g->mismatched) {
		fprintf(f, "# sum check: ok (the stage means add up to the end-to-end mean; "
			"0 of %zu commands do not add up)\n", g->e2e.n);
		return;
	}
	/* to the ns, and the difference finer still: it may be a fraction of one */
	fprintf(f, "# sum check: FAILED: the stage means add up to %.3f us, the end-to-end mean is "
		"%.3f us (difference %.2f ns); %" PRIu64 " of %zu commands do not add up\n",
		(double)stage_sum / (double)g->e2e.n / 1000.0,
		(double)g->sum_e2e / (double)g->e2e.n / 1000.0,
		ntp_report__unattributed_ns(g), g->mismatched, g->e2e.n);
}

static void print_stages(const struct ntp_report_group *g, FILE *f, const char *sep)
{
	struct ntp_cell c[S_COLS];
	double un = ntp_report__unattributed_ns(g);
	char size[32];

	ntp_report__size_str(g->bytes, size, sizeof(size));
	fprintf(f, "#\n# stages of %s %s %s (n=%zu), us; share%% of the end-to-end mean\n",
		g->io_type, size, g->ns, g->e2e.n);
	ntp_report__print_titles(f, stage_cols, S_COLS, sep);
	for (int s = 0; s < NTP_STAGE_MAX; s++) {
		c[S_STAGE] = ntp_report__str_cell(ntp_stage_names[s].text);
		summary_cells(c, &g->stage[s], ntp_report__share_pct(g, g->stage[s].mean));
		ntp_report__print_row(f, stage_cols, S_COLS, c, sep);
	}
	/* what no stage explains: only a mean exists for it */
	for (int i = 0; i < S_COLS; i++)
		c[i] = (struct ntp_cell){ NTP_CELL_NONE };
	c[S_STAGE] = ntp_report__str_cell("unattributed");
	c[S_MEAN] = ntp_report__us_cell(ntp_report__round_ns(un));
	c[S_SHARE] = ntp_report__dbl_cell(ntp_report__share_pct(g, un));
	ntp_report__print_row(f, stage_cols, S_COLS, c, sep);
	c[S_STAGE] = ntp_report__str_cell("end-to-end");
	summary_cells(c, &g->e2e, ntp_report__share_pct(g, g->e2e.mean));
	ntp_report__print_row(f, stage_cols, S_COLS, c, sep);
	print_sum_check(g, f);
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
	fprintf(f, "#\n# * network: the network and the target together "
		"(a host-only recording cannot tell them apart)\n");
	if (hidden)
		fprintf(f, "# %zu groups below --percent-limit %g%% not shown\n", hidden,
			o->percent_limit);
	return NTP_EXIT_OK;
}
