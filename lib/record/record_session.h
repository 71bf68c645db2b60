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

#include "lib/record/record_opts.h"

/*
 * Record into path until a signal (SIGINT, SIGTERM), the end of duration_s,
 * or the workload's exit.  Prints its progress lines on stderr and the live
 * lines on stdout.  Returns 0 or an NTP_EXIT_* code after one error line.
 */
int ntp_record__run(const struct ntp_record_opts *o, const char *path);

#endif
