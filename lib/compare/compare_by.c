// SPDX-License-Identifier: GPL-2.0
/* compare --by: the runs' rows per queue, process or CPU, paired (compare_by.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compare/compare_by.h"
#include "lib/compare/compare_present.h"
#include "lib/core/stat_table.h"
#include "lib/fmt/html.h"
#include "lib/fmt/json.h"

/* what pairs a row with the other run's (compare_by.h), as a string */
static void pair_key(char *buf, size_t len, enum ntp_diag_by_key key,
		     const struct ntp_diag_by *b, size_t i)
{
	const struct ntp_diag_by_row *w = &b->rows[i];
	int rank = 0;

	if (ntp_diag_by__def(key)->part == NTP_BY_PART_QUEUE) {
		snprintf(buf, len, "%d\n%s\n%" PRId64, w->file, w->ctrl, w->qid);
		return;
	}
	if (ntp_diag_by__def(key)->part == NTP_BY_PART_CPU ||
	    ntp_diag_by__def(key)->part == NTP_BY_PART_IO_CPU) {
		snprintf(buf, len, "%d\n%" PRId64, w->file, w->cpu);
		return;
	}
	if (w->pid < 0) {
		snprintf(buf, len, "%d\n", w->file);
		return;
	}
	/* the rows of a file are in the order of their pids */
	for (size_t k = 0; k < i; k++)
		rank += b->rows[k].file == w->file && b->rows[k].pid >= 0 &&
			!strcmp(b->rows[k].comm, w->comm);
	snprintf(buf, len, "%d\n%s\n%d", w->file, w->comm, rank);
}

/* a new pair, in neither run yet: pairs has room for both runs' rows */
static struct ntp_compare_by_pair *add(struct ntp_compare_by *cb)
{
	struct ntp_compare_by_pair *p = &cb->pairs[cb->n++];

	memset(p, 0, sizeof(*p));
	p->index[0] = p->index[1] = -1;
	return p;
}

