/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shell completion from the option tables: the tables part of ntprof's bash
 * and zsh completion, which the build puts after the functions that read
 * them (contrib/completion/ntprof.bash, ntprof.zsh) to make the completion
 * scripts that `make install` and the Debian package install.  So the options, their values and
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

/* the shells whose completion reads the tables */
enum ntp_complete_shell {
	NTP_COMPLETE_BASH,        /* contrib/completion/ntprof.bash */
	NTP_COMPLETE_ZSH,         /* contrib/completion/ntprof.zsh */
};

/* the header, the list of commands (NULL-terminated) and the empty tables */
void ntp_complete__begin(FILE *f, enum ntp_complete_shell sh, const char *const *commands);

/*
 * One command's table, as ntp_opt__parse was given it: its options (with
 * -h/--help, which the parser adds), what each option's value completes to,
 * and what its operands are.  cmd NULL: ntprof's own options.
 */
void ntp_complete__table(FILE *f, enum ntp_complete_shell sh, const char *cmd,
			 enum ntp_complete_args args, const struct ntp_option *opts);

#endif
