/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A joined report's summary (NTP_VIEW_JOINED), made as the join reads the
 * files once (lib/join/join.h, ntp_join_opts.tag): every host command is
 * given its group (or left out by the read filters) as it is read, and the
 * matched commands' five stages are added to their groups after the
 * matching.  One set of groups a reader of the join, merged at the end as
 * model_scan.c merges its parts.
 */
#ifndef NTP_REPORT_JOIN_H
#define NTP_REPORT_JOIN_H

#include "lib/join/join.h"
#include "lib/model/model.h"

struct ntp_report_join;

/* the summary of r (kind joined, view NTP_VIEW_JOINED), and *jo's tag for it; NTP_EXIT_* */
int ntp_report_join__new(struct ntp_report_join **rjp, struct ntp_report *r,
			 struct ntp_join_opts *jo);
/* once j is open, before it runs: the read filters on its files; NTP_EXIT_* */
int ntp_report_join__prepare(struct ntp_report_join *rj, struct ntp_join *j, const char *path);
/* once j has run: the matched commands' stages into r->groups; NTP_EXIT_* */
int ntp_report_join__scan(struct ntp_report_join *rj, struct ntp_join *j, const char *path);
void ntp_report_join__free(struct ntp_report_join *rj);

#endif