int ntp_compare_by__make(struct ntp_compare_by *cb, const struct ntp_diag_by *base,
			 const struct ntp_diag_by *new_run)
{
	size_t cap = base->n + new_run->n;
	char ka[96], kb[96];
	bool *taken;

	memset(cb, 0, sizeof(*cb));
	cb->key = base->key;
	cb->run[0] = base;
	cb->run[1] = new_run;
	if (cb->key == NTP_DIAG_BY_NONE || !cap)
		return 0;
	cb->pairs = calloc(cap, sizeof(*cb->pairs));
	taken = calloc(new_run->n ? new_run->n : 1, sizeof(*taken));
	if (!cb->pairs || !taken) {
		free(taken);
		ntp_compare_by__free(cb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < base->n; i++) {
		struct ntp_compare_by_pair *p = add(cb);

		p->row[0] = &base->rows[i];
		p->index[0] = (long)i;
		pair_key(ka, sizeof(ka), cb->key, base, i);
		for (size_t k = 0; k < new_run->n; k++) {
			if (taken[k])
				continue;
			pair_key(kb, sizeof(kb), cb->key, new_run, k);
			if (!strcmp(ka, kb)) {
				taken[k] = true;
				p->row[1] = &new_run->rows[k];
				p->index[1] = (long)k;
				break;
			}
		}
		if (p->row[1] && strcmp(p->row[0]->name, p->row[1]->name))
			snprintf(p->name, sizeof(p->name), "%s / %s", p->row[0]->name,
				 p->row[1]->name);
		else
			snprintf(p->name, sizeof(p->name), "%s", p->row[0]->name);
	}
	for (size_t k = 0; k < new_run->n; k++) {
		struct ntp_compare_by_pair *p;

		if (taken[k])
			continue;
		p = add(cb);
		p->row[1] = &new_run->rows[k];
		p->index[1] = (long)k;
		snprintf(p->name, sizeof(p->name), "%s", p->row[1]->name);
	}
	free(taken);
	return 0;
}

void ntp_compare_by__free(struct ntp_compare_by *cb)
{
	free(cb->pairs);
	cb->pairs = NULL;
	cb->n = 0;
}

/* ---- text ------------------------------------------------------------------------------- */

static void num(char *buf, size_t len, const char *fmt, double v, bool known)
{
	if (known && !isnan(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}

/* the change of the tail, % of the baseline's: "-" without both */
static void change(char *buf, size_t len, const struct ntp_diag_by_row *a,
		   const struct ntp_diag_by_row *b)
{
	bool both = a && b && a->tail_ns > 0 && b->tail_ns >= 0;

	num(buf, len, "%+.1f", both ? 100.0 * (double)(b->tail_ns - a->tail_ns) /
	    (double)a->tail_ns : NAN, both);
}

static void row_text(FILE *f, const char *name, const struct ntp_diag_by_row *a,
		     const struct ntp_diag_by_row *b)
{
	const struct ntp_diag_by_row *w[2] = { a, b };
	char n[2][24], infl[2][24], mean[2][24], tail[2][24], depth[24], chg[24];

	for (int r = 0; r < 2; r++) {
		num(n[r], sizeof(n[r]), "%.0f", w[r] ? (double)w[r]->n : 0, w[r] != NULL);
		num(infl[r], sizeof(infl[r]), "%.1f", w[r] ? w[r]->inflight : 0,
		    w[r] && w[r]->inflight >= 0);
		num(mean[r], sizeof(mean[r]), "%.2f", w[r] ? w[r]->mean_ns / 1e3 : 0,
		    w[r] && w[r]->n);
		num(tail[r], sizeof(tail[r]), "%.2f", w[r] ? (double)w[r]->tail_ns / 1e3 : 0,
		    w[r] && w[r]->tail_ns >= 0);
	}
	/* the depth the new run states, else the baseline's */
	num(depth, sizeof(depth), "%.0f", b && b->depth > 0 ? (double)b->depth :
	    a ? (double)a->depth : 0, (b && b->depth > 0) || (a && a->depth > 0));
	change(chg, sizeof(chg), a, b);
	fprintf(f, "%-16s %6s %6s %7s %7s %5s %8s %8s %8s %8s %7s\n", name, n[0], n[1], infl[0],
		infl[1], depth, mean[0], mean[1], tail[0], tail[1], chg);
}

static void imbalance_text(FILE *f, const char *what, double a, double b)
{
	char x[24], y[24];

	num(x, sizeof(x), "%.2f", a, true);
	num(y, sizeof(y), "%.2f", b, true);
	fprintf(f, " %s %s -> %s", what, x, y);
}

/* the share of each run's commands sent off the queue's io_cpu, where recorded */
static void off_io_cpu_text(FILE *f, const struct ntp_compare_by *cb)
{
	char x[2][24];

	if (!cb->run[0]->total.where_known && !cb->run[1]->total.where_known)
		return;
	for (int r = 0; r < 2; r++) {
		const struct ntp_diag_by_row *t = &cb->run[r]->total;

		if (t->where_known)
			snprintf(x[r], sizeof(x[r]), "%.1f%%",
				 100.0 * (double)t->off_io_cpu / (double)t->where_known);
		else
			snprintf(x[r], sizeof(x[r]), "-");
	}
	fprintf(f, "# sent off the queue's io_cpu, baseline -> new: %s -> %s\n", x[0], x[1]);
}

void ntp_compare_by__text(FILE *f, const struct ntp_compare_by *cb)
{
	const char *key;
	char tail[24];

	if (cb->key == NTP_DIAG_BY_NONE)
		return;
	key = ntp_diag_by__def(cb->key)->word;
	snprintf(tail, sizeof(tail), "%s_us", ntp_stats[cb->run[0]->tail_stat].name);
	fprintf(f, "#\n# by %s (--by), baseline then new: in flight by Little's law, depth, "
		"end-to-end us\n", key);
	if (!cb->run[0]->host && !cb->run[1]->host) {
		fprintf(f, "# no host commands: a target recording alone has no host %ss\n", key);
		return;
	}
	fprintf(f, "# %-14s %6s %6s %7s %7s %5s %8s %8s %8s %8s %7s\n", key, "n", "new",
		"flight", "new", "depth", "mean_us", "new", tail, "new", "change%");
	for (size_t i = 0; i < cb->n; i++)
		row_text(f, cb->pairs[i].name, cb->pairs[i].row[0], cb->pairs[i].row[1]);
	row_text(f, "total", cb->run[0]->host ? &cb->run[0]->total : NULL,
		 cb->run[1]->host ? &cb->run[1]->total : NULL);
	fprintf(f, "# imbalance (largest over median), baseline -> new:");
	imbalance_text(f, "est_cmds/s", cb->run[0]->rate_imbalance, cb->run[1]->rate_imbalance);
	fputc(',', f);
	imbalance_text(f, ntp_stats[cb->run[0]->tail_stat].name, cb->run[0]->tail_imbalance, cb->run[1]->tail_imbalance);
	fputc('\n', f);
	if (ntp_diag_by__def(cb->key)->part == NTP_BY_PART_PROCESS &&
	    (!cb->run[0]->pid_recorded || !cb->run[1]->pid_recorded))
		fprintf(f, "# processes: not recorded in the %s (the application's side was off)\n",
			!cb->run[0]->pid_recorded && !cb->run[1]->pid_recorded ? "either run" :
			!cb->run[0]->pid_recorded ? "baseline" : "new run");
	off_io_cpu_text(f, cb);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void index_field(struct ntp_json *j, const char *name, long i)
{
	ntp_json__name(j, name);
	if (i >= 0)
		ntp_json__int(j, i);
	else
		ntp_json__null(j);
}

void ntp_compare_by__json(struct ntp_json *j, const struct ntp_compare_by *cb)
{
	if (cb->key == NTP_DIAG_BY_NONE) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "key", ntp_diag_by__def(cb->key)->word);
	ntp_json__name(j, "baseline");
	ntp_diag_by__json(j, cb->run[0]);
	ntp_json__name(j, "new");
	ntp_diag_by__json(j, cb->run[1]);
	ntp_json__name(j, "pairs");
	ntp_json__start_array(j);
	for (size_t i = 0; i < cb->n; i++) {
		const struct ntp_compare_by_pair *p = &cb->pairs[i];
		const struct ntp_diag_by_row *a = p->row[0], *b = p->row[1];
		bool both = a && b;

		ntp_json__start_object(j);
		ntp_json__string_field(j, "name", p->name);
		ntp_json__string_field(j, "present",
				       ntp_compare__present_str(ntp_compare__present(a, b)));
		index_field(j, "baseline", p->index[0]);
		index_field(j, "new", p->index[1]);
		ntp_json__double_field(j, "in_flight_delta", both && a->inflight >= 0 &&
				       b->inflight >= 0 ? b->inflight - a->inflight : NAN);
		ntp_json__double_field(j, "mean_delta_ns", both && a->n && b->n ?
				       b->mean_ns - a->mean_ns : NAN);
		ntp_json__name(j, "tail_delta_ns");
		if (both && a->tail_ns >= 0 && b->tail_ns >= 0)
			ntp_json__int(j, b->tail_ns - a->tail_ns);
		else
			ntp_json__null(j);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__end_object(j);
}

/* ---- HTML ------------------------------------------------------------------------------- */

static void cells_html(FILE *f, const struct ntp_diag_by_row *w)
{
	char buf[32];

	if (!w) {
		for (int i = 0; i < 4; i++)
			ntp_html__none_cell(f);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, w->n);
	ntp_html__cell(f, buf);
	snprintf(buf, sizeof(buf), "%.1f", w->inflight);
	w->inflight >= 0 ? ntp_html__cell(f, buf) : ntp_html__none_cell(f);
	w->n ? ntp_html__us_cell(f, (int64_t)w->mean_ns) : ntp_html__none_cell(f);
	w->tail_ns >= 0 ? ntp_html__us_cell(f, w->tail_ns) : ntp_html__none_cell(f);
}

void ntp_compare_by__html(FILE *f, const struct ntp_compare_by *cb)
{
	const char *key;
	const char *tail;

	if (cb->key == NTP_DIAG_BY_NONE || (!cb->run[0]->host && !cb->run[1]->host))
		return;
	key = ntp_diag_by__def(cb->key)->word;
	tail = ntp_stats[cb->run[0]->tail_stat].name;
	fprintf(f, "<h2>By %s</h2>\n<table><tr><th class=\"l\">%s</th><th>n</th><th>in flight</th>"
		"<th>mean</th><th>%s</th><th>n (new)</th><th>in flight (new)</th><th>mean (new)</th>"
		"<th>%s (new)</th></tr>\n", key, key, tail, tail);
	for (size_t i = 0; i <= cb->n; i++) {
		bool total = i == cb->n;

		fputs("<tr>", f);
		ntp_html__cell(f, total ? "total" : cb->pairs[i].name);
		cells_html(f, total ? (cb->run[0]->host ? &cb->run[0]->total : NULL) :
			   cb->pairs[i].row[0]);
		cells_html(f, total ? (cb->run[1]->host ? &cb->run[1]->total : NULL) :
			   cb->pairs[i].row[1]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}
