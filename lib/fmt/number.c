// SPDX-License-Identifier: GPL-2.0
/* Latencies as people read them (lib/fmt/number.h). */
#include <inttypes.h>
#include <stdio.h>

#include "lib/fmt/number.h"

void ntp_num__us(char *buf, size_t len, int64_t ns, int decimals)
{
	static const uint64_t step[4] = { 1000, 100, 10, 1 };
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, unit, q;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 3)
		decimals = 3;
	unit = step[decimals];
	/* in units of the last digit shown, half away from zero */
	q = (a + unit / 2) / unit;
	if (!q)
		ns = 0;
	if (!decimals) {
		snprintf(buf, len, "%s%" PRIu64, ns < 0 ? "-" : "", q);
		return;
	}
	snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "",
		 q / (1000 / unit), decimals, q % (1000 / unit));
}

void ntp_num__exact(char *buf, size_t len, int64_t ns, int64_t per_unit)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns, u = per_unit > 1 ? (uint64_t)per_unit : 1;
	int decimals = 0;

	for (uint64_t p = 1; p < u && decimals < 18; p *= 10)
		decimals++;
	if (!decimals) {
		snprintf(buf, len, "%" PRId64, ns);
		return;
	}
	snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "", a / u, decimals, a % u);
}
