/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntprof monitor (ntprof-monitor(1)): the collectors of record loaded in
 * histogram mode, and their histograms served as metrics over HTTP until
 * SIGINT or SIGTERM (or -d).  With a flight directory, the sampled
 * commands of the last seconds kept too, and written there as a recording
 * on SIGUSR2, on POST /snapshot and when the trigger holds
 * (lib/monitor/mon_flight.h, mon_snapshot.h, mon_trigger.h).
 *
 *	ntp_monitor__run()   load and attach, serve, detach; an NTP_EXIT_* code
 */
#ifndef NTP_MONITOR_H
#define NTP_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "lib/collect/attach.h"
#include "lib/core/transport.h"

enum ntp_monitor_role {
	NTP_MONITOR_HOST = 1 << 0,
	NTP_MONITOR_TARGET = 1 << 1,
};

struct ntp_filter;
struct ntp_trigger;

struct ntp_monitor_opts {
	unsigned int role;              /* enum ntp_monitor_role */
	enum ntp_transport transport;   /* -t */
	uint32_t sample_one_in;         /* -s */
	enum ntp_attach_policy attach;
	bool app;                       /* --app: the application's hooks and stages (host) */
	const struct ntp_filter *filter;        /* NULL: every command */
	double duration_s;              /* > 0: stop after it; 0: at SIGINT or SIGTERM */
	int listen_fd;                  /* the bound, listening socket (ntp_http__listen) */
	const char *listen;             /* its ADDR:PORT as given, for the start line */
	/* --user: who it runs as once its programs are attached (lib/monitor/mon_priv.h) */
	const char *user;
	uid_t uid;
	gid_t gid;
	/* --flight: the directory of the snapshots (writable by uid); NULL: no flight recorder */
	const char *flight_dir;
	uint64_t flight_window_ns;      /* --flight-seconds */
	size_t flight_max;              /* --flight-commands: each side's slowest kept a second */
	const struct ntp_trigger *trigger;      /* --trigger; NULL: none */
	const char *filter_session;     /* --session as given, for the snapshots' meta */
	const char *command_line;       /* for the snapshots' meta */
};

int ntp_monitor__run(const struct ntp_monitor_opts *o);

#endif
