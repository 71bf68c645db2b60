/* SPDX-License-Identifier: GPL-2.0 */
/* The raw form of a report: `ntprof dump` (ntprof-dump(1)). */
#ifndef NTP_REPORT_DUMP_H
#define NTP_REPORT_DUMP_H

#include "lib/model/model_filter.h"
#include <stdbool.h>

/* the sampled commands as CSV */
struct ntp_dump_opts {
	const char *output;           /* -o FILE; NULL or "-" = stdout */
	struct ntp_read_filter filter;   /* report's read filters: only the rows that pass */
	bool no_pager;                /* --no-pager: never page the CSV on a terminal */
};

/*
 * One host or target recording: its commands.  Several recordings, or one "-r both"
 * recording: the joined commands, host and target side by side.  Returns an
 * NTP_EXIT_* code.
 */
int ntp_dump__run(const char *const *paths, int npaths, const struct ntp_dump_opts *o);

#endif
