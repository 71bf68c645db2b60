// SPDX-License-Identifier: GPL-2.0
/* Fields of separated text (lib/fmt/csv.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/csv.h"

/* does s hold what would split or end the field? */
static int needs_quotes(const char *s, const char *sep)
{
	return s[strcspn(s, "\"\r\n")] || (*sep && strstr(s, sep));
}

void ntp_csv__text(FILE *f, const char *s, const char *sep)
{
	if (!s)
		return;
	if (!needs_quotes(s, sep)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void ntp_csv__int(FILE *f, int64_t v)
{
	fprintf(f, "%" PRId64, v);
}

void ntp_csv__double(FILE *f, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v))
		return;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
}
