/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading a recording alone into the model: its header (meta, hooks,
 * intervals), then its commands through report_scan.c.
 */
#ifndef NTP_REPORT_QUERY_H
#define NTP_REPORT_QUERY_H

#include <stdbool.h>
#include <sqlite3.h>

#include "lib/report/report_model.h"

/* reads db (open, checked) into r; an NTP_EXIT_* code */
int ntp_report__load(struct ntp_report *r, sqlite3 *db, const char *path);
void ntp_report__free(struct ntp_report *r);

/* only the header of the recording open as db; an NTP_EXIT_* code */
int ntp_report__load_header(struct ntp_report_header *h, sqlite3 *db, const char *path);
void ntp_report__free_header(struct ntp_report_header *h);

/* ntprof's own cost of the recording: false when the file holds none (or no command was seen meanwhile) */
bool ntp_report__cost(const struct ntp_report_header *h, struct ntp_report_cost *c);

#endif
