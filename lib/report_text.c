// SPDX-License-Identifier: GPL-2.0
/*
 * report: the text form.  Every line that is not data begins with '#', as in
 * perf report, so `grep -v '^#'` leaves only the rows.  Each table's columns
 * come from one {name, width, fmt} table; with --field-separator the same
 * columns are printed unpadded, joined by the separator.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/exit.h"
#include "lib/report_priv.h"

enum cell_kind {
	CELL_NONE,    /* no value: "-" */
	CELL_STR,
	CELL_INT,
	CELL_DOUBLE,
};

struct cell {
	enum cell_kind kind;
	const char *s;
	int64_t i;
	double d;
};

struct col {
	const char *name;
	int width;            /* negative: left-aligned */
	const char *fmt;      /* printf format of one value of the cell's kind */
};

/* the end-to-end table: one row per group */
enum { G_IO_TYPE, G_SIZE, G_NS, G_N, G_RATE, G_MIN, G_MEAN, G_P50, G_P90, G_P99, G_P999, G_MAX, G_COLS };
static const struct col group_cols[G_COLS] = {
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
static const struct col stage_cols[S_COLS] = {
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

static void format_cell(char *buf, size_t len, const struct col *c, const struct cell *v)
{
	switch (v->kind) {
	case CELL_STR:
		snprintf(buf, len, c->fmt, v->s);
		break;
	case CELL_INT:
		snprintf(buf, len, c->fmt, v->i);
		break;
	case CELL_DOUBLE:
		if (isfinite(v->d)) {
			/* never print "-0.0" for a value that rounds to zero */
			snprintf(buf, len, c->fmt, v->d == 0 ? 0.0 : v->d);
			if (!strncmp(buf, "-0.", 3) && strspn(buf + 3, "0") == strlen(buf + 3))
				memmove(buf, buf + 1, strlen(buf));
			break;
		}
		/* fallthrough */
	case CELL_NONE:
		snprintf(buf, len, "-");
		break;
	}
}

/*
 * Aligned rows begin with two spaces so that they line up under the "# "
 * of the column titles.
 */
static void print_titles(FILE *f, const struct col *cols, int n, const char *sep)
{
	fputc('#', f);
	for (int i = 0; i < n; i++) {
		if (sep)
			fprintf(f, "%s%s", i ? sep : "", cols[i].name);
		else
			fprintf(f, " %*s", cols[i].width, cols[i].name);
	}
	fputc('\n', f);
}

static void print_row(FILE *f, const struct col *cols, int n, const struct cell *cells,
		      const char *sep)
{
	char buf[128];

	if (!sep)
		fputs("  ", f);
	for (int i = 0; i < n; i++) {
		format_cell(buf, sizeof(buf), &cols[i], &cells[i]);
		if (sep)
			fprintf(f, "%s%s", i ? sep : "", buf);
		else
			fprintf(f, "%s%*s", i ? " " : "", cols[i].width, buf);
	}
	fputc('\n', f);
}

static struct cell str_cell(const char *s)
{
	return (struct cell){ .kind = CELL_STR, .s = s };
}

static struct cell int_cell(int64_t i)
{
	return (struct cell){ .kind = CELL_INT, .i = i };
}

static struct cell dbl_cell(double d)
{
	return (struct cell){ .kind = CELL_DOUBLE, .d = d };
}

/* nanoseconds shown in microseconds; means are first rounded to whole ns, as in the JSON */
static struct cell us_cell(int64_t ns)
{
	return dbl_cell((double)ns / 1000.0);
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static void print_header(const struct ntp_report *r, FILE *f)
{
	const struct ntp_report_header *h = &r->hdr;
	uint64_t lost = h->lost_ringbuf + h->lost_map;

	fprintf(f, "# ntprof report\n");
	fprintf(f, "# %-18s %s\n", "file:", h->path);
	fprintf(f, "# %-18s %s\n", "role:", or_unknown(h->role));
	fprintf(f, "# %-18s %s\n", "transport:", or_unknown(h->transport));
	fprintf(f, "# %-18s %s\n", "kernel release:", or_unknown(h->kernel_release));
	fprintf(f, "# %-18s %s\n", "host:", or_unknown(h->hostname));
	fprintf(f, "# %-18s %s\n", "start time:", or_unknown(h->start_time));
	if (h->duration_ns > 0)
		fprintf(f, "# %-18s %.3f s (%s)\n", "duration:", (double)h->duration_ns / 1e9,
			h->duration_source);
	else
		fprintf(f, "# %-18s unknown\n", "duration:");
	if (h->sample_one_in > 0)
		fprintf(f, "# %-18s 1/%" PRId64 "\n", "sample rate:", h->sample_one_in);
	else
		fprintf(f, "# %-18s unknown\n", "sample rate:");
	fprintf(f, "# %-18s %" PRId64 "\n", "hash version:", h->hash_version);
	fprintf(f, "# %-18s %s\n", "recorded by:", or_unknown(h->recorded_by));
	for (size_t i = 0; i < h->nhooks; i++) {
		const struct ntp_report_hook *k = &h->hooks[i];

		fprintf(f, "# %-18s %s %s: %s (%s)%s%s\n", "hook:", k->side, k->point, k->hook,
			k->flavour, *k->reason ? ": " : "", k->reason);
	}
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
	print_titles(f, group_cols, G_COLS, sep);
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct ntp_report_group *g = &r->groups[i];
		struct cell c[G_COLS];
		char size[32];

		if (!ntp_report__group_shown(r, g, o))
			continue;
		ntp_report__size_str(g->bytes, size, sizeof(size));
		c[G_IO_TYPE] = str_cell(g->io_type);
		c[G_SIZE] = str_cell(size);
		c[G_NS] = str_cell(g->ns);
		c[G_N] = int_cell((int64_t)g->e2e.n);
		c[G_RATE] = g->est_rate >= 0 ? dbl_cell(g->est_rate) : (struct cell){ CELL_NONE };
		c[G_MIN] = us_cell(g->e2e.min);
		c[G_MEAN] = us_cell(ntp_report__round_ns(g->e2e.mean));
		c[G_P50] = us_cell(g->e2e.p50);
		c[G_P90] = us_cell(g->e2e.p90);
		c[G_P99] = us_cell(g->e2e.p99);
		c[G_P999] = us_cell(g->e2e.p999);
		c[G_MAX] = us_cell(g->e2e.max);
		print_row(f, group_cols, G_COLS, c, sep);
	}
}

static void summary_cells(struct cell *c, const struct ntp_summary *s, double share)
{
	c[S_MIN] = us_cell(s->min);
	c[S_MEAN] = us_cell(ntp_report__round_ns(s->mean));
	c[S_P50] = us_cell(s->p50);
	c[S_P90] = us_cell(s->p90);
	c[S_P99] = us_cell(s->p99);
	c[S_P999] = us_cell(s->p999);
	c[S_MAX] = us_cell(s->max);
	c[S_SHARE] = dbl_cell(share);
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
	struct cell c[S_COLS];
	double un = ntp_report__unattributed_ns(g);
	char size[32];

	ntp_report__size_str(g->bytes, size, sizeof(size));
	fprintf(f, "#\n# stages of %s %s %s (n=%zu), us; share%% of the end-to-end mean\n",
		g->io_type, size, g->ns, g->e2e.n);
	print_titles(f, stage_cols, S_COLS, sep);
	for (int s = 0; s < NTP_STAGE_MAX; s++) {
		c[S_STAGE] = str_cell(ntp_stage_names[s].text);
		summary_cells(c, &g->stage[s], ntp_report__share_pct(g, g->stage[s].mean));
		print_row(f, stage_cols, S_COLS, c, sep);
	}
	/* what no stage explains: only a mean exists for it */
	for (int i = 0; i < S_COLS; i++)
		c[i] = (struct cell){ CELL_NONE };
	c[S_STAGE] = str_cell("unattributed");
	c[S_MEAN] = us_cell(ntp_report__round_ns(un));
	c[S_SHARE] = dbl_cell(ntp_report__share_pct(g, un));
	print_row(f, stage_cols, S_COLS, c, sep);
	c[S_STAGE] = str_cell("end-to-end");
	summary_cells(c, &g->e2e, ntp_report__share_pct(g, g->e2e.mean));
	print_row(f, stage_cols, S_COLS, c, sep);
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
