/* SPDX-License-Identifier: GPL-2.0 */
/* What a recording is asked for (ntprof-record(1), OPTIONS), read by every part of the session. */
#ifndef NTP_RECORD_OPTS_H
#define NTP_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/collect/attach.h"
#include "lib/core/transport.h"

enum ntp_record_role {
	NTP_RECORD_HOST = 1 << 0,
	NTP_RECORD_TARGET = 1 << 1,
	NTP_RECORD_BOTH = NTP_RECORD_HOST | NTP_RECORD_TARGET,
};

struct ntp_filter;
struct ntp_live;

/*
 * Where the live aggregation goes instead of the lines on stdout (ntprof
 * top).  The session keeps the whole run's groups too
 * (ntp_live__keep_total).
 */
struct ntp_record_view {
	void *ctx;
	int by;                         /* enum ntp_live_by: the rows' key (ntp_live__set_by) */
	/* the interval that ends now, elapsed_s into the recording: 0, or -errno to stop the view */
	int (*tick)(void *ctx, struct ntp_live *l, double elapsed_s, double interval_s);
	/* called at least every 100 ms: true ends the recording (stop_reason "quit") */
	bool (*poll)(void *ctx);
};

struct ntp_record_opts {
	unsigned int role;              /* enum ntp_record_role */
	enum ntp_transport transport;   /* -t */
	uint32_t sample_one_in;
	double duration_s;              /* > 0: stop after it; 0: no limit */
	double interval_s;              /* live line period, > 0 */
	bool live;                      /* print live lines to stdout (or hand them to view) */
	const struct ntp_record_view *view;     /* NULL: the lines */
	enum ntp_attach_policy attach;
	bool no_app;                    /* --no-app: not the application's side (host) */
	const struct ntp_filter *filter;        /* NULL: every command */
	const char *filter_session;     /* --session as given, for meta filter_session */
	const char *cmdline;            /* for meta command_line */
	const char *const *workload;    /* argv to run (NULL-terminated), or NULL */
};

#endif
