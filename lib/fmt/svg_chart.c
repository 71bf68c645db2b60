// SPDX-License-Identifier: GPL-2.0
/* Charts as inline SVG (lib/fmt/svg_chart.h). */
#include <math.h>
#include <string.h>

#include "lib/fmt/number.h"
#include "lib/fmt/svg_chart.h"
#include "lib/fmt/xml.h"

#define WIDTH     900
#define MIN_WIDTH 420       /* a narrow chart: room for its title */
#define TITLE_H   28
#define LEGEND_H  22
#define AXIS_H    40
#define FONT      "font-family=\"DejaVu Sans, Arial, sans-serif\""

/*
 * Nine steps of a dark-to-light ramp (viridis): the lightness grows with
 * the index, so neighbours differ in grey too.  Fewer series spread over it.
 */
static const char *const ramp[] = {
	"#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c",
	"#28ae80", "#5ec962", "#addc30", "#fde725",
};
#define NRAMP ((int)(sizeof(ramp) / sizeof(ramp[0])))

static int ramp_index(int i, int n)
{
	if (n <= 1)
		return NRAMP / 2;
	if (n > NRAMP)
		return i % NRAMP;
	return i * (NRAMP - 1) / (n - 1);
}

/* series i of n's colour, "#rrggbb", and the text colour that reads on it */
static const char *colour(int i, int n)
{
	return ramp[ramp_index(i, n)];
}

static const char *ink(int i, int n)
{
	/* white on the dark half of the ramp, black on the light */
	return ramp_index(i, n) < NRAMP / 2 + 1 ? "#ffffff" : "#000000";
}

/* a step of 1, 2 or 5 x 10^k that cuts [0, max] into about want parts */
static double nice_step(double max, int want)
{
	double raw, p, m;

	if (!(max > 0) || !isfinite(max))
		return 1;
	raw = max / want;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	m = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
	return m * p;
}

static double axis_max(double max, double step)
{
	double top = ceil(max / step) * step;

	return top > 0 ? top : step;
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra,
		 const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s font-size=\"12\"%s%s>", x, y,
		anchor, FONT, extra ? " " : "", extra ? extra : "");
	ntp_xml__text(f, s);
	fputs("</text>\n", f);
}

static void num_text(FILE *f, double x, double y, const char *anchor, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%g", v);
	text(f, x, y, anchor, NULL, buf);
}

static void title(FILE *f, const char *t)
{
	fprintf(f, "<text x=\"10\" y=\"18\" %s font-size=\"15\" font-weight=\"bold\">", FONT);
	ntp_xml__text(f, t);
	fputs("</text>\n", f);
}

/*
 * The series' names in rows under the title, from y; returns the top of its
 * last row.  Without f it only measures, for the chart's height.
 */
/* the ramp a chart's series take their colours from */
static int palette(int ncolours, int nseries)
{
	return ncolours > nseries ? ncolours : nseries;
}

static int legend(FILE *f, const char *const *names, int n, int ncolours, int y)
{
	double x = 10;

	for (int s = 0; s < n; s++) {
		double w = 24 + 7.0 * (double)strlen(names[s]);

		if (x + w > WIDTH - 10) {
			x = 10;
			y += LEGEND_H - 4;
		}
		if (!f) {
			x += w + 12;
			continue;
		}
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" "
			"stroke=\"#333\" stroke-width=\"0.5\"/>\n", x, y,
			colour(s, palette(ncolours, n)));
		text(f, x + 16, y + 10, "start", NULL, names[s]);
		x += w + 12;
	}
	return y;
}

/* a vertical grid line and its value at each step of [0, top] over [x0, x0 + w] */
static void x_axis(FILE *f, double x0, double w, double y0, double y1, double top, double step,
		   const char *unit)
{
	for (double v = 0; v <= top * (1 + 1e-9); v += step) {
		double x = x0 + w * v / top;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			x, y0, x, y1);
		num_text(f, x, y1 + 14, "middle", v);
	}
	text(f, x0 + w / 2, y1 + 32, "middle", NULL, unit);
}

