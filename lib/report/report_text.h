/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text form of every report (ntprof-report(1), OUTPUT), and the
 * header lines of one recording, which every text report (and compare's)
 * prints.
 */
#ifndef NTP_REPORT_TEXT_H
#define NTP_REPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/diag/diag.h"
#include "lib/model/model.h"
#include "lib/report/report_opts.h"

/* "# stages (VIEW):" and what each of r's stages holds, as every text report ends */
void ntp_report__print_stage_notes(const struct ntp_report *r, FILE *f);

/* 0 or an NTP_EXIT_* code */
int ntp_report__print_text(const struct ntp_report *r, const struct ntp_diag *d, FILE *f,
			  const struct ntp_report_opts *o);

/*
 * How one recording's header lines look: the first names the file, the
 * others follow, their values in one column; which optional lines appear.
 */
struct ntp_header_style {
	const char *label;            /* of the first line: "file:", "baseline:" */
	const char *indent;           /* before every label */
	const char *sub;              /* before the labels after the first */
	bool duration_source;         /* "(start_ns to stop_ns)" after the duration */
	bool filters, hash_version;   /* their lines */
	bool counts;                  /* "commands: N in file, M lost" */
	/*
	 * without --header: what the numbers depend on (the file, role,
	 * transport, kernel, duration, sampling, filters), the hooks counted,
	 * not listed
	 */
	bool brief;
};


void ntp_report__print_header_lines(const struct ntp_report_header *h, FILE *f,
				    const struct ntp_header_style *st);
/* report's header lines of one recording, with a prefix for each line */
void ntp_report__print_file_header(const struct ntp_report_header *h, FILE *f, const char *indent,
				   bool brief);

#endif
