/* SPDX-License-Identifier: GPL-2.0 */
/* What a report is asked for (ntprof-report(1), OPTIONS), read by every printer. */
#ifndef NTP_REPORT_OPTS_H
#define NTP_REPORT_OPTS_H

#include <stdbool.h>

#include "lib/cli/term.h"
#include "lib/report/report_fields.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sort.h"

/* zero-initialised means the defaults */
struct ntp_report_opts {
	const char *json_path;        /* -j FILE ("-" = stdout), NULL = none */
	double percent_limit;         /* hide groups with fewer than this % of the sampled commands */
	const char *field_separator;  /* unpadded columns separated by this string; NULL = aligned */
	bool pretty;                  /* indented JSON */
	const char *stages;           /* --stages: "summary" (NULL) or "detail" */
	const char *html_path;        /* --html FILE ("-" = stdout), NULL = none */
	bool histogram;               /* --histogram: each stage's log2 buckets */
	struct ntp_read_filter filter;   /* --session, --io-type, --size, --qid, --time */
	struct ntp_report_sort sort;     /* --sort; no keys: the default order */
	struct ntp_report_fields fields; /* -F/--fields; none: every column */
	bool quiet;                   /* -q: no header block, the tables only */
	bool header;                  /* --header: every line of the header (hooks, counts, clocks) */
	bool no_pager;                /* --no-pager: never page the text on a terminal */
	bool percentiles;             /* --percentiles was given (lib/core/stat_table.h has them) */
	bool wide;                    /* --wide: the tables never folded to the terminal's width */
	const char *color;            /* --color: auto (NULL), always or never */
	/* the text's width and colour, from the two above (ntp_term__open); zero: wide, none */
	struct ntp_term term;
};

#endif