static void svg_open(FILE *f, int w, int h, const char *t)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h, w, h);
	fputs("<title>", f);
	ntp_xml__text(f, t);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", f);
	title(f, t);
}

static bool row_empty(const struct ntp_hbar_chart *c, int r)
{
	for (int s = 0; s < c->nseries; s++)
		if (!isnan(c->v[r * c->nseries + s]))
			return false;
	return true;
}

void ntp_svg__hbars(FILE *f, const struct ntp_hbar_chart *c)
{
	const double left = 250, right = 30;
	double plot_w = WIDTH - left - right, max = 0, top, step;
	int row_h = c->stacked ? 24 : 6 + 10 * c->nseries;
	int colours = palette(c->ncolours, c->nseries);
	int legend_end, y0, h;

	for (int r = 0; r < c->nrows; r++) {
		double sum = 0;

		for (int s = 0; s < c->nseries; s++) {
			double v = c->v[r * c->nseries + s];

			v = v > 0 && isfinite(v) ? v : 0;
			sum = c->stacked ? sum + v : (v > sum ? v : sum);
		}
		max = sum > max ? sum : max;
	}
	step = nice_step(max, 6);
	top = axis_max(max, step);
	legend_end = legend(NULL, c->series, c->nseries, c->ncolours, TITLE_H + 8);
	y0 = legend_end + LEGEND_H;
	h = y0 + c->nrows * row_h + AXIS_H;
	svg_open(f, WIDTH, h, c->title);
	legend(f, c->series, c->nseries, c->ncolours, TITLE_H + 8);
	x_axis(f, left, plot_w, y0 - 4, y0 + c->nrows * row_h, top, step, c->unit);
	for (int r = 0; r < c->nrows; r++) {
		double y = y0 + r * row_h, x = left;

		text(f, left - 8, y + row_h / 2.0 + 4, "end", NULL, c->rows[r]);
		if (c->none && row_empty(c, r))
			text(f, left + 6, y + row_h / 2.0 + 4, "start", "fill=\"#777\"", c->none);
		for (int s = 0; s < c->nseries; s++) {
			double v = c->v[r * c->nseries + s], w;
			char num[32];

			/* no value (NaN: too few commands for it): no bar, no tooltip */
			if (isnan(v))
				continue;
			v = v > 0 && isfinite(v) ? v : 0;
			w = plot_w * v / top;
			if (c->stacked)
				fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
					"fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\">", x, y + 3, w,
					row_h - 6, colour(s, colours));
			else
				fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"9\" "
					"fill=\"%s\">", left, (int)y + 3 + 10 * s, w,
					colour(s, colours));
			fputs("<title>", f);
			ntp_xml__text(f, c->rows[r]);
			fputs(": ", f);
			ntp_xml__text(f, c->series[s]);
			ntp_num__us(num, sizeof(num), llround(v * 1000.0), 2);
			fprintf(f, " %s %s</title></rect>\n", num, c->unit);
			/* a label inside a stacked segment wide enough to hold it */
			if (c->stacked && w > 44) {
				char buf[32];
				char fill[24];

				ntp_num__us(buf, sizeof(buf), llround(v * 1000.0), 1);
				snprintf(fill, sizeof(fill), "fill=\"%s\"", ink(s, colours));
				text(f, x + w / 2, y + row_h / 2.0 + 4, "middle", fill, buf);
			}
			x += c->stacked ? w : 0;
		}
	}
	fputs("</svg>\n", f);
}

