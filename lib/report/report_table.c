// SPDX-License-Identifier: GPL-2.0
/*
 * report: the text tables.  Each table's columns come from one
 * {name, width, fmt} table; with --field-separator the same columns are
 * printed unpadded, joined by the separator.  Shared by the report on one
 * recording and the report on joined recordings, so both look alike.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/number.h"
#include "lib/report/report_table.h"

static void format_cell(char *buf, size_t len, const struct ntp_col *c, const struct ntp_cell *v)
{
	switch (v->kind) {
	case NTP_CELL_STR:
		snprintf(buf, len, c->fmt, v->s);
		break;
	case NTP_CELL_INT:
		snprintf(buf, len, c->fmt, v->i);
		break;
	case NTP_CELL_DOUBLE:
		if (isfinite(v->d)) {
			/* never print "-0.0" for a value that rounds to zero */
			snprintf(buf, len, c->fmt, v->d == 0 ? 0.0 : v->d);
			if (!strncmp(buf, "-0.", 3) && strspn(buf + 3, "0") == strlen(buf + 3))
				memmove(buf, buf + 1, strlen(buf));
			break;
		}
		/* fallthrough */
	case NTP_CELL_NONE:
		snprintf(buf, len, "-");
		break;
	case NTP_CELL_US:
		ntp_num__us(buf, len, v->i, 2);
		break;
	}
}

/* "# " or the rows' two spaces, then each column and the space before it */
int ntp_report__width(const struct ntp_col *cols, int n)
{
	int w = 1;

	for (int i = 0; i < n; i++)
		w += 1 + abs(cols[i].width);
	return w;
}

int ntp_report__fold(const struct ntp_col *cols, int n, int nkeys, int width, int *start)
{
	int keys = ntp_report__width(cols, nkeys), nb = 0, w = 0;

	start[0] = nkeys;
	for (int i = nkeys; i < n; i++) {
		int cw = 1 + abs(cols[i].width);

		/* a block's first column stays in it, however narrow the width */
		if (width > 0 && i > start[nb] && keys + w + cw > width) {
			start[++nb] = i;
			w = 0;
		}
		w += cw;
	}
	start[++nb] = n;
	return nb;
}

int ntp_report__block(const struct ntp_col *cols, const struct ntp_cell *cells, int nkeys,
		      const int *start, int b, struct ntp_col *bc, struct ntp_cell *bv)
{
	int m = 0;

	for (int i = 0; i < start[b + 1]; i++) {
		if (i >= nkeys && i < start[b])
			continue;
		bc[m] = cols[i];
		if (cells)
			bv[m] = cells[i];
		m++;
	}
	return m;
}

/*
 * Aligned rows begin with two spaces so that they line up under the "# "
 * of the column titles.
 */
void ntp_report__print_titles(FILE *f, const struct ntp_col *cols, int n, const char *sep)
{
	fputc('#', f);
	for (int i = 0; i < n; i++) {
		if (sep)
			fprintf(f, "%s%s", i ? sep : "", cols[i].name);
		else
			fprintf(f, " %*s", i == n - 1 && cols[i].width < 0 ? 0 : cols[i].width,
				cols[i].name);
	}
	fputc('\n', f);
}

void ntp_report__print_row(FILE *f, const struct ntp_col *cols, int n, const struct ntp_cell *cells,
			   const char *sep)
{
	ntp_report__print_cells(f, cols, n, cells, sep);
	fputc('\n', f);
}

void ntp_report__print_cells(FILE *f, const struct ntp_col *cols, int n,
			     const struct ntp_cell *cells, const char *sep)
{
	char buf[128];

	if (!sep)
		fputs("  ", f);
	for (int i = 0; i < n; i++) {
		format_cell(buf, sizeof(buf), &cols[i], &cells[i]);
		if (sep)
			fprintf(f, "%s%s", i ? sep : "", buf);
		else
			fprintf(f, "%s%*s", i ? " " : "", i == n - 1 && cols[i].width < 0 ? 0 :
				cols[i].width, buf);
	}
}

struct ntp_cell ntp_report__str_cell(const char *s)
{
	return (struct ntp_cell){ .kind = NTP_CELL_STR, .s = s };
}

struct ntp_cell ntp_report__int_cell(int64_t i)
{
	return (struct ntp_cell){ .kind = NTP_CELL_INT, .i = i };
}

struct ntp_cell ntp_report__dbl_cell(double d)
{
	return (struct ntp_cell){ .kind = NTP_CELL_DOUBLE, .d = d };
}

/* nanoseconds shown in microseconds; means are first rounded to whole ns, as in the JSON */
struct ntp_cell ntp_report__us_cell(int64_t ns)
{
	return (struct ntp_cell){ .kind = NTP_CELL_US, .i = ns };
}

struct ntp_cell ntp_report__none_cell(void)
{
	return (struct ntp_cell){ .kind = NTP_CELL_NONE };
}
