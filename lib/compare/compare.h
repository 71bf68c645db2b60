/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ntprof compare BASELINE NEW` (ntprof-compare(1)): the report's groups and
 * stages of two recordings side by side, with the change of each statistic.
 *
 * Each recording is summarized by the report's own code
 * (lib/report/report_query.h: ntp_report__load), so a group's numbers here are exactly the numbers
 * `ntprof report` prints for it.  The model below pairs them: one row per
 * group found in either recording, and in it one entry per stage found in
 * either; it does not assume how many stages a recording has, so joined
 * host+target recordings only add entries.
 *
 * The first half is the interface of cmd/compare.c; the second is shared by
 * lib/compare*.c only.
 */
#ifndef NTP_COMPARE_H
#define NTP_COMPARE_H

#include "lib/compare/compare_opts.h"

/*
 * Compare two recordings, base first.  Prints the text to stdout unless the
 * JSON goes there.  Returns an NTP_EXIT_* code: _THRESHOLD (after printing
 * everything) when --threshold was exceeded, _MISMATCH when the recordings
 * cannot be compared, the codes of ntp_db__open_read() for bad files.
 */
int ntp_compare__run(const char *base, const char *new_path, const struct ntp_compare_opts *o);

#endif
