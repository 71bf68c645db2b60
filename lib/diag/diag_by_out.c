// SPDX-License-Identifier: GPL-2.0
/* The evidence per queue, process or CPU as text, JSON and HTML (diag_by.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "lib/core/stat_table.h"
#include "lib/diag/diag_by.h"
#include "lib/fmt/html.h"
#include "lib/fmt/json.h"

/* what a row's "others" counts, by key */
static const char *others_name(const struct ntp_diag_by *b)
{
	return ntp_diag_by__def(b->key)->others;
}

/* does a row of b count its others: processes only where some file recorded them */
static bool others_known(const struct ntp_diag_by *b)
{
	return ntp_diag_by__def(b->key)->other != NTP_BY_PART_PROCESS || b->pid_recorded;
}

static void us(char *buf, size_t len, double ns)
{
	if (ns < 0 || isnan(ns))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", ns / 1e3);
}

static void row_text(FILE *f, const struct ntp_diag_by *b, const struct ntp_diag_by_row *w)
{
	char rate[24] = "-", infl[24] = "-", depth[24] = "-", mean[24], tail[24], share[24] = "-";
	char delay[24], others[24] = "-";

	if (w->rate >= 0)
		snprintf(rate, sizeof(rate), "%.0f", w->rate);
	if (w->inflight >= 0)
		snprintf(infl, sizeof(infl), "%.1f", w->inflight);
	if (w->depth > 0)
		snprintf(depth, sizeof(depth), "%" PRId64, w->depth);
	us(mean, sizeof(mean), w->mean_ns);
	us(tail, sizeof(tail), (double)w->tail_ns);
	if (w->n)
		snprintf(share, sizeof(share), "%.1f", 100.0 * (double)w->deferred / (double)w->n);
	us(delay, sizeof(delay), w->deferred_delay_ns);
	if (w->file && others_known(b))
		snprintf(others, sizeof(others), "%d", w->others);
	fprintf(f, "%-14s %7" PRIu64 " %10s %9s %5s %8s %8s %6" PRIu64 " %9s %7s %6s\n", w->name,
		w->n, rate, infl, depth, mean, tail, w->errors, share, delay, others);
}

void ntp_diag_by__text(FILE *f, const struct ntp_diag_by *b)
{
	const char *key;
	char title[24], off[24], on[24];

	if (b->key == NTP_DIAG_BY_NONE)
		return;
	key = ntp_diag_by__def(b->key)->word;
	fprintf(f, "#\n# by %s (--by): in flight by Little's law against the queue's depth, "
		"end-to-end us\n", key);
	if (!b->host) {
		fprintf(f, "# no host commands: a target recording alone has no host %ss\n", key);
		return;
	}
	snprintf(title, sizeof(title), "%s_us", ntp_stats[b->tail_stat].name);
	fprintf(f, "# %-12s %7s %10s %9s %5s %8s %8s %6s %9s %7s %6s\n", key, "n", "est_cmds/s",
		"in_flight", "depth", "mean_us", title, "errors", "deferred%", "send_us",
		ntp_diag_by__def(b->key)->others_short);
	for (size_t i = 0; i < b->n; i++)
		row_text(f, b, &b->rows[i]);
	row_text(f, b, &b->total);
	if (!isnan(b->rate_imbalance) || !isnan(b->tail_imbalance)) {
		fprintf(f, "# imbalance (the largest over the median):");
		if (!isnan(b->rate_imbalance))
			fprintf(f, " est_cmds/s %.2f", b->rate_imbalance);
		if (!isnan(b->tail_imbalance))
			fprintf(f, "%s %s %.2f", isnan(b->rate_imbalance) ? "" : ",",
				ntp_stats[b->tail_stat].name, b->tail_imbalance);
		fputc('\n', f);
	}
	if (ntp_diag_by__def(b->key)->part == NTP_BY_PART_PROCESS && !b->pid_recorded)
		fprintf(f, "# processes: not recorded in this file (the application's side was "
			"off)\n");
	if ((ntp_diag_by__def(b->key)->part == NTP_BY_PART_CPU && !b->cpu_recorded) ||
	    (ntp_diag_by__def(b->key)->part == NTP_BY_PART_IO_CPU && !b->io_cpu_recorded))
		fprintf(f, "# %ss: not recorded in this file (%s)\n", key,
			b->cpu_recorded ? "no io_cpu over NVMe/RDMA or on this kernel" :
			"recorded before the cpu and io_cpu columns");
	if (b->total.busy_n)
		fprintf(f, "# in flight on the queue at submission, measured: mean %.1f, max %" PRId64
			" (of %" PRIu64 ")\n", b->total.busy_mean, b->total.busy_max, b->total.busy_n);
	if (b->total.where_known) {
		us(off, sizeof(off), b->total.off_delay_ns);
		us(on, sizeof(on), b->total.on_delay_ns);
		fprintf(f, "# sent off the queue's io_cpu: %.1f%% of %" PRIu64 ", send_us %s vs %s "
			"on it\n", 100.0 * (double)b->total.off_io_cpu / (double)b->total.where_known,
			b->total.where_known, off, on);
	}
}

