/* SPDX-License-Identifier: GPL-2.0 */
/* What a comparison is asked for (ntprof-compare(1), OPTIONS), read by all of compare. */
#ifndef NTP_COMPARE_OPTS_H
#define NTP_COMPARE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/cli/term.h"
#include "lib/core/stat_table.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sort.h"

/* mean and the tail (p99, or the highest listed): the typical command and the tail */
#define NTP_CMP_DEFAULT_STATS(tail) ((1u << NTP_STAT_MEAN) | (1u << (tail)))

/*
 * One --threshold: the run fails when a group's STAGE's STAT grew by more
 * than pct percent of its baseline, and the change is significant.
 */
struct ntp_compare_threshold {
	char stage[32];               /* the stage's JSON name; "e2e" for the total */
	enum ntp_stat stat;
	double pct;
};

#define NTP_CMP_MAX_THRESHOLDS 16
/* the least change that counts: both this % of the baseline and this many ns */
#define NTP_CMP_DEFAULT_FLOOR_PCT 5.0
#define NTP_CMP_DEFAULT_FLOOR_NS 1000.0
/* the level of compare's tests, corrected for their number (Benjamini-Hochberg) */
#define NTP_CMP_ALPHA 0.05
/* below this many commands in either run a change is not tested */
#define NTP_CMP_DEFAULT_MIN_N 10

/* zero-initialised means the defaults */
struct ntp_compare_opts {
	const char *json_path;        /* -j FILE ("-" = stdout), NULL = none */
	bool pretty;                  /* indented JSON */
	bool formula;                 /* --formula: show the arithmetic of every value */
	unsigned int stats;           /* 1 << enum ntp_stat (those of NTP_STAT_CHANGE); 0 = NTP_CMP_DEFAULT_STATS */
	struct ntp_compare_threshold threshold[NTP_CMP_MAX_THRESHOLDS];
	int nthresholds;              /* --threshold SPEC[,SPEC]: 0 = none */
	bool min_n_set;
	uint64_t min_n;               /* --min-n N, else NTP_CMP_DEFAULT_MIN_N */
	bool floor_pct_set, floor_ns_set;
	double floor_pct;             /* --min-change PCT, else NTP_CMP_DEFAULT_FLOOR_PCT */
	uint64_t floor_ns;            /* --min-change-ns NS, else NTP_CMP_DEFAULT_FLOOR_NS */
	const char *stages;           /* --stages: "summary" (NULL) or "detail", as report's */
	const char *html_path;        /* --html FILE ("-" = stdout), NULL = none */
	struct ntp_read_filter filter;   /* report's read filters, applied to both runs */
	struct ntp_report_sort sort;     /* --sort: by the change of a statistic */
	const char *field_separator;  /* -t: the rows in long form, fields separated by this */
	bool quiet;                   /* -q: no header block, the tables only */
	bool header;                  /* --header: each file's every header line (hooks...) */
	bool no_pager;                /* --no-pager: never page the text on a terminal */
	bool percentiles;             /* --percentiles was given (lib/core/stat_table.h has them) */
	bool wide;                    /* --wide: the rows never folded to the terminal's width */
	const char *color;            /* --color: auto (NULL), always or never */
	const char *by;               /* --by: a word of ntp_diag_by_names; NULL none */
	/* the text's width and colour, from the two above (ntp_term__open); zero: wide, none */
	struct ntp_term term;
};

#endif
