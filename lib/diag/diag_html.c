// SPDX-License-Identifier: GPL-2.0
/* The diagnosis as a table of report's and compare's pages (ntprof-report(1), DIAGNOSIS). */
#include <stdio.h>

#include "lib/diag/diag.h"
#include "lib/fmt/html.h"

static void row(FILE *f, const struct ntp_diag_line *l)
{
	char label[160], ev[256], share[64];
	const struct ntp_diag_verdict *v = &l->v;

	ntp_diag__label(l, label, sizeof(label));
	ntp_diag__evidence_text(l, ev, sizeof(ev));
	fputs("<tr>", f);
	ntp_html__cell(f, label);
	if (v->cause != NTP_DIAG_INSUFFICIENT && v->tail_stage >= 0) {
		snprintf(share, sizeof(share), "%.0f%%", v->tail_pct);
		ntp_html__cell(f, ntp_diag__stage_label(l, v->tail_stage));
		ntp_html__cell(f, share);
	} else {
		ntp_html__none_cell(f);
		ntp_html__none_cell(f);
	}
	if (v->cause != NTP_DIAG_INSUFFICIENT && v->mean_stage >= 0) {
		snprintf(share, sizeof(share), "%.0f%%", v->mean_pct);
		ntp_html__cell(f, ntp_diag__stage_label(l, v->mean_stage));
		ntp_html__cell(f, share);
	} else {
		ntp_html__none_cell(f);
		ntp_html__none_cell(f);
	}
	ntp_html__cell(f, ntp_diag__cause_text(l));
	ntp_html__cell(f, ev);
	fputs("</tr>\n", f);
}

void ntp_diag__html(FILE *f, const struct ntp_diag *d, const char *title)
{
	fprintf(f, "<h2>%s</h2>\n<table><tr><th class=\"l\">group</th><th class=\"l\">stage of "
		"the tail</th><th>share</th><th class=\"l\">stage of the mean</th><th>share</th>"
		"<th class=\"l\">cause</th><th class=\"l\">evidence</th></tr>\n", title);
	row(f, &d->all);
	for (size_t i = 0; i < d->ngroups; i++) {
		struct ntp_diag_line l;

		ntp_diag__group(d, i, &l);
		row(f, &l);
	}
	fputs("</table>\n", f);
}
