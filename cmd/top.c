// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof top: record's live aggregation as a full screen, refreshed each
 * interval, of commands recorded now or of a recording replayed
 * (--input).  Documented in ntprof-top(1).
 *
 * parse and validate -> live: the recording's options checked, a terminal
 * on stdin and stdout, probe the kernel for the role, record into a
 * temporary file (lib/top/top.c);
 * --input: open the recording, a terminal, replay it.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/core/tmpdir.h"
#include "lib/diag/diag_by.h"
#include "lib/record/record_cli.h"
#include "lib/top/top.h"
#include "lib/top/top_screen.h"

#define MAX_INTERVAL_S 3600
#define MAX_SPEED 1e6

/* top's own options; those of the live recording are in struct ntp_record_cli */
struct top_cli {
	double interval;
	const char *input;
	double speed;
	const char *sort;
	const char *by;
};

static const char *const top_usage[] = {
	"ntprof top [options]",
	"ntprof top --input FILE.ntp [--speed X] [options]",
	NULL,
};

/* in enum ntp_top_sort's order */
static const char *const sorts[] = { "share", "p99", "mean", "commands", "group", NULL };

static int parse_speed(const struct ntp_option *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0 && v <= MAX_SPEED)) {
		ntp_error("invalid value for option '--speed': '%s': a number above 0 and at most "
			  "1000000 (times the recorded pace)", arg);
		return -1;
	}
	*(double *)opt->value = v;
	return 0;
}

/* live: the recording's options from the command line, checked as record checks them */
static int live_opts(const struct top_cli *c, struct ntp_record_cli *rc, struct ntp_record_opts *ro)
{
	int err;

	if (c->by && !strcmp(rc->role, "target")) {
		ntp_error("--by needs the host side (-r host or -r both): a target has no host queue "
			  "or process");
		return NTP_EXIT_USAGE;
	}
	err = ntp_record_cli__apply(rc, ro);
	if (err)
		return err;
	ro->cmdline = "ntprof top";
	return 0;
}

/* live: a private directory for the recording, removed with what SQLite left in it */
static int run_live(const struct ntp_top_opts *o, struct ntp_record_opts *ro)
{
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal", ".old" };
	char dir[PATH_MAX], path[PATH_MAX + 16], p[PATH_MAX + 32];
	int err;

	err = ntp_cmd__probe_kernel("top", ro->role & NTP_RECORD_HOST, ro->role & NTP_RECORD_TARGET,
				    ro->transport, ro->attach);
	if (err)
		return err;
	snprintf(dir, sizeof(dir), "%s/ntprof-top-XXXXXX", ntp_tmpdir());
	if (!mkdtemp(dir)) {
		ntp_error("creating a temporary directory in %s: %s", ntp_tmpdir(), strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s/top.ntp", dir);
	err = ntp_top__live(o, ro, path);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
		unlink(p);
	}
	rmdir(dir);
	return err;
}

int cmd_top(int argc, const char **argv)
{
	struct top_cli c = { .interval = 1.0, .speed = 1.0, .sort = "share" };
	struct ntp_record_cli rc = NTP_RECORD_CLI_INIT;
	bool interval_set = false, speed_set = false;
	const struct ntp_option opts[] = {
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'i', .long_name = "interval",
		  .value = &c.interval, .argh = "SEC",
		  .help = "refresh every SEC seconds (default 1)", .is_set = &interval_set },
		NTP_OPT_CHOICE(0, "sort", &c.sort, "KEY",
			       "the first sort: share (default), p99, mean, commands, group", sorts),
		NTP_OPT_CHOICE(0, "by", &c.by, "KEY",
			       "a row per host queue, submitting process, submitting CPU or "
			       "queue's io_cpu, as report --by, not per group", ntp_diag_by_names),
		NTP_OPT_STRING(0, "input", &c.input, "FILE",
			       "replay the recording FILE instead of recording (no root needed)"),
		NTP_OPT_CALLBACK(0, "speed", &c.speed, "X",
				 "--input: replay X times faster than recorded (default 1)", parse_speed,
				 .is_set = &speed_set),
		NTP_RECORD_CLI_WHAT(&rc),
		NTP_RECORD_CLI_HOW(&rc),
		NTP_OPT_END(),
	};
	struct ntp_top_opts o = { 0 };
	struct ntp_record_opts ro = { 0 };
	int n, err;

	ntp_err__set_cmd("top");
	n = ntp_opt__parse(opts, argc, argv, top_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n > 0) {
		ntp_error("unexpected argument '%s' (a recording is given with --input)", argv[0]);
		return NTP_EXIT_USAGE;
	}
	if (interval_set && !(c.interval >= 0.1 && c.interval <= MAX_INTERVAL_S)) {
		ntp_error("invalid value for option '--interval': must be at least 0.1 seconds and at most "
			  "%d (an hour)", MAX_INTERVAL_S);
		return NTP_EXIT_USAGE;
	}
	if (speed_set && !c.input) {
		ntp_error("--speed needs --input: a live view runs at the pace of the commands");
		return NTP_EXIT_USAGE;
	}
	o.interval_s = c.interval;
	o.speed = c.speed;
	/* the live keys are report --by's, in its order */
	o.by = c.by ? (enum ntp_live_by)(NTP_LIVE_BY_QUEUE + ntp_diag_by__key(c.by) -
					 NTP_DIAG_BY_QUEUE) : NTP_LIVE_BY_GROUP;
	for (int i = 0; sorts[i]; i++)
		if (!strcmp(sorts[i], c.sort))
			o.sort = (enum ntp_top_sort)i;
	/* a recording that cannot be read says so first, terminal or not */
	if (c.input) {
		ntp_err__set_verbosity(ntp_err__verbosity() + rc.verbose);
		return ntp_top__replay(&o, c.input);
	}
	err = live_opts(&c, &rc, &ro);
	err = err ?: ntp_top_screen__check();
	return err ?: run_live(&o, &ro);
}
