/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text form of a recording alone (ntprof-report(1), OUTPUT), and the
 * header lines of one recording, which every text report prints.
 */
#ifndef NTP_REPORT_TEXT_H
#define NTP_REPORT_TEXT_H

#include <stdio.h>

#include "lib/report/report_opts.h"
#include "lib/report/report_model.h"

/* 0 or an NTP_EXIT_* code */
int ntp_report__print_text(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o);

/* the header lines of one recording, with a prefix for each line */
void ntp_report__print_file_header(const struct ntp_report_header *h, FILE *f, const char *indent);

#endif
