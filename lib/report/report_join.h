/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of joined recordings, of the detailed stages of a host
 * recording, or of a target recording alone (struct ntp_jreport).
 */
#ifndef NTP_REPORT_JOIN_H
#define NTP_REPORT_JOIN_H

#include "lib/report/report_model.h"

/* load the model of that kind (one file unless joined); an NTP_EXIT_* code */
int ntp_jreport__load(struct ntp_jreport *r, const char *const *paths, int n,
		      enum ntp_jreport_kind kind, int detail);
void ntp_jreport__free(struct ntp_jreport *r);

#endif
