/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands of a series, in the order of their start, one file at a
 * time: the sort is SQLite's (an ORDER BY, which spills to temporary files
 * rather than growing in memory), or for joined recordings temp.joined's
 * own order (lib/join/join.h), which costs no sort.  Only the commands
 * that pass the read filters are read (lib/model/model_filter.h: the
 * clause is added to the query), and --top's groups are counted by the
 * same query's rows.
 */
#ifndef NTP_SERIES_SCAN_H
#define NTP_SERIES_SCAN_H

#include <stddef.h>
#include <sqlite3.h>

#include "lib/diag/diag_by.h"
#include "lib/model/model_filter.h"
#include "lib/series/series_acc.h"

/* which rows: a host recording alone (h_start), a target alone (t_recv), or temp.joined */
enum ntp_series_rows {
	NTP_SERIES_ROWS_HOST,
	NTP_SERIES_ROWS_TARGET,
	NTP_SERIES_ROWS_JOINED,
};

/* where the read filters find their columns in those rows */
const struct ntp_read_cols *ntp_series__filter_cols(enum ntp_series_rows rows);

/*
 * the rows that pass w, in the order of their start, into a, grouped by
 * by (series_model.h): 0 or NTP_EXIT_*
 */
int ntp_series__scan(struct ntp_series_acc *a, sqlite3 *db, enum ntp_series_rows rows,
		     enum ntp_diag_by_key by, const struct ntp_read_where *w, const char *path);

/*
 * The groups of the rows that pass w, each with its commands in e2e.n
 * (the rest of its summary zero), in no order: *groups (freed with
 * ntp_series__free_groups), *n.  0 or NTP_EXIT_*.
 */
int ntp_series__groups(sqlite3 *db, enum ntp_series_rows rows, enum ntp_diag_by_key by,
		       const struct ntp_read_where *w, const char *path,
		       struct ntp_report_group **groups, size_t *n);
void ntp_series__free_groups(struct ntp_report_group *groups, size_t n);

#endif
