/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON form of every report (ntprof-report(1), JSON), and the members
 * of a file every JSON document writes, report's and compare's.
 */
#ifndef NTP_REPORT_JSON_H
#define NTP_REPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "lib/diag/diag.h"
#include "lib/model/model.h"
#include "lib/report/report_opts.h"

/* kind, stage_view and e2e_is: what a report's or a comparison's document is of */
struct ntp_json;
void ntp_report__json_kind(struct ntp_json *j, const struct ntp_report *r);

/* 0 or an NTP_EXIT_* code */
int ntp_report__print_json(const struct ntp_report *r, const struct ntp_diag *d, FILE *f,
			  const struct ntp_report_opts *o);

struct ntp_json;
/* parts of a file's members: which file, path to duration_ns; its hooks array */
void ntp_report__json_file_id(struct ntp_json *j, const struct ntp_report_header *h);
void ntp_report__json_hooks(struct ntp_json *j, const struct ntp_report_header *h);
/* the same with the application's stages' notes when app (the report has them) */
void ntp_report__json_app_stage_notes(struct ntp_json *j, const struct ntp_view_stage *stages,
				      int nstages, const char *residence, bool app);

#endif
