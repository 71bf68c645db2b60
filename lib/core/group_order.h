/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one order of a recording's groups, for every output that lists them
 * (report, series, top, record's live lines): by namespace in natural order
 * (numbers as numbers: nvme2n1 before nvme10n1, and "nvme0 q2" before
 * "nvme0 q10" where a queue names the group), then reads, writes, the other
 * types by name, then size.
 */
#ifndef NTP_GROUP_ORDER_H
#define NTP_GROUP_ORDER_H

#include <stdint.h>

/* <0, 0, >0 as group (ns_a, io_a, bytes_a) comes before, with, after group b */
int ntp_group__order(const char *ns_a, const char *io_a, uint64_t bytes_a, const char *ns_b,
		     const char *io_b, uint64_t bytes_b);

#endif
