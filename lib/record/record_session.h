/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording session behind `ntprof record` (ntprof-record(1)): the
 * collectors of the chosen role, the writer, the live lines, and the
 * workload (lib/record/record_child.h) started after the programs are
 * attached.  cmd/record.c parses and validates the command line, then calls
 * ntp_record__run(); record_session.c runs the parts of record_priv.h.
 *
 *	load (host, target or both) -> attach -> open the file -> meta, hooks
 *	-> start the workload -> poll the ring buffers into the writer, one
 *	intervals row per side and one commit about every second, live lines
 *	every -i -> stop (signal, -d, the workload's exit, an error) -> detach,
 *	drain -> last rows and meta -> close
 */
#ifndef NTP_RECORD_SESSION_H
#define NTP_RECORD_SESSION_H

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

struct ntp_record_opts {
	unsigned int role;              /* enum ntp_record_role */
	enum ntp_transport transport;   /* -t */
	uint32_t sample_one_in;
	double duration_s;              /* > 0: stop after it; 0: no limit */
	double interval_s;              /* live line period, > 0 */
	bool live;                      /* print live lines to stdout */
	enum ntp_attach_policy attach;
	const struct ntp_filter *filter;        /* NULL: every command */
	const char *filter_session;     /* --session as given, for meta filter_session */
	const char *cmdline;            /* for meta command_line */
	const char *const *workload;    /* argv to run (NULL-terminated), or NULL */
};

/*
 * Record into path until a signal (SIGINT, SIGTERM), the end of duration_s,
 * or the workload's exit.  Prints its progress lines on stderr and the live
 * lines on stdout.  Returns 0 or an NTP_EXIT_* code after one error line.
 */
int ntp_record__run(const struct ntp_record_opts *o, const char *path);

#endif
