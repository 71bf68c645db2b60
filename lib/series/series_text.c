// SPDX-License-Identifier: GPL-2.0
/*
 * series: the text.  Every line but the rows begins with '#', as in every
 * report, so `grep -v '^#'` leaves only the rows: the recordings' header
 * lines as report prints them, the read filters and --top, the interval
 * (none of which with -q), then one row per interval and
 * group that had commands, in report_table.c's columns (times in us, means
 * rounded to whole ns first).  The rows are of one shape: a table to read
 * down, interval after interval; the CSV is the form for scripts.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/core/size.h"
#include "lib/report/report_filter_text.h"
#include "lib/report/report_table.h"
#include "lib/report/report_text.h"
#include "lib/series/series_out.h"

/* the columns before the stages: time, file (joined only), the group, n and the rate */
enum { C_TIME, C_FILE, C_IO_TYPE, C_SIZE, C_NS, C_N, C_RATE, C_KEYS };

static const struct ntp_col key_cols[C_KEYS] = {
	[C_TIME]    = { "time_s", 9, "%.3f" },
	[C_FILE]    = { "file", 4, "%" PRId64 },
	[C_IO_TYPE] = { "io_type", -7, "%s" },
	[C_SIZE]    = { "size", 7, "%s" },
	[C_NS]      = { "namespace", -12, "%s" },
	[C_N]       = { "n", 7, "%" PRId64 },
	[C_RATE]    = { "est_cmds/s", 12, "%.1f" },
};

static bool joined(const struct ntp_series *s)
{
	return s->r.kind == NTP_REPORT_JOINED;
}

/* the key columns, then "<stage>.mean" and "<stage>.<percentile>" of the total and of each stage */
static int build_cols(struct ntp_series_text *t, const struct ntp_series *s)
{
	const struct ntp_view *v = ntp_report__view(&s->r);
	int n = C_KEYS + (1 + s->npct) * (1 + v->nstages);

	t->cols = calloc(n, sizeof(*t->cols));
	t->names = calloc(n, sizeof(*t->names));
	if (!t->cols || !t->names)
		return NTP_EXIT_FAILURE;
	for (int c = 0; c < C_KEYS; c++) {
		if (c == C_FILE && !joined(s))
			continue;
		/* --by: the queue, process or CPU alone */
		if ((c == C_IO_TYPE || c == C_SIZE) && s->by != NTP_DIAG_BY_NONE)
			continue;
		t->cols[t->ncols] = key_cols[c];
		/* as many decimals as the interval has: ms, us or ns */
		if (c == C_TIME)
			t->cols[t->ncols].fmt = s->interval_ns % 1000000 == 0 ? "%.3f" :
						s->interval_ns % 1000 == 0 ? "%.6f" : "%.9f";
		/* a target alone's groups are of its backend devices */
		if (c == C_NS && s->r.kind == NTP_REPORT_TARGET)
			t->cols[t->ncols].name = "device";
		if (c == C_NS && s->by != NTP_DIAG_BY_NONE)
			t->cols[t->ncols].name = ntp_series__by_word(s);
		t->ncols++;
	}
	for (int k = -1; k < v->nstages; k++) {
		const char *label = k < 0 ? ntp_report__total_label(&s->r) : v->stages[k].text;

		for (int q = -1; q < s->npct; q++) {
			char *name;
			int w;

			if (asprintf(&name, "%s.%s", label, q < 0 ? "mean" : ntp_stats[s->pct[q]].name) < 0)
				return NTP_EXIT_FAILURE;
			t->names[t->ncols] = name;
			w = (int)strlen(name) > 9 ? (int)strlen(name) : 9;
			t->cols[t->ncols++] = (struct ntp_col){ name, w, "%.2f" };
		}
	}
	return 0;
}

/* the interval in the largest unit that holds it whole: "1 s", "250 ms", "1001 ns" */
static void print_interval(FILE *f, int64_t ns)
{
	static const struct { const char *unit; int64_t ns; } units[] = {
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns % units[i].ns == 0) {
			fprintf(f, "%" PRId64 " %s", ns / units[i].ns, units[i].unit);
			return;
		}
	}
}

