/* SPDX-License-Identifier: GPL-2.0 */
/* The HTML form of a comparison (ntprof-compare(1), --html): one page, its charts inline SVG. */
#ifndef NTP_COMPARE_HTML_H
#define NTP_COMPARE_HTML_H

#include <stdio.h>

#include "lib/compare/compare_model.h"

/* 0 or an NTP_EXIT_* code */
int ntp_compare__print_html(const struct ntp_compare *c, FILE *f, const struct ntp_compare_opts *o);

#endif