static void row_json(struct ntp_json *j, const struct ntp_diag_by *b,
		     const struct ntp_diag_by_row *w)
{
	ntp_json__start_object(j);
	ntp_json__string_field(j, "name", w->name);
	ntp_json__name(j, "file");
	if (w->file)
		ntp_json__int(j, w->file);
	else
		ntp_json__null(j);
	ntp_json__string_field(j, "controller", w->ctrl[0] ? w->ctrl : NULL);
	ntp_json__name(j, "qid");
	if (w->qid >= 0)
		ntp_json__int(j, w->qid);
	else
		ntp_json__null(j);
	ntp_json__name(j, "pid");
	if (w->pid >= 0)
		ntp_json__int(j, w->pid);
	else
		ntp_json__null(j);
	ntp_json__string_field(j, "comm", w->pid >= 0 ? w->comm : NULL);
	ntp_json__name(j, "cpu");
	if (w->cpu >= 0)
		ntp_json__int(j, w->cpu);
	else
		ntp_json__null(j);
	ntp_json__uint_field(j, "n", w->n);
	ntp_json__double_field(j, "est_rate", w->rate >= 0 ? w->rate : NAN);
	ntp_json__double_field(j, "in_flight", w->inflight >= 0 ? w->inflight : NAN);
	ntp_json__name(j, "depth");
	if (w->depth > 0)
		ntp_json__int(j, w->depth);
	else
		ntp_json__null(j);
	ntp_json__double_field(j, "mean_ns", w->n ? w->mean_ns : NAN);
	ntp_json__name(j, "tail_ns");
	if (w->tail_ns >= 0)
		ntp_json__int(j, w->tail_ns);
	else
		ntp_json__null(j);
	ntp_json__uint_field(j, "errors", w->errors);
	ntp_json__uint_field(j, "deferred", w->deferred);
	ntp_json__double_field(j, "deferred_delay_ns", w->deferred_delay_ns);
	ntp_json__double_field(j, "queue_in_flight_mean", w->busy_mean);
	ntp_json__name(j, "queue_in_flight_max");
	if (w->busy_max >= 0)
		ntp_json__int(j, w->busy_max);
	else
		ntp_json__null(j);
	ntp_json__uint_field(j, "cpus_known", w->where_known);
	ntp_json__uint_field(j, "off_io_cpu", w->off_io_cpu);
	ntp_json__double_field(j, "off_io_cpu_delay_ns", w->off_delay_ns);
	ntp_json__double_field(j, "on_io_cpu_delay_ns", w->on_delay_ns);
	ntp_json__name(j, others_name(b));
	if (w->file && others_known(b))
		ntp_json__int(j, w->others);
	else
		ntp_json__null(j);
	ntp_json__end_object(j);
}

void ntp_diag_by__json(struct ntp_json *j, const struct ntp_diag_by *b)
{
	if (b->key == NTP_DIAG_BY_NONE) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "key", ntp_diag_by__def(b->key)->word);
	ntp_json__string_field(j, "tail_percentile", ntp_stats[b->tail_stat].name);
	ntp_json__bool_field(j, "processes_recorded", b->pid_recorded);
	ntp_json__bool_field(j, "cpus_recorded", b->cpu_recorded);
	ntp_json__bool_field(j, "io_cpus_recorded", b->io_cpu_recorded);
	ntp_json__name(j, "rows");
	ntp_json__start_array(j);
	for (size_t i = 0; i < b->n; i++)
		row_json(j, b, &b->rows[i]);
	ntp_json__end_array(j);
	ntp_json__name(j, "total");
	if (b->host)
		row_json(j, b, &b->total);
	else
		ntp_json__null(j);
	ntp_json__double_field(j, "rate_imbalance", b->rate_imbalance);
	ntp_json__double_field(j, "tail_imbalance", b->tail_imbalance);
	ntp_json__end_object(j);
}

static void row_html(FILE *f, const struct ntp_diag_by *b, const struct ntp_diag_by_row *w)
{
	char buf[32];

	fputs("<tr>", f);
	ntp_html__cell(f, w->name);
	snprintf(buf, sizeof(buf), "%" PRIu64, w->n);
	ntp_html__cell(f, buf);
	snprintf(buf, sizeof(buf), "%.0f", w->rate);
	w->rate >= 0 ? ntp_html__cell(f, buf) : ntp_html__none_cell(f);
	snprintf(buf, sizeof(buf), "%.1f", w->inflight);
	w->inflight >= 0 ? ntp_html__cell(f, buf) : ntp_html__none_cell(f);
	snprintf(buf, sizeof(buf), "%" PRId64, w->depth);
	w->depth > 0 ? ntp_html__cell(f, buf) : ntp_html__none_cell(f);
	ntp_html__us_cell(f, (int64_t)w->mean_ns);
	w->tail_ns >= 0 ? ntp_html__us_cell(f, w->tail_ns) : ntp_html__none_cell(f);
	snprintf(buf, sizeof(buf), "%" PRIu64, w->errors);
	ntp_html__cell(f, buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, w->deferred);
	ntp_html__cell(f, buf);
	fputs("</tr>\n", f);
	(void)b;
}

void ntp_diag_by__html(FILE *f, const struct ntp_diag_by *b)
{
	if (b->key == NTP_DIAG_BY_NONE || !b->host)
		return;
	fprintf(f, "<h2>By %s</h2>\n<table><tr><th class=\"l\">%s</th><th>n</th>"
		"<th>est_cmds/s</th><th>in flight</th><th>depth</th><th>mean</th><th>%s</th>"
		"<th>errors</th><th>deferred</th></tr>\n",
		ntp_diag_by__def(b->key)->word, ntp_diag_by__def(b->key)->word,
		ntp_stats[b->tail_stat].name);
	for (size_t i = 0; i < b->n; i++)
		row_html(f, b, &b->rows[i]);
	row_html(f, b, &b->total);
	fputs("</table>\n", f);
}