static int text_begin(void *ctx, const struct ntp_series *s)
{
	struct ntp_series_text *t = ctx;
	const struct ntp_report *r = &s->r;
	char mins[256];

	if (build_cols(t, s))
		return NTP_EXIT_FAILURE;
	if (t->quiet) {
		ntp_report__print_titles(t->f, t->cols, t->ncols, NULL);
		return 0;
	}
	if (joined(s))
		fprintf(t->f, "# ntprof series: %d recording%s joined\n", r->nfiles,
			r->nfiles == 1 ? "" : "s");
	else
		fprintf(t->f, "# ntprof series\n");
	for (int i = 0; i < r->nfiles; i++) {
		if (joined(s))
			fprintf(t->f, "# file %d:\n", i + 1);
		ntp_report__print_file_header(&r->files[i].hdr, t->f, joined(s) ? "  " : "",
					      false);
	}
	if (joined(s))
		fprintf(t->f, "# %-18s %" PRId64 " of the %" PRId64 " host commands (the series "
			"holds the joined ones only)\n", "commands matched:", r->counts.matched,
			r->counts.host_rows);
	ntp_read_filter__print_text(t->f, s->filter);
	if (s->by != NTP_DIAG_BY_NONE)
		fprintf(t->f, "# %-18s a group is a host %s, its commands of every type and size\n",
			"by:", s->by == NTP_DIAG_BY_QUEUE ? "queue (controller, qid)" :
			s->by == NTP_DIAG_BY_PROCESS ? "process (comm, pid)" :
			s->by == NTP_DIAG_BY_CPU ? "submitting CPU (cpu)" : "queue's io_cpu (io_cpu)");
	if (s->top)
		fprintf(t->f, "# %-18s the %" PRIu64 " groups with the most commands, of %" PRIu64
			"; %" PRIu64 " groups (%" PRIu64 " commands) left out\n", "top:",
			s->groups - s->groups_hidden, s->groups, s->groups_hidden,
			s->commands_hidden);
	fprintf(t->f, "# %-18s ", "interval:");
	print_interval(t->f, s->interval_ns);
	fprintf(t->f, ", by each command's start: %s\n", r->kind == NTP_REPORT_TARGET ?
		"t_recv, on the target's clock" : "h_start, on the host's clock");
	ntp_stat__minimums(mins, sizeof(mins), s->pct, s->npct, false);
	fprintf(t->f, "#\n# per interval and group, the mean and percentiles of each stage (us; "
		"a percentile from this many commands in the interval, '-' with fewer: %s); "
		"time_s: the interval's start, from the recording's; est_cmds/s is estimated: "
		"n x N / the interval's time in the recording\n", mins);
	ntp_report__print_titles(t->f, t->cols, t->ncols, NULL);
	return 0;
}

static int text_point(void *ctx, const struct ntp_series *s, const struct ntp_series_point *p)
{
	struct ntp_series_text *t = ctx;
	const struct ntp_report_group *g = p->g;
	const struct ntp_view *v = ntp_report__view(&s->r);
	struct ntp_cell c[C_KEYS + (1 + NTP_PCT_MAX) * (1 + NTP_VIEW_MAX_STAGES)];
	char size[32];
	int n = 0;

	ntp_size__str(g->bytes, size, sizeof(size));
	c[n++] = ntp_report__dbl_cell(ntp_series__t_s(s, p));
	if (joined(s))
		c[n++] = ntp_report__int_cell(g->host_file);
	if (s->by == NTP_DIAG_BY_NONE) {
		c[n++] = ntp_report__str_cell(g->io_type);
		c[n++] = ntp_report__str_cell(size);
	}
	c[n++] = ntp_report__str_cell(g->ns);
	c[n++] = ntp_report__int_cell((int64_t)g->e2e.n);
	c[n++] = g->est_rate >= 0 ? ntp_report__dbl_cell(g->est_rate) :
		 (struct ntp_cell){ NTP_CELL_NONE };
	for (int k = -1; k < v->nstages; k++) {
		const struct ntp_summary *sm = k < 0 ? &g->e2e : &g->stage[k];

		c[n++] = sm->n ? ntp_report__us_cell(ntp_report__round_ns(sm->mean)) :
				 ntp_report__none_cell();
		for (int q = 0; q < s->npct; q++)
			c[n++] = ntp_stat__shown(sm, s->pct[q]) ?
				 ntp_report__us_cell(ntp_stat__of(sm, s->pct[q])) :
				 ntp_report__none_cell();
	}
	ntp_report__print_row(t->f, t->cols, t->ncols, c, NULL);
	return 0;
}

static int text_end(void *ctx, const struct ntp_series *s)
{
	struct ntp_series_text *t = ctx;

	if (t->quiet)
		return 0;
	if (!s->commands)
		fprintf(t->f, "# no %s commands in %s\n", joined(s) ? "joined" :
			s->r.kind == NTP_REPORT_TARGET ? "sampled target" : "sampled host",
			s->r.nfiles > 1 ? "these recordings" : "this recording");
	else
		fprintf(t->f, "# %" PRIu64 " commands in %" PRIu64 " rows\n", s->commands, s->points);
	return 0;
}

struct ntp_series_out ntp_series__text_out(struct ntp_series_text *t, FILE *f, bool quiet)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->quiet = quiet;
	return (struct ntp_series_out){ text_begin, text_point, text_end, t };
}

void ntp_series__text_free(struct ntp_series_text *t)
{
	for (int i = 0; t->names && i < t->ncols; i++)
		free(t->names[i]);
	free(t->names);
	free(t->cols);
	memset(t, 0, sizeof(*t));
}
