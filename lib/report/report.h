/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report on a recording: `ntprof report`, and the end of `ntprof record`
 * (ntprof-report(1)); and its raw form, `ntprof dump` (ntprof-dump(1)).
 */
#ifndef NTP_REPORT_H
#define NTP_REPORT_H

#include <stdbool.h>

/* zero-initialised means the defaults */
struct ntp_report_opts {
	const char *json_path;        /* -j FILE ("-" = stdout), NULL = none */
	double percent_limit;         /* hide groups with fewer than this % of the sampled commands */
	const char *field_separator;  /* unpadded columns separated by this string; NULL = aligned */
	bool pretty;                  /* indented JSON */
	const char *stages;           /* --stages: "summary" (NULL) or "detail" */
};

/*
 * Report on recordings: one host recording alone, or host and target
 * recordings joined (several files, in any order, or one "-r both" file;
 * lib/join/join.h).  Prints the text report to stdout unless the JSON goes to
 * stdout.  Returns an NTP_EXIT_* code.
 */
int ntp_report__run(const char *const *paths, int npaths, const struct ntp_report_opts *o);

/* `ntprof dump`: the sampled commands as CSV (ntprof-dump(1)) */
struct ntp_dump_opts {
	const char *output;           /* -o FILE; NULL or "-" = stdout */
};

/*
 * One host recording: its commands.  Several recordings, or one "-r both"
 * recording: the joined commands, host and target side by side.  Returns an
 * NTP_EXIT_* code.
 */
int ntp_dump__run(const char *const *paths, int npaths, const struct ntp_dump_opts *o);

#endif
