/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON document of -j, for report and compare: where it goes, and the
 * error document when the command fails.
 */
#ifndef NTP_REPORT_JSONOUT_H
#define NTP_REPORT_JSONOUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Where -j's JSON goes, for report and compare.  what names
 * the document in errors ("report", "comparison"); open gives NULL without
 * -j, stdout for "-".  The error document's message is "PATH: CAUSE", cut
 * at cut - 1 bytes; mismatch is the cause of NTP_EXIT_MISMATCH.
 */
int ntp_report__json_open(FILE **f, const char *path, const char *what);
void ntp_report__json_error(FILE *f, int code, const char *path, const char *mismatch,
			    size_t cut);
int ntp_report__json_close(FILE *f, const char *path, const char *what);

#endif
