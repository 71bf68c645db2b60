/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands.  Each lives in cmd/<name>.c, owns its options struct, and
 * returns an NTP_EXIT_* code (lib/exit.h).  argv[0] is the subcommand's name.
 */
#ifndef NTP_CMD_H
#define NTP_CMD_H

int cmd_record(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_dump(int argc, const char **argv);
int cmd_version(int argc, const char **argv);
int cmd_help(int argc, const char **argv);

/* ntprof's version string, set by the build from git describe */
extern const char ntp_version_string[];

#endif
