/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output options report and compare share (-j, --pretty, -t, -q),
 * checked together: a combination that would be ignored is refused.
 */
#ifndef NTP_REPORT_OUTOPTS_H
#define NTP_REPORT_OUTOPTS_H

#include <stdbool.h>

/*
 * 0, or NTP_EXIT_USAGE after one line naming the options: --pretty without
 * -j, and -t or -q with -j - (the JSON replaces the text they
 * shape); with -j - the error document goes to stdout as well.
 */
int ntp_report__check_output(const char *json_path, bool pretty, const char *sep, bool quiet);

#endif
