/* SPDX-License-Identifier: GPL-2.0 */
/* What a report is asked for (ntprof-report(1), OPTIONS), read by every printer. */
#ifndef NTP_REPORT_OPTS_H
#define NTP_REPORT_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/cli/term.h"
#include "lib/core/hist.h"
#include "lib/report/report_fields.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sort.h"

/*
 * How --histogram shows the buckets (lib/core/hist.h): per_octave of them
 * an octave, bounds in unit.  Zero-initialised means the defaults: 4 an
 * octave, in us.
 */
struct ntp_hist_form {
	uint64_t per_octave;          /* 1, 2, 4 or 8; 0 = NTP_HIST_DEFAULT_PER_OCTAVE */
	const char *unit;             /* "ns", "us", "ms"; NULL = "us" */
};

#define NTP_HIST_DEFAULT_PER_OCTAVE 4

/* f's sub-bucket bits (lib/core/hist.h), its unit, and the unit's ns: 1, 1000, 1000000 */
int ntp_hist_form__bits(const struct ntp_hist_form *f);
const char *ntp_hist_form__unit(const struct ntp_hist_form *f);
int64_t ntp_hist_form__ns_per_unit(const struct ntp_hist_form *f);

/* zero-initialised means the defaults */
struct ntp_report_opts {
	const char *json_path;        /* -j FILE ("-" = stdout), NULL = none */
	double percent_limit;         /* hide groups with fewer than this % of the sampled commands */
	const char *field_separator;  /* unpadded columns separated by this string; NULL = aligned */
	bool pretty;                  /* indented JSON */
	const char *stages;           /* --stages: "summary" (NULL) or "detail" */
	const char *html_path;        /* --html FILE ("-" = stdout), NULL = none */
	bool histogram;               /* --histogram: each stage's buckets */
	struct ntp_hist_form hist;    /* --histogram-buckets, --histogram-unit */
	struct ntp_read_filter filter;   /* --session, --io-type, --size, --qid, --time */
	struct ntp_report_sort sort;     /* --sort; no keys: the default order */
	struct ntp_report_fields fields; /* -F/--fields; none: every column */
	bool quiet;                   /* -q: no header block, the tables only */
	bool header;                  /* --header: every line of the header (hooks, counts, clocks) */
	bool no_pager;                /* --no-pager: never page the text on a terminal */
	bool percentiles;             /* --percentiles was given (lib/core/stat_table.h has them) */
	const char *by;               /* --by: a word of ntp_diag_by_names; NULL none */
	bool wide;                    /* --wide: the tables never folded to the terminal's width */
	const char *color;            /* --color: auto (NULL), always or never */
	/* the text's width and colour, from the two above (ntp_term__open); zero: wide, none */
	struct ntp_term term;
};

#endif
