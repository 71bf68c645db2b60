/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report on a recording: `ntprof report`, and the end of `ntprof record`
 * (ntprof-report(1)).  Its raw form, `ntprof dump`, is dump.h.
 */
#ifndef NTP_REPORT_H
#define NTP_REPORT_H

#include "lib/report/report_opts.h"

/*
 * Report on recordings: one host recording alone, or host and target
 * recordings joined (several files, in any order, or one "-r both" file;
 * lib/join/join.h).  Prints the text report to stdout unless the JSON goes to
 * stdout.  Returns an NTP_EXIT_* code.
 */
int ntp_report__run(const char *const *paths, int npaths, const struct ntp_report_opts *o);

struct ntp_source;

/* opens the source of a report (ctx: the caller's); 0 or an NTP_EXIT_* code after one line */
typedef int (*ntp_report_open_fn)(void *ctx, struct ntp_source **s);

/*
 * The same on a source open opens (the fleet's engine: lib/fleet/), what
 * names it in messages; paths[0..npaths) are the files it reads, for the
 * check that no output overwrites one (none: npaths 0).
 */
int ntp_report__run_from(ntp_report_open_fn open, void *ctx, const char *what,
			 const char *const *paths, int npaths, const struct ntp_report_opts *o);

#endif
