/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shell completion from the option tables: the tables part of ntprof's bash
 * completion, which the build puts before the functions that read it
 * (contrib/completion/ntprof.bash) to make the completion script that `make
 * install` and the Debian package install.  So the options, their values and
 * the commands completed are the ones --help shows, read from the same tables.
 */
#ifndef NTP_COMPLETE_H
#define NTP_COMPLETE_H

#include <stdio.h>

struct ntp_option;

/* what a command's operands are */
enum ntp_complete_args {
	NTP_COMPLETE_ARGS_NONE,
	NTP_COMPLETE_ARGS_RECORDINGS,   /* .ntp files */
	NTP_COMPLETE_ARGS_WORKLOAD,     /* a command line to run */
	NTP_COMPLETE_ARGS_COMMAND,      /* the name of one of the commands */
};

/* the header, the list of commands (NULL-terminated) and the empty tables */
void ntp_complete__bash_begin(FILE *f, const char *const *commands);

/*
 * One command's table, as ntp_opt__parse was given it: its options (with
 * -h/--help, which the parser adds), what each option's value completes to,
 * and what its operands are.  cmd NULL: ntprof's own options.
 */
void ntp_complete__bash_table(FILE *f, const char *cmd, enum ntp_complete_args args,
			      const struct ntp_option *opts);

#endif
