// SPDX-License-Identifier: GPL-2.0
/* In which run something of a comparison was found (compare_present.h). */
#include <stddef.h>

#include "lib/compare/compare_present.h"

enum ntp_compare_present ntp_compare__present(const void *base, const void *new_side)
{
	if (base && new_side)
		return NTP_CMP_BOTH;
	return base ? NTP_CMP_BASE_ONLY : NTP_CMP_NEW_ONLY;
}

const char *ntp_compare__present_str(enum ntp_compare_present p)
{
	switch (p) {
	case NTP_CMP_BASE_ONLY:
		return "baseline-only";
	case NTP_CMP_NEW_ONLY:
		return "new-only";
	default:
		return "both";
	}
}
