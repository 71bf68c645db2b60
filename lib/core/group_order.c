// SPDX-License-Identifier: GPL-2.0
/* The one order of a recording's groups (lib/core/group_order.h). */
#include <string.h>

#include "lib/core/group_order.h"

static int io_type_rank(const char *t)
{
	if (!strcmp(t, "read"))
		return 0;
	if (!strcmp(t, "write"))
		return 1;
	return 2;
}

int ntp_group__order(const char *ns_a, const char *io_a, uint64_t bytes_a, const char *ns_b,
		     const char *io_b, uint64_t bytes_b)
{
	int c = strverscmp(ns_a, ns_b);

	if (c)
		return c;
	c = io_type_rank(io_a) - io_type_rank(io_b);
	if (c)
		return c;
	c = strcmp(io_a, io_b);
	if (c)
		return c;
	return (bytes_a > bytes_b) - (bytes_a < bytes_b);
}
