/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes of every ntprof command, defined once and documented in ntprof(1).
 * Each cause a script may want to tell apart has its own code; main() never
 * returns -errno.
 */
#ifndef NTP_EXIT_H
#define NTP_EXIT_H

enum ntp_exit {
	NTP_EXIT_OK = 0,
	NTP_EXIT_FAILURE = 1,     /* runtime failure (I/O error, disk full, BPF error) */
	NTP_EXIT_USAGE = 2,       /* bad command line */
	NTP_EXIT_UNSUPPORTED = 3, /* kernel lacks what is needed: BTF, hooks, nvme modules */
	NTP_EXIT_NOPERM = 4,      /* needs root (or CAP_BPF + CAP_PERFMON) */
	NTP_EXIT_NOFILE = 5,      /* input file missing or unreadable */
	NTP_EXIT_NOTSQLITE = 6,   /* input is not an SQLite database */
	NTP_EXIT_NOTNTP = 7,      /* SQLite, but not an ntprof recording */
	NTP_EXIT_TOONEW = 8,      /* recording of a newer schema than this ntprof reads */
	NTP_EXIT_CORRUPT = 9,     /* recording truncated or damaged */
	NTP_EXIT_MISMATCH = 10,   /* recordings that cannot be joined or compared */
	NTP_EXIT_THRESHOLD = 11,  /* compare: a requested threshold was exceeded */
	NTP_EXIT_UNTESTED = 12,   /* compare: a requested threshold could not be tested */
	NTP_EXIT_BLIND = 13,      /* record: a collector saw no (or far too few) commands while
				   * commands flowed; the recording is kept */
	NTP_EXIT_FLEET_DOWN = 14,     /* the fleet's engine cannot be reached, or refuses */
	NTP_EXIT_FLEET_SCHEMA = 15,   /* the fleet's tables are of another schema version */
	NTP_EXIT_FLEET_PARTIAL = 16,  /* a push stopped part way: run it again */
	NTP_EXIT_SERVE = 17,      /* monitor: cannot serve (the listen address) */
	NTP_EXIT_NOTTY = 18,      /* top: standard input or output is not a terminal */
	NTP_EXIT_HASH = 19,       /* recordings sampled with different hash versions: they
				   * select different commands and are never joined */
};

#endif
