/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A host recording's summary: its commands (host_stages) into the model's
 * groups, read in parallel.
 */
#ifndef NTP_REPORT_SCAN_H
#define NTP_REPORT_SCAN_H

#include <sqlite3.h>
#include <stdbool.h>

#include "lib/model/model.h"
#include "lib/model/model_source.h"

/*
 * Every command of host_stages in db (the recording at path, "main") into
 * r->groups, summarized and ordered, and r->total; with evidence, the
 * diagnosis' evidence of the same rows into r->files[0].evidence
 * (model_evidence.h).  reopen(reopen_ctx, 0, ...) opens the file for each
 * worker thread.  An NTP_EXIT_* code.
 */
int ntp_report__scan_host(struct ntp_report *r, sqlite3 *db, const char *path, bool evidence,
			  ntp_reopen_fn reopen, void *reopen_ctx);

#endif
