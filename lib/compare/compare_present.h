/* SPDX-License-Identifier: GPL-2.0 */
/* In which run a group, a stage or a queue of a comparison was found, and its JSON words. */
#ifndef NTP_COMPARE_PRESENT_H
#define NTP_COMPARE_PRESENT_H

enum ntp_compare_present {
	NTP_CMP_BOTH,
	NTP_CMP_BASE_ONLY,
	NTP_CMP_NEW_ONLY,
};

/* NTP_CMP_BOTH when both are non-NULL, else the run of the one that is */
enum ntp_compare_present ntp_compare__present(const void *base, const void *new_side);
/* "both", "baseline-only", "new-only" */
const char *ntp_compare__present_str(enum ntp_compare_present p);

#endif
