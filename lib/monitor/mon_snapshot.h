/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flight recorder's snapshot (ntprof-monitor(1), --flight): the window's
 * commands (lib/monitor/mon_flight.h) written by record's writer
 * (lib/ntp/db_write.h) as a complete recording of the same schema and meta
 * as record's, that report, dump and series read like any other, its meta
 * saying it is a snapshot, of which window and why (ntprof-ntp(5)).
 * Published whole: written as DIR/.NAME.tmp, then renamed to DIR/NAME, so
 * that a reader of DIR never meets a file being written.
 */
#ifndef NTP_MON_SNAPSHOT_H
#define NTP_MON_SNAPSHOT_H

#include <stdint.h>

#include "lib/core/transport.h"
#include "lib/monitor/mon_flight.h"

struct ntp_collector;
struct ntp_filter;

struct ntp_snapshot_meta {
	const char *role;               /* "host", "target" or "both" */
	enum ntp_transport transport;
	uint32_t sample_one_in;
	const char *command_line;
	const struct ntp_filter *filter;        /* NULL: none */
	const char *filter_session;     /* --session as given */
	const char *reason;             /* what asked for it: meta flight_snapshot */
	/* the window, on the records' clock (CLOCK_MONOTONIC), and its start on the wall clock */
	uint64_t start_ns, stop_ns, start_realtime_ns;
	/* their hooks tables (NULL: not that side) */
	const struct ntp_collector *host, *target;
};

/*
 * f's records into DIR/NAME, published by a rename.  0, or NTP_EXIT_* after
 * one line naming the file; nothing is left under NAME on error.
 */
int ntp_snapshot__write(const struct ntp_flight *f, const struct ntp_snapshot_meta *m,
			const char *dir, const char *name);

#endif
