/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one model of a report (report_model.h) from the recordings given.
 */
#ifndef NTP_REPORT_LOAD_H
#define NTP_REPORT_LOAD_H

#include <stdbool.h>

#include "lib/report/report_model.h"
#include "lib/report/report_filter.h"

/*
 * paths[0..n) into r: joined when n > 1 or the one file is "-r both", else
 * the host's or the target's recording alone; detail: --stages=detail.
 * The paths are kept, not copied.  An NTP_EXIT_* code after one error line.
 */
int ntp_report__load(struct ntp_report *r, const char *const *paths, int n, bool detail);
/* the same, reading only the commands that pass f (report_filter.h; NULL: all), kept in r */
int ntp_report__load_filtered(struct ntp_report *r, const char *const *paths, int n, bool detail,
			      const struct ntp_read_filter *f);
void ntp_report__free(struct ntp_report *r);

#endif
