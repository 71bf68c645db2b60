// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof help [COMMAND]: the command list, or COMMAND's own --help, so that
 * "ntprof help X" and "ntprof X --help" can never print different text.
 *
 * Hidden, for the build: ntprof help --completion-tables bash|zsh prints
 * every command's option table for that shell's completion
 * (lib/cli/complete.h).
 */
#include <stddef.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/cli/complete.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"

/* where the table hook writes the table of the command being read */
struct table_reader {
	enum ntp_complete_shell sh;
	const char *cmd;
	enum ntp_complete_args args;
	int tables;
};

static void read_table(void *ctx, const struct ntp_option *opts, unsigned int flags)
{
	struct table_reader *r = ctx;

	ntp_complete__table(stdout, r->sh, r->cmd, r->args, opts);
	r->tables++;
}

static enum ntp_complete_args operands(const struct cmd_struct *c)
{
	if (c->flags & CMD_ARGS_RECORDINGS)
		return NTP_COMPLETE_ARGS_RECORDINGS;
	if (c->flags & CMD_ARGS_WORKLOAD)
		return NTP_COMPLETE_ARGS_WORKLOAD;
	if (c->flags & CMD_ARGS_COMMAND)
		return NTP_COMPLETE_ARGS_COMMAND;
	return NTP_COMPLETE_ARGS_NONE;
}

/* each command run with the table hook set: it hands its table over and returns */
static int completion_tables(enum ntp_complete_shell sh)
{
	const struct cmd_struct *table = ntp_cmd__table(), *c;
	const char *names[32];
	size_t n = 0;
	int rc = NTP_EXIT_OK;

	for (c = table; c->name && n + 1 < sizeof(names) / sizeof(names[0]); c++)
		names[n++] = c->name;
	names[n] = NULL;
	ntp_complete__begin(stdout, sh, names);
	ntp_complete__table(stdout, sh, NULL, NTP_COMPLETE_ARGS_NONE, ntp_cmd__main_options());
	for (c = table; c->name; c++) {
		struct table_reader r = { .sh = sh, .cmd = c->name, .args = operands(c) };
		const char *argv[] = { c->name, NULL };

		ntp_opt__set_table_hook(read_table, &r);
		c->fn(1, argv);
		ntp_opt__set_table_hook(NULL, NULL);
		if (r.tables != 1) {
			ntp_error("internal error: command '%s' gave %d option tables, not one",
				  c->name, r.tables);
			rc = NTP_EXIT_FAILURE;
		}
	}
	ntp_err__set_cmd("help");
	return rc;
}

int cmd_help(int argc, const char **argv)
{
	static const char *const usage[] = {
		"ntprof help [COMMAND]",
		NULL,
	};
	static const char *const shells[] = { "bash", "zsh", NULL };
	const char *tables_for = NULL;
	const struct ntp_option opts[] = {
		NTP_OPT_CHOICE(0, "completion-tables", &tables_for, "SHELL",
			       "the option tables for SHELL's completion script (the build's)", shells,
			       .hidden = true),
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
	if (tables_for) {
		if (n > 0) {
			ntp_error("unexpected argument '%s' with --completion-tables", argv[0]);
			return NTP_EXIT_USAGE;
		}
		return completion_tables(strcmp(tables_for, "zsh") ? NTP_COMPLETE_BASH :
					 NTP_COMPLETE_ZSH);
	}
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
