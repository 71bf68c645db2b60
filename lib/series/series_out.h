/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The printers of a series (ntprof-series(1), OUTPUT): text, JSON, CSV and
 * HTML.  Each is a struct ntp_series_out over a FILE; the points reach them
 * as each interval ends, so nothing of the series is held to print it, but
 * by the page, whose charts need every point.
 */
#ifndef NTP_SERIES_OUT_H
#define NTP_SERIES_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/series/series_model.h"

struct ntp_json;

struct ntp_series_text {
	FILE *f;
	bool quiet;                   /* -q: no header block, no last line */
	int ncols;
	struct ntp_col *cols;         /* built by begin from the view's stages */
	char **names;
};

struct ntp_series_json {
	FILE *f;
	bool pretty;
	struct ntp_json *j;
};

struct ntp_series_csv {
	FILE *f;
};

struct line_group;
struct ntp_series_html {
	FILE *f;
	int nstages;
	struct line_group *groups;    /* every point of each group, for the charts */
	size_t ngroups;
};

struct ntp_series_out ntp_series__text_out(struct ntp_series_text *t, FILE *f, bool quiet);
void ntp_series__text_free(struct ntp_series_text *t);
struct ntp_series_out ntp_series__json_out(struct ntp_series_json *t, FILE *f, bool pretty);
void ntp_series__json_free(struct ntp_series_json *t);
struct ntp_series_out ntp_series__csv_out(struct ntp_series_csv *t, FILE *f);
/* the page: it holds the points until the end, when the charts' axes are known */
struct ntp_series_out ntp_series__html_out(struct ntp_series_html *h, FILE *f);
void ntp_series__html_free(struct ntp_series_html *h);

#endif
