/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare -t SEP: the comparison in long form, a header row, then one row
 * per group, stage and statistic with both runs' values (ntprof-compare(1),
 * "Separated fields").
 */
#ifndef NTP_COMPARE_SEPARATED_H
#define NTP_COMPARE_SEPARATED_H

#include <stdio.h>

#include "lib/compare/compare_model.h"

#define NTP_COMPARE_TIDY_COLUMNS "file", "io_type", "bytes", "namespace", "device", "stage", "stat", \
	"baseline", "new", "delta", "ratio", "ci95_low", "ci95_high", "significant", "present"

int ntp_compare__print_separated(const struct ntp_compare *c, FILE *f,
			    const struct ntp_compare_opts *o);
/* the text's "# warning:" lines, to stderr */
void ntp_compare__warn_separated(const struct ntp_compare *c);

#endif
