// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof's main: global options, the command table, dispatch, and a final
 * check that what we printed really reached stdout.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/cli/outfile.h"
#include "lib/cli/pager.h"
#include "lib/collect/kernel_probe.h"
#include "lib/collect/kernel_probe.h"

/*
 * One row per command; the summary is the NAME line of its man page.  Adding
 * a command is one row here, its cmd/<name>.c and Documentation/ntprof-<name>.rst.
 */
static const struct cmd_struct commands[] = {
	{ "record",  cmd_record,  "record NVMe-oF command latencies, stage by stage",
	  CMD_NEEDS_ROOT | CMD_ARGS_WORKLOAD },
	{ "report",  cmd_report,  "report per-stage latencies from ntprof recordings", CMD_ARGS_RECORDINGS },
	{ "compare", cmd_compare, "compare the per-stage latencies of two ntprof recordings",
	  CMD_ARGS_RECORDINGS },
	{ "series",  cmd_series,  "per-interval latencies of each stage from ntprof recordings",
	  CMD_ARGS_RECORDINGS },
	{ "dump",    cmd_dump,    "print the contents of an ntprof recording", CMD_ARGS_RECORDINGS },
	{ "export",  cmd_export,  "write ntprof recordings as a Perfetto trace", CMD_ARGS_RECORDINGS },
	{ "join",    cmd_join,    "write host and target recordings as one joined recording",
	  CMD_ARGS_RECORDINGS },
	{ "finish",  cmd_finish,  "finish in place a recording left by a killed ntprof record",
	  CMD_ARGS_RECORDINGS },
	{ "push",    cmd_push,    "send ntprof recordings to a fleet's ClickHouse server",
	  CMD_ARGS_RECORDINGS },
	{ "top",     cmd_top,     "a full-screen view of NVMe-oF latencies, refreshed live or replayed", 0 },
	{ "monitor", cmd_monitor, "serve NVMe-oF stage latency histograms as Prometheus metrics",
	  CMD_NEEDS_ROOT },
	{ "check",   cmd_check,   "show what this kernel lets ntprof record", CMD_NEEDS_ROOT },
	{ "version", cmd_version, "show the versions of ntprof and its formats", 0 },
	{ "help",    cmd_help,    "show help for ntprof and its commands", CMD_ARGS_COMMAND },
	{ NULL },
};

static const char *const main_usage[] = {
	"ntprof [-v|--verbose]... [--no-pager] [--version] [-h|--help] COMMAND [ARGS]",
	NULL,
};

/* the process-wide settings the global options change */
static int verbose;
static bool show_version;
static bool no_pager;

static const struct ntp_option main_options[] = {
	NTP_OPT_INCR('v', "verbose", &verbose, "say more, libbpf's log included; repeatable"),
	NTP_OPT_BOOL(0, "version", &show_version, "print ntprof's version and exit"),
	NTP_OPT_BOOL(0, "no-pager", &no_pager,
		     "never page a command's text on a terminal ($NTPROF_PAGER, $PAGER, less)"),
	NTP_OPT_END(),
};

const struct cmd_struct *ntp_cmd__table(void)
{
	return commands;
}

const struct ntp_option *ntp_cmd__main_options(void)
{
	return main_options;
}

const struct cmd_struct *ntp_cmd__find(const char *name)
{
	const struct cmd_struct *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int ntp_cmd__check_privileges(const char *name)
{
	const struct cmd_struct *c = ntp_cmd__find(name);

	if (!c || !(c->flags & CMD_NEEDS_ROOT) || ntp_probe__bpf_privileged())
		return 0;
	ntp_error("needs root (or CAP_BPF and CAP_PERFMON)");
	return NTP_EXIT_NOPERM;
}

int ntp_cmd__unknown(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	const char *hint;
	size_t k;

	for (k = 0; commands[k].name; k++)
		names[k] = commands[k].name;
	names[k] = NULL;
	hint = ntp_opt__suggest(name, names);
	if (hint)
		ntp_error("unknown command '%s'; did you mean '%s'?", name, hint);
	else
		ntp_error("unknown command '%s'; see 'ntprof help'", name);
	return NTP_EXIT_USAGE;
}

static void print_commands(FILE *f)
{
	const struct cmd_struct *c;
	int width = 0;
	bool any_root = false;

	for (c = commands; c->name; c++)
		if ((int)strlen(c->name) > width)
			width = (int)strlen(c->name);
	fputs("\ncommands:\n", f);
	for (c = commands; c->name; c++)
		fprintf(f, "   %-*s  %s\n", width, c->name, c->summary);
	fputc('\n', f);
	for (c = commands; c->name; c++) {
		if (!(c->flags & CMD_NEEDS_ROOT))
			continue;
		fprintf(f, "%s%s", any_root ? ", " : "needs root (or CAP_BPF and CAP_PERFMON): ", c->name);
		any_root = true;
	}
	if (any_root)
		fputc('\n', f);
	fputs("See 'ntprof help COMMAND' or 'man ntprof-COMMAND' for more on a command.\n", f);
}

void ntp_cmd__usage(FILE *f)
{
	ntp_opt__usage(f, main_usage, main_options);
	print_commands(f);
}

/*
 * perf's run_builtin() check: a report that did not reach a full disk or a
 * closed pipe must not exit 0.  Said once, with the errno of the write
 * that failed (lib/cli/outfile.h keeps it), and not again when the command
 * has said it.
 */
static int finish(int rc)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno ? errno : EIO;
	errno = 0;
	if (fclose(stdout) != 0 && !err)
		err = errno ? errno : EIO;
	if (err) {
		if (ntp_outfile__stdout_errno())
			err = ntp_outfile__stdout_errno();
		if (!ntp_outfile__stdout_told())
			ntp_error("cannot write standard output: %s", strerror(err));
		ntp_outfile__stdout_tell();
		if (rc == NTP_EXIT_OK)
			rc = NTP_EXIT_FAILURE;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char **args = (const char **)argv;
	const struct cmd_struct *cmd;
	int n, rc;

	/*
	 * Before anything is printed: standard output that keeps why a write
	 * failed.  Without memory for it, stdio's stdout stays, and a failure
	 * is told with what errno says then.
	 */
	ntp_outfile__stdout_install();
	n = ntp_opt__parse(main_options, argc, args, main_usage, NTP_OPT_STOP_AT_NON_OPTION);
	if (n == NTP_OPT_ERROR)
		return finish(NTP_EXIT_USAGE);
	if (n == NTP_OPT_HELP) {
		print_commands(stdout);
		return finish(NTP_EXIT_OK);
	}
	ntp_err__set_verbosity(1 + verbose);
	if (no_pager)
		ntp_pager__disable();
	if (show_version) {
		ntp_version__print(stdout);
		return finish(NTP_EXIT_OK);
	}
	if (n == 0) {
		ntp_cmd__usage(stderr);
		return finish(NTP_EXIT_USAGE);
	}

	cmd = ntp_cmd__find(args[0]);
	if (!cmd)
		return finish(ntp_cmd__unknown(args[0]));
	ntp_err__set_cmd(cmd->name);
	rc = cmd->fn(n, args);
	/* exit codes are lib/cli/exit.h's; a negative errno here is a bug, not a status */
	if (rc < 0 || rc > 255) {
		ntp_error("internal error: command returned %d", rc);
		rc = NTP_EXIT_FAILURE;
	}
	return finish(rc);
}
