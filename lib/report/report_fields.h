/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report -F/--fields LIST: which statistic columns the text tables show,
 * in the order given, as perf report -F chooses its columns
 * (ntprof-report(1), "Fields").  The key columns (file, io_type, size,
 * namespace or device; a stage table's stage) are always shown.  A field
 * goes to the tables that have it: n and rate (est_cmds/s) to the
 * end-to-end table, share (share%) to the stage tables, the latencies to
 * both; stage tables left without a field are not printed.  The JSON
 * always has every member.
 */
#ifndef NTP_REPORT_FIELDS_H
#define NTP_REPORT_FIELDS_H

#include <stdbool.h>

#include "lib/cli/opt.h"
#include "lib/core/stat_table.h"

/* zero-initialised: every column (nfields 0) */
struct ntp_report_fields {
	enum ntp_stat list[NTP_NSTATS];
	int nfields;
};

/* the option's callback; opt->value is the struct ntp_report_fields */
int ntp_report_fields__opt(const struct ntp_option *opt, const char *arg);

#endif
