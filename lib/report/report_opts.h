/* SPDX-License-Identifier: GPL-2.0 */
/* What a report is asked for (ntprof-report(1), OPTIONS), read by every printer. */
#ifndef NTP_REPORT_OPTS_H
#define NTP_REPORT_OPTS_H

#include <stdbool.h>

/* zero-initialised means the defaults */
struct ntp_report_opts {
	const char *json_path;        /* -j FILE ("-" = stdout), NULL = none */
	double percent_limit;         /* hide groups with fewer than this % of the sampled commands */
	const char *field_separator;  /* unpadded columns separated by this string; NULL = aligned */
	bool pretty;                  /* indented JSON */
	const char *stages;           /* --stages: "summary" (NULL) or "detail" */
	bool quiet;                   /* -q: no header block, the tables only */
	bool no_pager;                /* --no-pager: never page the text on a terminal */
};

#endif
