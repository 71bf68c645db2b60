/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands of a series, in the order of their start, one file at a
 * time: the sort is SQLite's (an ORDER BY, which spills to temporary files
 * rather than growing in memory), or for joined recordings temp.joined's
 * own order (lib/join/join.h), which costs no sort.
 */
#ifndef NTP_SERIES_SCAN_H
#define NTP_SERIES_SCAN_H

#include <sqlite3.h>

#include "lib/join/join.h"
#include "lib/series/series_acc.h"

/* a host recording alone (h_start), or a target alone (t_recv): 0 or NTP_EXIT_* */
int ntp_series__scan_one(struct ntp_series_acc *a, sqlite3 *db, const char *path, bool target);
/* the joined commands of j, after ntp_join__run, host file by host file: 0 or NTP_EXIT_* */
int ntp_series__scan_joined(struct ntp_series_acc *a, struct ntp_join *j, const char *path);

#endif
