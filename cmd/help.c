// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof help [COMMAND]: the command list, or COMMAND's own --help, so that
 * "ntprof help X" and "ntprof X --help" can never print different text.
 */
#include <stddef.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"

int cmd_help(int argc, const char **argv)
{
	static const char *const usage[] = {
		"ntprof help [COMMAND]",
		NULL,
	};
	const struct ntp_option opts[] = {
		NTP_OPT_END(),
	};
	const struct cmd_struct *cmd;
	const char *sub_argv[3];
	int n;

	n = ntp_opt__parse(opts, argc, argv, usage, 0);
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == 0) {
		ntp_cmd__usage(stdout);
		return NTP_EXIT_OK;
	}
	if (n > 1) {
		ntp_error("unexpected argument '%s': give one command", argv[1]);
		return NTP_EXIT_USAGE;
	}

	cmd = ntp_cmd__find(argv[0]);
	if (!cmd)
		return ntp_cmd__unknown(argv[0]);
	sub_argv[0] = cmd->name;
	sub_argv[1] = "--help";
	sub_argv[2] = NULL;
	ntp_err__set_cmd(cmd->name);
	return cmd->fn(2, sub_argv);
}
