/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pages ntprof writes (report, compare and series --html): one
 * self-contained HTML file each, with one style sheet, its charts inline
 * SVG (lib/fmt/svg_chart.h), no script.  The kit every page is made of: its
 * frame (head, style, title, the footer naming the writer) and its table
 * cells, text escaped (lib/fmt/xml.h).
 */
#ifndef NTP_HTML_H
#define NTP_HTML_H

#include <stdint.h>
#include <stdio.h>

/* the page's start: doctype, head with the style sheet and title, body */
void ntp_html__begin(FILE *f, const char *title);
/* the page's end: "Written by ntprof VERSION (PAGE)." and the closing tags */
void ntp_html__end(FILE *f, const char *version, const char *page);

/* a cell of text, escaped, left-aligned */
void ntp_html__cell(FILE *f, const char *s);
/* a cell of a latency in ns, shown in us with two decimals (lib/fmt/number.h's rule) */
void ntp_html__us_cell(FILE *f, int64_t ns);
/* a cell without a value: "-" */
void ntp_html__none_cell(FILE *f);

#endif
