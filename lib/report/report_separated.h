/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report -t SEP: the report in long ("tidy") form, for pandas, DuckDB and
 * awk: a header row, then one row per group, stage and statistic, every
 * key in every row (ntprof-report(1), "Separated fields").
 */
#ifndef NTP_REPORT_SEPARATED_H
#define NTP_REPORT_SEPARATED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/model/model.h"
#include "lib/report/report_opts.h"

/* the columns of a row; the statistics are named as the JSON names them */
#define NTP_REPORT_TIDY_COLUMNS "file", "io_type", "bytes", "namespace", "device", "stage", \
	"stat", "value"

/*
 * A row's keys, separated by sep: the group (the host file, from 1;
 * its namespace, or its device for a target alone), the stage and the
 * statistic.  compare -t writes the same keys before its own columns.
 */
void ntp_report__separated_keys(FILE *f, const char *sep, int file, const char *io_type, int64_t bytes,
			   const char *ns, bool target, const char *stage, const char *stat);

int ntp_report__print_separated(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o);

/*
 * What the text's "# warning:" lines say, to stderr: -t's rows have no
 * comment lines, and the numbers still need the caveat.
 */
void ntp_report__warn_separated(const struct ntp_report *r);

#endif
