/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One recording's header (meta, hooks, intervals) and counts, as every
 * report shows them.
 */
#ifndef NTP_REPORT_HEADER_H
#define NTP_REPORT_HEADER_H

#include <stdbool.h>
#include <sqlite3.h>

#include "lib/model/model.h"

/*
 * f's header, and the counts of the sides f->sides names, from the
 * recording open in db as schema ("main", or an ATTACHed name); path names
 * it in messages and is kept, not copied.  host_rows and target_rows: the
 * rows of host_io and target_io already counted (-1: count them).  An
 * NTP_EXIT_* code.
 */
int ntp_report__load_file(struct ntp_report_file *f, sqlite3 *db, const char *schema,
			  const char *path, int64_t host_rows, int64_t target_rows);
void ntp_report__free_header(struct ntp_report_header *h);

/* ntprof's own cost of the recording: false when the file holds none (or no command was seen meanwhile) */
bool ntp_report__cost(const struct ntp_report_header *h, struct ntp_report_cost *c);

#endif
