/* SPDX-License-Identifier: GPL-2.0 */
/* What a series is asked for (ntprof-series(1), OPTIONS). */
#ifndef NTP_SERIES_OPTS_H
#define NTP_SERIES_OPTS_H

#include <stdbool.h>

/* zero-initialised means the defaults */
struct ntp_series_opts {
	double interval_s;            /* -i: the interval, in s; 0 = NTP_SERIES_DEFAULT_S */
	const char *json_path;        /* -j FILE ("-" = stdout, instead of the text), NULL = none */
	const char *csv_path;         /* --csv FILE ("-" = stdout, instead of the text), NULL = none */
	const char *html_path;        /* --html FILE ("-" = stdout, instead of the text), NULL = none */
	bool pretty;                  /* indented JSON */
	bool percentiles;             /* --percentiles was given: the text and CSV show them all */
};

#define NTP_SERIES_DEFAULT_S 1.0

#endif
