/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON form of a jreport (ntprof-report(1), OUTPUT).
 */
#ifndef NTP_REPORT_JJSON_H
#define NTP_REPORT_JJSON_H

#include <stdio.h>

#include "lib/report/report_model.h"
#include "lib/report/report_opts.h"

/* 0 or an NTP_EXIT_* code */
int ntp_jreport__print_json(const struct ntp_jreport *r, FILE *f, const struct ntp_report_opts *o);

#endif
