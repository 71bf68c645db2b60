/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text tables, shared by every text printer: columns from one
 * {name, width, fmt} table, cells of a kind.
 */
#ifndef NTP_REPORT_TABLE_H
#define NTP_REPORT_TABLE_H

#include <stdint.h>
#include <stdio.h>

enum ntp_cell_kind {
	NTP_CELL_NONE,            /* no value: "-" */
	NTP_CELL_STR,
	NTP_CELL_INT,
	NTP_CELL_DOUBLE,
	NTP_CELL_US,              /* i ns, shown in us by lib/fmt/number.h's rule */
};

struct ntp_cell {
	enum ntp_cell_kind kind;
	const char *s;
	int64_t i;
	double d;
};

struct ntp_col {
	const char *name;
	int width;                /* negative: left-aligned */
	const char *fmt;          /* printf format of one value of the cell's kind */
};

/* "# title title ...", aligned, or joined by sep */
void ntp_report__print_titles(FILE *f, const struct ntp_col *cols, int n, const char *sep);
void ntp_report__print_row(FILE *f, const struct ntp_col *cols, int n, const struct ntp_cell *cells,
			   const char *sep);
struct ntp_cell ntp_report__str_cell(const char *s);
struct ntp_cell ntp_report__int_cell(int64_t i);
struct ntp_cell ntp_report__dbl_cell(double d);
/* ns shown in us, two decimals, by lib/fmt/number.h's rule */
struct ntp_cell ntp_report__us_cell(int64_t ns);
/* no value: "-" */
struct ntp_cell ntp_report__none_cell(void);

#endif
