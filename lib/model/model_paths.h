/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recordings named on a command line: the same file twice.
 */
#ifndef NTP_REPORT_PATHS_H
#define NTP_REPORT_PATHS_H

/* do a and b name one file?  Is one file among paths twice (then one line)? */
int ntp_report__same_file(const char *a, const char *b);
int ntp_report__check_twice(const char *const *paths, int n);

#endif
