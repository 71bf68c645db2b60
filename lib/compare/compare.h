/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ntprof compare BASELINE NEW` (ntprof-compare(1)): the report's groups and
 * stages of two runs side by side, with the change of each statistic.  A run
 * is a recording or the comma-separated recordings of one joined run.
 *
 * Each run is loaded into the report's own model (lib/model/model_load.h:
 * ntp_report__load), so a group's numbers here are exactly the numbers
 * `ntprof report` prints for it.  compare_model.h pairs them: one row per
 * group found in either run, and in it one entry per stage of the run's
 * view found in either.
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
 * cannot be compared, a bad file's own code (lib/model/model_files.h).
 */
/* base and new_path: each a recording, or recordings separated by commas */
int ntp_compare__run(const char *base, const char *new_path, const struct ntp_compare_opts *o);

struct ntp_source;

/* opens run r's source (ctx: the caller's); 0 or an NTP_EXIT_* code after one line */
typedef int (*ntp_compare_open_fn)(void *ctx, int r, struct ntp_source **s);

/*
 * The same on the sources open opens (the fleet's engine: lib/fleet/), base
 * and new_path naming the runs in messages only; open NULL: files.
 */
int ntp_compare__run_from(ntp_compare_open_fn open, void *ctx, const char *base,
			  const char *new_path, const struct ntp_compare_opts *o);

#endif
