// SPDX-License-Identifier: GPL-2.0
/*
 * The name of an I/O size, as every table shows it: the live lines of
 * record, report, compare.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/core/size.h"

void ntp_size__str(int64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
		snprintf(buf, len, "%" PRId64 "MiB", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "KiB", bytes >> 10);
	else
		snprintf(buf, len, "%" PRId64 "B", bytes);
}