void ntp_svg__columns(FILE *f, const struct ntp_column_chart *c)
{
	const double left = 70, right = 20, plot_h = 150, max_bw = 48;
	double plot_w = WIDTH - left - right, max = 0, top, step, bw;
	double y0 = TITLE_H + 16, y1 = y0 + plot_h;
	int h = (int)y1 + 70, w;

	for (int i = 0; i < c->n; i++)
		max = c->v[i] > max ? c->v[i] : max;
	step = nice_step(max, 5);
	top = axis_max(max, step);
	/* a few buckets stay bars, not walls: the chart ends where the last one does */
	bw = c->n ? plot_w / c->n : plot_w;
	if (bw > max_bw) {
		bw = max_bw;
		plot_w = bw * c->n;
	}
	w = (int)(left + plot_w + right);
	svg_open(f, w < MIN_WIDTH ? MIN_WIDTH : w, h, c->title);
	for (double v = 0; v <= top * (1 + 1e-9); v += step) {
		double y = y1 - plot_h * v / top;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			left, y, left + plot_w, y);
		num_text(f, left - 6, y + 4, "end", v);
	}
	{
		char rot[64];

		snprintf(rot, sizeof(rot), "transform=\"rotate(-90 14 %.1f)\"", y0 + plot_h / 2);
		text(f, 14, y0 + plot_h / 2, "middle", rot, c->y_unit);
	}
	for (int i = 0; i < c->n; i++) {
		double hgt = plot_h * c->v[i] / top, x = left + i * bw;
		char rot[64];

		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			"<title>", x + 1, y1 - hgt, bw > 3 ? bw - 2 : bw, hgt, colour(2, 9));
		ntp_xml__text(f, c->labels[i]);
		fprintf(f, " %s: %.0f %s</title></rect>\n", c->x_unit, c->v[i], c->y_unit);
		snprintf(rot, sizeof(rot), "transform=\"rotate(-45 %.1f %.1f)\"", x + bw / 2, y1 + 12);
		text(f, x + bw / 2, y1 + 12, "end", rot, c->labels[i]);
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		left, y1, left + plot_w, y1);
	text(f, left + plot_w / 2, y1 + 62, "middle", NULL, c->x_unit);
	fputs("</svg>\n", f);
}

void ntp_svg__lines(FILE *f, const struct ntp_line_chart *c)
{
	const double left = 70, right = 20, plot_h = 220;
	double plot_w = WIDTH - left - right, xmax = 0, ymax = 0, ytop, ystep, xtop, xstep;
	int legend_end = legend(NULL, c->series, c->nseries, c->ncolours, TITLE_H + 8), h;
	double y0, y1;

	y0 = legend_end + LEGEND_H + 6;
	y1 = y0 + plot_h;
	h = (int)y1 + AXIS_H + 6;
	for (int i = 0; i < c->n; i++)
		xmax = c->x[i] > xmax ? c->x[i] : xmax;
	for (int k = 0; k < c->n * c->nseries; k++)
		if (isfinite(c->v[k]) && c->v[k] > ymax)
			ymax = c->v[k];
	xstep = nice_step(xmax, 8);
	xtop = axis_max(xmax, xstep);
	ystep = nice_step(ymax, 5);
	ytop = axis_max(ymax, ystep);
	svg_open(f, WIDTH, h, c->title);
	legend(f, c->series, c->nseries, c->ncolours, TITLE_H + 8);
	for (double v = 0; v <= ytop * (1 + 1e-9); v += ystep) {
		double y = y1 - plot_h * v / ytop;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			left, y, left + plot_w, y);
		num_text(f, left - 6, y + 4, "end", v);
	}
	{
		char rot[64];

		snprintf(rot, sizeof(rot), "transform=\"rotate(-90 14 %.1f)\"", y0 + plot_h / 2);
		text(f, 14, y0 + plot_h / 2, "middle", rot, c->y_unit);
	}
	x_axis(f, left, plot_w, y0, y1, xtop, xstep, c->x_unit);
	for (int s = 0; s < c->nseries; s++) {
		bool open = false;

		for (int i = 0; i < c->n; i++) {
			double v = c->v[s * c->n + i];

			if (!isfinite(v)) {
				if (open)
					fputs("\"/>\n", f);
				open = false;
				continue;
			}
			if (!open)
				fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
					"points=\"",
					colour(s, palette(c->ncolours, c->nseries)));
			open = true;
			fprintf(f, "%.1f,%.1f ", left + plot_w * c->x[i] / xtop,
				y1 - plot_h * v / ytop);
		}
		if (open)
			fputs("\"/>\n", f);
	}
	fputs("</svg>\n", f);
}
