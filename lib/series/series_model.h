/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of a series: the recordings (report's model without its
 * groups: kind, view, files and their headers, the join's counts), the
 * read filters and --top, the intervals, and one point per group and
 * interval that the writers (series_text.c, series_json.c, series_csv.c,
 * series_html.c) print as it comes.
 *
 * A command's interval is by its start: h_start on the host's clock, or for
 * a target alone t_recv on the target's; interval 0 begins at the file's
 * meta start_ns (its first command's start when the file has none), and
 * interval i covers [origin + i x len, origin + (i + 1) x len).
 */
#ifndef NTP_SERIES_MODEL_H
#define NTP_SERIES_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/stat_table.h"
#include "lib/diag/diag_by.h"
#include "lib/join/join.h"
#include "lib/model/model.h"

/* the version of the series JSON document (ntprof-series(1), JSON) */
#define NTP_SERIES_FORMAT_VERSION 1

struct ntp_series {
	struct ntp_report r;          /* no groups: kind, view, rdma, files, pairs, counts */
	int64_t interval_ns;
	/* per file: interval 0's start, and the recording's end on its clock (-1: unknown) */
	int64_t origin_ns[NTP_JOIN_MAX_FILES], end_ns[NTP_JOIN_MAX_FILES];
	bool origin_known[NTP_JOIN_MAX_FILES];
	uint64_t commands, points;    /* so far */
	/* the percentiles the text and the CSV show: those listed, else the tail (p99) alone */
	enum ntp_stat pct[NTP_PCT_MAX];
	int npct;
	const struct ntp_read_filter *filter;   /* the read filters the rows passed; NULL: none */
	/*
	 * --top N (0: every group): the groups the commands that passed fall
	 * in, and of those the ones left out, with their commands
	 */
	uint64_t top, groups, groups_hidden, commands_hidden;
	/*
	 * --by: a group is a queue ("nvme0 q1") or a process ("fio 1234",
	 * "(not recorded)") of the host's, held in its ns with io_type "" and
	 * bytes 0; NTP_DIAG_BY_NONE: by I/O type, size and namespace
	 */
	enum ntp_diag_by_key by;
};

/* one group in one interval */
struct ntp_series_point {
	const struct ntp_report_group *g;   /* the key; e2e and stage[] of the interval; est_rate */
	int64_t interval;                   /* its index, from 0 */
	int64_t start_ns;                   /* its start, on the file's clock */
	int64_t covered_ns;                 /* of it, the time inside the recording */
};

/* a printer: called once before the points, once per point, once at the end; 0 or NTP_EXIT_* */
struct ntp_series_out {
	int (*begin)(void *ctx, const struct ntp_series *s);
	int (*point)(void *ctx, const struct ntp_series *s, const struct ntp_series_point *p);
	int (*end)(void *ctx, const struct ntp_series *s);
	void *ctx;
};

/* --by's key in words, "queue", "process", "cpu" or "io_cpu"; NULL without --by */
static inline const char *ntp_series__by_word(const struct ntp_series *s)
{
	return ntp_diag_by__word(s->by);
}

/* the clock the intervals are on, in words: "host" or "target" */
static inline const char *ntp_series__clock(const struct ntp_series *s)
{
	return s->r.kind == NTP_REPORT_TARGET ? "target" : "host";
}

/* a point's time since the origin, in s */
static inline double ntp_series__t_s(const struct ntp_series *s, const struct ntp_series_point *p)
{
	return (double)p->interval * (double)s->interval_ns / 1e9;
}

#endif
