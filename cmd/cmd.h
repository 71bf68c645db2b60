/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands.  Each lives in cmd/<name>.c, owns its options struct, and
 * returns an NTP_EXIT_* code (lib/cli/exit.h).  argv[0] is the subcommand's name.
 */
#ifndef NTP_CMD_H
#define NTP_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/collect/attach.h"
#include "lib/core/transport.h"

struct ntp_option;

int cmd_record(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
int cmd_series(int argc, const char **argv);
int cmd_monitor(int argc, const char **argv);
int cmd_top(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_dump(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_join(int argc, const char **argv);
int cmd_finish(int argc, const char **argv);
int cmd_push(int argc, const char **argv);
int cmd_version(int argc, const char **argv);
int cmd_help(int argc, const char **argv);

/* one row of the commands[] table in cmd/ntprof.c */
struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;            /* the NAME line of ntprof-<name>(1) */
	unsigned int flags;             /* enum cmd_flags */
};

enum cmd_flags {
	CMD_NEEDS_ROOT = 1 << 0,        /* needs root, or CAP_BPF + CAP_PERFMON */
	/* what its operands are, for shell completion (none of these: it takes none) */
	CMD_ARGS_RECORDINGS = 1 << 1,   /* .ntp files (compare: also pairs joined by a comma) */
	CMD_ARGS_WORKLOAD = 1 << 2,     /* a command line to run (record) */
	CMD_ARGS_COMMAND = 1 << 3,      /* the name of an ntprof command (help) */
};

/*
 * A command of CMD_NEEDS_ROOT, once its options are parsed (its --help
 * needs nothing): NTP_EXIT_NOPERM after one line when the process lacks
 * root or CAP_BPF and CAP_PERFMON, else 0.
 */
int ntp_cmd__check_privileges(const char *name);
/*
 * The whole command line, "ntprof" and argv shell-quoted where needed, for
 * a recording's meta command_line; malloc'd, NULL when out of memory
 */
char *ntp_cmd__command_line(int argc, const char **argv);

/*
 * Kernel support for a command that loads the collectors (record, monitor)
 * in the roles asked, privileges first, then in order from the most basic
 * lack: 0, or an NTP_EXIT_* code after one line naming it.
 */
int ntp_cmd__probe_kernel(const char *cmd, bool host, bool target, enum ntp_transport t,
			  enum ntp_attach_policy attach);
/* exact match only, NULL if none */
const struct cmd_struct *ntp_cmd__find(const char *name);
/* "ntprof: error: unknown command 'x'; did you mean 'y'?" (returns NTP_EXIT_USAGE) */
int ntp_cmd__unknown(const char *name);
/* the top-level usage, global options and the list of commands (ntprof --help) */
void ntp_cmd__usage(FILE *f);
/* the commands[] table, ended by a row with a NULL name, and ntprof's own options */
const struct cmd_struct *ntp_cmd__table(void);
const struct ntp_option *ntp_cmd__main_options(void);

#include "lib/cli/version.h"

/* "ntprof version 0.9.0 (git ...)": the first line of `ntprof version` and --version */
void ntp_version__print(FILE *f);

#endif
