/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fields of separated text (dump's CSV, report's and compare's -t): RFC
 * 4180 quoting with any separator, so that pandas.read_csv, DuckDB's
 * read_csv, Python's csv and awk -F read every row as it is.
 */
#ifndef NTP_CSV_H
#define NTP_CSV_H

#include <stdint.h>
#include <stdio.h>

/*
 * s as one field: quoted ("..." with each " doubled) when it holds sep, a
 * double quote, a carriage return or a line feed; NULL is an empty field.
 */
void ntp_csv__text(FILE *f, const char *s, const char *sep);
void ntp_csv__int(FILE *f, int64_t v);
/* the shortest digits that read back as v, as the JSON writes it; empty when not finite */
void ntp_csv__double(FILE *f, double v);

#endif
