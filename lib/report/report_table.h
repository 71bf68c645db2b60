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

/*
 * A table wider than width columns folds into blocks, as many as it needs:
 * each begins with the key columns [0, nkeys), then as many of the others
 * as fit (one at least, whatever the width); width 0 never folds.  Block b
 * has the columns [start[b], start[b + 1]) after the keys; start has room
 * for n + 1.  The number of blocks.
 */
int ntp_report__fold(const struct ntp_col *cols, int n, int nkeys, int width, int *start);
/*
 * Block b's columns and cells (cells NULL: the titles only): the keys,
 * then its own, into bc and bv.  Their number.
 */
int ntp_report__block(const struct ntp_col *cols, const struct ntp_cell *cells, int nkeys,
		      const int *start, int b, struct ntp_col *bc, struct ntp_cell *bv);
/* the width of the aligned columns' titles and rows */
int ntp_report__width(const struct ntp_col *cols, int n);
/* "# title title ...", aligned, or joined by sep */
void ntp_report__print_titles(FILE *f, const struct ntp_col *cols, int n, const char *sep);
/*
 * A row's cells, aligned or joined by sep, without the newline; the last
 * column, when left-aligned, is not padded (no blanks end a line).
 */
void ntp_report__print_cells(FILE *f, const struct ntp_col *cols, int n,
			     const struct ntp_cell *cells, const char *sep);
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
