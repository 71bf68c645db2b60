/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON document of -j, for report and compare: where it goes, and the
 * error document when the command fails.
 */
#ifndef NTP_REPORT_JSONOUT_H
#define NTP_REPORT_JSONOUT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/cli/outfile.h"

/*
 * Where -j's JSON goes, for report and compare: a file made as
 * lib/cli/outfile.h makes every output.  what names the document in errors
 * ("the JSON report"); without -j, o->f is NULL.  The error document's
 * message is the last error line's text (ntp_err__last), the cause stderr
 * gave; "PATH: CAUSE" when none was printed (mismatch is the cause of
 * NTP_EXIT_MISMATCH); cut at cut - 1 bytes.  Close keeps the file even after a failure: it holds
 * the error document then.
 */
int ntp_report__json_open(struct ntp_outfile *o, const char *path, const char *what);
void ntp_report__json_error(FILE *f, int code, const char *path, const char *mismatch,
			    size_t cut);
int ntp_report__json_close(struct ntp_outfile *o);

#endif
