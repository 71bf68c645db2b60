// SPDX-License-Identifier: GPL-2.0
/* The kit of ntprof's pages (lib/fmt/html.h). */
#include "lib/fmt/html.h"
#include "lib/fmt/number.h"
#include "lib/fmt/xml.h"

/* one style sheet for every page: readable printed in grey, no web font */
static const char style[] =
	"body{font-family:'DejaVu Sans',Arial,sans-serif;margin:24px;color:#222;max-width:960px}"
	"h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
	"table{border-collapse:collapse;font-size:13px;margin:8px 0}"
	"td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}"
	"th{background:#f2f2f2}td.l,th.l{text-align:left}"
	".chart{display:block;margin:10px 0}.warn{color:#a00000}.note{color:#555;font-style:italic}"
	".dist .chart{display:inline-block;margin:4px 8px 4px 0;vertical-align:top}"
	"dt{font-weight:bold}dd{margin:0 0 6px 18px}"
	".foot{color:#777;font-size:12px}";

void ntp_html__begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
	ntp_xml__text(f, title);
	fprintf(f, "</title><style>%s</style></head><body>\n", style);
}

void ntp_html__end(FILE *f, const char *version, const char *page)
{
	fputs("<p class=\"foot\">Written by ntprof ", f);
	ntp_xml__text(f, version);
	fputs(" (", f);
	ntp_xml__text(f, page);
	fputs(").</p>\n</body></html>\n", f);
}

void ntp_html__cell(FILE *f, const char *s)
{
	fputs("<td class=\"l\">", f);
	ntp_xml__text(f, s);
	fputs("</td>", f);
}

void ntp_html__us_cell(FILE *f, int64_t ns)
{
	char buf[40];

	ntp_num__us(buf, sizeof(buf), ns, 2);
	fprintf(f, "<td>%s</td>", buf);
}

void ntp_html__none_cell(FILE *f)
{
	fputs("<td>-</td>", f);
}
