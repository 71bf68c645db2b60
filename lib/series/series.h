/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntprof series: per interval and group, the commands, their rate, and the
 * mean and p99 of each stage, of one recording or of joined recordings
 * (ntprof-series(1)).
 */
#ifndef NTP_SERIES_H
#define NTP_SERIES_H

#include "lib/series/series_opts.h"

/* the series of paths[0..n) as text, JSON and/or CSV; 0 or an NTP_EXIT_* code */
int ntp_series__run(const char *const *paths, int n, const struct ntp_series_opts *o);

struct ntp_source;

/* opens the series' source (ctx: the caller's); 0 or an NTP_EXIT_* code after one line */
typedef int (*ntp_series_open_fn)(void *ctx, struct ntp_source **s);

/*
 * The same from a source that streams its own rows (the fleet's engine:
 * lib/fleet/), what naming it in messages
 */
int ntp_series__run_from(ntp_series_open_fn open, void *ctx, const char *what,
			 const struct ntp_series_opts *o);

#endif
