/* SPDX-License-Identifier: GPL-2.0 */
/* What a series is asked for (ntprof-series(1), OPTIONS). */
#ifndef NTP_SERIES_OPTS_H
#define NTP_SERIES_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/model/model_filter.h"

/* zero-initialised means the defaults */
struct ntp_series_opts {
	double interval_s;            /* -i: the interval, in s; 0 = NTP_SERIES_DEFAULT_S */
	const char *json_path;        /* -j FILE ("-" = stdout, instead of the text), NULL = none */
	const char *csv_path;         /* --csv FILE ("-" = stdout, instead of the text), NULL = none */
	const char *html_path;        /* --html FILE ("-" = stdout, instead of the text), NULL = none */
	bool pretty;                  /* indented JSON */
	bool percentiles;             /* --percentiles was given: the text and CSV show them all */
	bool quiet;                   /* -q: the text's rows and their titles only */
	struct ntp_read_filter filter;   /* report's read filters: only the commands that pass */
	uint64_t top;                 /* --top N: the N groups with the most commands; 0: all */
	const char *by;               /* --by: a word of ntp_diag_by_names; NULL none */
};

#define NTP_SERIES_DEFAULT_S 1.0

#endif
