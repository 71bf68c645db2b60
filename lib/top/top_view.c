// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof top's screen (lib/top/top_view.h):
 *
 *	ntprof top  12.0s  every 1.0s  x10  interval 11.0,12.0  sort: share  run.ntp
 *	4 groups  1234 commands
 *	                                                                  host                   target
 *	group                       n   cmds/s  time%   mean us    p99 us   block  driver network  driver storage   app us
 *	read 4KiB nvme0n1         154    15.5k  60.1%     73.40     80.73      1%      2%    98%*
 *	...
 *	keys: s share  p p99  m mean  n commands  g group  t interval/whole run  space pause  q quit
 *
 * The numbers are those of record's live lines; cmds/s is over the span
 * shown (the interval, or the whole run so far).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/safe_text.h"
#include "lib/top/top_view.h"

static const char *const sort_names[] = {
	[NTP_TOP_SORT_SHARE] = "share",
	[NTP_TOP_SORT_P99] = "p99",
	[NTP_TOP_SORT_MEAN] = "mean",
	[NTP_TOP_SORT_N] = "commands",
	[NTP_TOP_SORT_GROUP] = "group",
};

/* the rows' key, the first column's title */
static const char *const by_names[] = {
	[NTP_LIVE_BY_GROUP] = "group",
	[NTP_LIVE_BY_QUEUE] = "queue",
	[NTP_LIVE_BY_PROCESS] = "process",
	[NTP_LIVE_BY_CPU] = "cpu",
	[NTP_LIVE_BY_IO_CPU] = "io_cpu",
};

/* the columns: name and width (negative: left-aligned) */
enum { F_GROUP, F_N, F_RATE, F_SHARE, F_MEAN, F_P99, F_STAGE0, F_APP = F_STAGE0 + NTP_LIVE_NSTAGES,
       NFIELDS };
static const struct { const char *name; int width; } fields[NFIELDS] = {
	[F_GROUP] = { "group", -22 },
	[F_N] = { "n", 8 },
	[F_RATE] = { "cmds/s", 8 },
	[F_SHARE] = { "time%", 6 },
	[F_MEAN] = { "mean us", 9 },
	[F_P99] = { "p99 us", 9 },
	[F_STAGE0 + 0] = { "block", 7 },
	[F_STAGE0 + 1] = { "driver", 7 },
	[F_STAGE0 + 2] = { "network", 7 },
	[F_STAGE0 + 3] = { "driver", 7 },
	[F_STAGE0 + 4] = { "storage", 7 },
	[F_APP] = { "app us", 9 },
};

/* seconds with as many decimals as they have, up to the ms, at least one: 1.0, 2.25 */
static void seconds(char *buf, size_t len, double s)
{
	size_t n;

	snprintf(buf, len, "%.3f", s < 0 ? 0 : s);
	n = strlen(buf);
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
}

/* the field of each cell of a row */
static const int field_of[NTP_LIVE_NCELLS] = {
	[NTP_LIVE_CELL_GROUP] = F_GROUP,
	[NTP_LIVE_CELL_N] = F_N,
	[NTP_LIVE_CELL_RATE] = F_RATE,
	[NTP_LIVE_CELL_MEAN] = F_MEAN,
	[NTP_LIVE_CELL_P99] = F_P99,
	[NTP_LIVE_CELL_STAGE0 + 0] = F_STAGE0 + 0,
	[NTP_LIVE_CELL_STAGE0 + 1] = F_STAGE0 + 1,
	[NTP_LIVE_CELL_STAGE0 + 2] = F_STAGE0 + 2,
	[NTP_LIVE_CELL_STAGE0 + 3] = F_STAGE0 + 3,
	[NTP_LIVE_CELL_STAGE0 + 4] = F_STAGE0 + 4,
	[NTP_LIVE_CELL_APP] = F_APP,
};

static void put(char *line, size_t len, int i, const char *s)
{
	size_t at = strlen(line);

	snprintf(line + at, len - at, "%s%*s", i == 0 ? "" : " ", fields[i].width, s);
}

static void frame_free(struct ntp_top_frame *f)
{
	free(f->rows);
	free(f->all);
	memset(f, 0, sizeof(*f));
}

