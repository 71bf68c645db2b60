/* SPDX-License-Identifier: GPL-2.0 */
/* The HTML form of every report (ntprof-report(1), --html): one page, its charts inline SVG. */
#ifndef NTP_REPORT_HTML_H
#define NTP_REPORT_HTML_H

#include <stdio.h>

#include "lib/diag/diag.h"
#include "lib/model/model.h"
#include "lib/report/report_opts.h"

/* 0 or an NTP_EXIT_* code */
int ntp_report__print_html(const struct ntp_report *r, const struct ntp_diag *d, FILE *f,
			  const struct ntp_report_opts *o);

#endif
