/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables of groups of every text report.
 */
#ifndef NTP_REPORT_TEXT_TABLES_H
#define NTP_REPORT_TEXT_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/cli/term.h"
#include "lib/report/report_fields.h"
#include "lib/model/model.h"

/*
 * The tables of groups of every text report.  The
 * end-to-end table, with the host file's column (several files) or without;
 * ns_title: "namespace", or a target's "device".  A group's stage table: a
 * row per stage, what no stage explains, the total ("end-to-end", or a
 * target's "residence"), and the check that the stages add up; the stage
 * that takes the most time marked.  Both folded to term's width and
 * coloured as term says (lib/cli/term.h; NULL: neither).
 */
/* "# a percentile from this many commands, '-' with fewer: p50 2, ...": the list's minimums */
void ntp_report__print_percentile_note(FILE *f);
void ntp_report__print_group_table(FILE *f, const struct ntp_report *r, bool file_col,
				   const char *ns_title, const char *sep,
				   const struct ntp_report_fields *fl, const struct ntp_term *term);
/*
 * The same with the application's stages (app: the report has them,
 * ntprof-report(1)): submit first, complete and reap after the view's
 * stages, app e2e after the total, and their own sum check.
 */
void ntp_report__print_app_stage_table(FILE *f, const struct ntp_report_group *g,
				       const struct ntp_view_stage *stages, int nstages,
				       const char *total, const char *sep,
				       const struct ntp_report_fields *fl, bool app,
				       const struct ntp_term *term);
/*
 * fl (report_fields.h; NULL: every column) shows which columns; the stage
 * tables are shown only when fl leaves them one besides the stage.
 */
bool ntp_report__stage_tables_shown(const struct ntp_report_fields *fl);

#endif