void ntp_top_view__free(struct ntp_top_view *v)
{
	frame_free(&v->shown);
	frame_free(&v->latest);
	v->have_latest = false;
}

int ntp_top_view__tick(struct ntp_top_view *v, struct ntp_live *l, double elapsed_s,
		       double interval_s)
{
	struct ntp_top_frame f = { .elapsed_s = elapsed_s, .span_s = interval_s };
	int err;

	err = ntp_live__rows(l, false, interval_s, &f.rows, &f.nrows);
	err = err ?: ntp_live__rows(l, true, elapsed_s, &f.all, &f.nall);
	ntp_live__next(l);
	if (err) {
		frame_free(&f);
		return err;
	}
	if (v->paused) {
		frame_free(&v->latest);
		v->latest = f;
		v->have_latest = true;
		v->missed++;
	} else {
		frame_free(&v->shown);
		v->shown = f;
	}
	ntp_top_view__draw(v);
	return 0;
}

/* the end of a pause: the latest frame taken meanwhile shown */
static void resume(struct ntp_top_view *v)
{
	v->paused = false;
	v->missed = 0;
	if (!v->have_latest)
		return;
	frame_free(&v->shown);
	v->shown = v->latest;
	memset(&v->latest, 0, sizeof(v->latest));
	v->have_latest = false;
}

bool ntp_top_view__key(struct ntp_top_view *v, int key)
{
	switch (key) {
	case 'q':
		return true;
	case 's':
		v->sort = NTP_TOP_SORT_SHARE;
		break;
	case 'p':
		v->sort = NTP_TOP_SORT_P99;
		break;
	case 'm':
		v->sort = NTP_TOP_SORT_MEAN;
		break;
	case 'n':
		v->sort = NTP_TOP_SORT_N;
		break;
	case 'g':
		v->sort = NTP_TOP_SORT_GROUP;
		break;
	case 't':
		v->total = !v->total;
		break;
	case ' ':
		if (v->paused)
			resume(v);
		else
			v->paused = true;
		break;
	default:
		return false;   /* ignored, nothing redrawn */
	}
	ntp_top_view__draw(v);
	return false;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a < b) - (a > b);       /* largest first */
}

/* by the key, largest first; ties (and g) in the report's order, which is the rows' */
static int cmp_row(const void *a, const void *b, void *key)
{
	const struct ntp_live_row *x = *(const struct ntp_live_row *const *)a;
	const struct ntp_live_row *y = *(const struct ntp_live_row *const *)b;
	int c = 0;

	switch (*(const enum ntp_top_sort *)key) {
	case NTP_TOP_SORT_SHARE:
		c = cmp_i64(x->sum_e2e, y->sum_e2e);
		break;
	case NTP_TOP_SORT_P99:
		c = cmp_i64(x->p99_ns, y->p99_ns);
		break;
	case NTP_TOP_SORT_MEAN:
		c = cmp_i64(x->mean_ns, y->mean_ns);
		break;
	case NTP_TOP_SORT_N:
		c = cmp_i64((int64_t)x->n, (int64_t)y->n);
		break;
	case NTP_TOP_SORT_GROUP:
		break;
	}
	return c ? c : (x > y) - (x < y);
}

static void row_line(const struct ntp_top_view *v, const struct ntp_live_row *r, int64_t all_e2e,
		     bool app, char *line, size_t len)
{
	char buf[64];

	line[0] = '\0';
	for (int c = NTP_LIVE_CELL_GROUP; c < NTP_LIVE_NCELLS; c++) {
		if (c == NTP_LIVE_CELL_APP && !app)
			break;
		ntp_live_row__cell(r, v->mode, (enum ntp_live_cell)c, buf, sizeof(buf));
		/* names from a recording (a namespace, a device, a process) on their way to a terminal */
		if (c == NTP_LIVE_CELL_GROUP)
			ntp_safe__clean_line(buf);
		put(line, len, field_of[c], buf);
		/* top's own column: the row's share of all rows' summed end-to-end */
		if (c == NTP_LIVE_CELL_RATE) {
			if (all_e2e > 0)
				snprintf(buf, sizeof(buf), "%.1f%%",
					 100.0 * (double)r->sum_e2e / (double)all_e2e);
			else
				snprintf(buf, sizeof(buf), "-");
			put(line, len, F_SHARE, buf);
		}
	}
}

