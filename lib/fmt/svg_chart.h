/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Charts as inline SVG, for the HTML pages of report and compare: written
 * by ntprof itself, no plotting library at run time, no script in the page.
 * Each chart has a title, axes with units and a legend; its colours run from
 * dark to light (a viridis-like ramp), so that the series stay apart when
 * the page is printed in grey, and every bar can be read from its label or
 * its tooltip (<title>) as well as from its colour.
 */
#ifndef NTP_SVG_CHART_H
#define NTP_SVG_CHART_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Horizontal bars, one row per label: stacked, the row's values end to end
 * (where the time of one command goes); else side by side within the row,
 * one thin bar per series.  v[row * nseries + s], in the unit's scale (the
 * caller divides whole ns by 1000 for us): the labels read them back as
 * whole thousandths and round them as lib/fmt/number.h says; NaN draws no
 * bar (a value the report shows as "-").
 */
struct ntp_hbar_chart {
	const char *title;
	const char *unit;                 /* of the axis, e.g. "us" */
	int nrows, nseries;
	const char *const *rows;          /* nrows labels */
	const char *const *series;        /* nseries legend names */
	const double *v;
	bool stacked;
	int ncolours;                     /* the palette's size (NTP_SVG_PALETTE); 0: nseries */
	const char *none;                 /* said in a row of NaN alone ("too few..."); NULL: none */
};

/*
 * Vertical bars over consecutive buckets: a latency distribution.  labels
 * name the buckets on the x axis (e.g. "64", "128" us: their lower bounds).
 */
struct ntp_column_chart {
	const char *title;
	const char *x_unit, *y_unit;      /* "us", "commands" */
	int n;
	const char *const *labels;
	const double *v;
};

/* lines over x: a time series, v[s * n + i] at x[i]; NaN leaves a gap */
struct ntp_line_chart {
	const char *title;
	const char *x_unit, *y_unit;      /* "s", "us" */
	int n, nseries;
	const double *x;
	const char *const *series;
	const double *v;
	int ncolours;                     /* the palette's size (NTP_SVG_PALETTE); 0: nseries */
};

/*
 * Series s of a chart is colour s of a ramp of ncolours: the charts of one
 * page that show the stages with and without the end-to-end give both the
 * same ncolours (the stages and the end-to-end), so that a stage keeps its
 * colour from chart to chart.
 */

void ntp_svg__hbars(FILE *f, const struct ntp_hbar_chart *c);
void ntp_svg__columns(FILE *f, const struct ntp_column_chart *c);
void ntp_svg__lines(FILE *f, const struct ntp_line_chart *c);

#endif
