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

enum ntp_field {
	NTP_FIELD_N,
	NTP_FIELD_RATE,
	NTP_FIELD_MIN,
	NTP_FIELD_MEAN,
	NTP_FIELD_P50,
	NTP_FIELD_P90,
	NTP_FIELD_P99,
	NTP_FIELD_P999,
	NTP_FIELD_MAX,
	NTP_FIELD_SHARE,
	NTP_FIELD_STDDEV,
	NTP_FIELD_COUNT,
};

/* zero-initialised: every column (nfields 0) */
struct ntp_report_fields {
	enum ntp_field list[NTP_FIELD_COUNT];
	int nfields;
};

/* the option's callback; opt->value is the struct ntp_report_fields */
int ntp_report_fields__opt(const struct ntp_option *opt, const char *arg);

#endif