static void header_lines(const struct ntp_top_view *v, bool app, char *labels, char *names,
			 size_t len)
{
	size_t at = 0, start[NFIELDS];

	for (int i = 0; i < NFIELDS; i++) {
		at += i ? 1 : 0;
		start[i] = at;
		at += (size_t)abs(fields[i].width);
	}
	if (at >= len)
		at = len - 1;
	memset(labels, ' ', at);
	labels[at] = '\0';
	memcpy(labels + start[F_STAGE0] + 11, "host", 4);
	memcpy(labels + start[F_STAGE0 + 3] + 4, "target", 6);
	if (v->mode == NTP_LIVE_TARGET)
		memcpy(labels + start[F_MEAN] + 5, "residence", 9);
	names[0] = '\0';
	for (int i = 0; i < NFIELDS; i++)
		if (i != F_APP || app)
			put(names, len, i, i == F_GROUP ? by_names[v->by] : fields[i].name);
}

void ntp_top_view__draw(struct ntp_top_view *v)
{
	const struct ntp_top_frame *f = &v->shown;
	const struct ntp_live_row *rows = v->total ? f->all : f->rows;
	size_t n = v->total ? f->nall : f->nrows;
	const struct ntp_live_row **order = n ? calloc(n, sizeof(*order)) : NULL;
	char line[512], labels[256], names[256], speed[32] = "", span[64], from[24], to[24];
	char paused[48] = "";
	uint64_t cmds = 0;
	int64_t all_e2e = 0;
	bool app = false;
	int row = 0;

	for (size_t i = 0; i < n; i++) {
		cmds += rows[i].n;
		all_e2e += rows[i].sum_e2e;
		app |= rows[i].n_app > 0;
		if (order)
			order[i] = &rows[i];
	}
	if (!order)
		n = 0;
	if (n)
		qsort_r(order, n, sizeof(*order), cmp_row, &v->sort);

	ntp_top_screen__home(v->scr);
	if (v->speed > 0)
		snprintf(speed, sizeof(speed), "  x%g", v->speed);
	/* the interval shown as report's --time takes it: START,END in seconds */
	seconds(from, sizeof(from), f->elapsed_s - f->span_s);
	seconds(to, sizeof(to), f->elapsed_s);
	if (v->paused && v->missed)
		snprintf(paused, sizeof(paused), "  [paused]  %lu new", v->missed);
	else if (v->paused)
		snprintf(paused, sizeof(paused), "  [paused]");
	if (v->total)
		snprintf(span, sizeof(span), "whole run");
	else
		snprintf(span, sizeof(span), "interval %s,%s", from, to);
	/* the source last: a long path is what the width cuts */
	snprintf(line, sizeof(line), "ntprof top  %.1fs  every %.1fs%s  %s  sort: %s%s%s  %s",
		 f->elapsed_s, v->interval_s, speed, span, sort_names[v->sort], paused,
		 v->ended ? "  [end of recording]" : "", v->source);
	ntp_safe__clean_line(line);     /* the path as given */
	ntp_top_screen__line(v->scr, &row, true, line);
	snprintf(line, sizeof(line), "%zu groups  %llu commands", n, (unsigned long long)cmds);
	ntp_top_screen__line(v->scr, &row, false, line);
	ntp_top_screen__line(v->scr, &row, false, "");
	header_lines(v, app, labels, names, sizeof(names));
	ntp_top_screen__line(v->scr, &row, false, labels);
	ntp_top_screen__line(v->scr, &row, true, names);
	/* the last row of the screen is the keys' */
	for (size_t i = 0; i < n && row < v->scr->rows - 1; i++) {
		row_line(v, order[i], all_e2e, app, line, sizeof(line));
		ntp_top_screen__line(v->scr, &row, false, line);
	}
	while (row < v->scr->rows - 1)
		ntp_top_screen__line(v->scr, &row, false, "");
	ntp_top_screen__line(v->scr, &row, false,
			     "keys: s share  p p99  m mean  n commands  g group  t interval/whole run"
			     "  space pause  q quit");
	ntp_top_screen__end(v->scr);
	free(order);
}
