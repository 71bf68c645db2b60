// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof record: sample NVMe/TCP commands on the host, the target or both
 * into a .ntp recording, print live lines while recording, then the report
 * on it.  Documented in ntprof-record(1).
 *
 * parse and validate (nothing is loaded for a bad command line) -> probe the
 * kernel for the role -> record (lib/record/record_session.c) -> report.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/collect/attach.h"
#include "lib/core/tmpdir.h"
#include "lib/model/model_files.h"
#include "lib/ntp/db_write.h"
#include "lib/record/record_child.h"
#include "lib/record/record_cli.h"
#include "lib/record/record_session.h"
#include "lib/report/report.h"

/* -d and -i: a year and an hour, far below where seconds x 1e9 overflows */
#define MAX_DURATION_S (366 * 24 * 3600)
#define MAX_INTERVAL_S 3600

/* record's own options; those of every recording are in struct ntp_record_cli */
struct record_cli {
	const char *output;
	double duration;
	double interval;
	const char *json;
	bool offline;
};

static const char *const record_usage[] = {
	"ntprof record [options] [--] [COMMAND [ARGS...]]",
	NULL,
};

/* without -o: a private directory, removed with everything SQLite left in it */
struct tmp_output {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
};

static int tmp_output_create(struct tmp_output *t)
{
	const char *base = ntp_tmpdir();

	snprintf(t->dir, sizeof(t->dir), "%s/ntprof-record-XXXXXX", base);
	if (!mkdtemp(t->dir)) {
		ntp_error("creating a temporary directory in %s: %s", base, strerror(errno));
		t->dir[0] = '\0';
		return NTP_EXIT_FAILURE;
	}
	snprintf(t->path, sizeof(t->path), "%s/record.ntp", t->dir);
	return 0;
}

static void tmp_output_remove(struct tmp_output *t)
{
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal", ".old" };
	char p[PATH_MAX + 32];
	size_t i;

	if (!t->dir[0])
		return;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", t->path, suffixes[i]);
		unlink(p);
	}
	rmdir(t->dir);
}

static int record_main(int argc, const char **argv, const char *cmdline);

int cmd_record(int argc, const char **argv)
{
	char *cmdline;
	int rc;

	ntp_err__set_cmd("record");
	/* before parsing: ntp_opt__parse() reorders argv */
	cmdline = ntp_cmd__command_line(argc, argv);
	if (!cmdline) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	rc = record_main(argc, argv, cmdline);
	free(cmdline);
	return rc;
}

static int record_main(int argc, const char **argv, const char *cmdline)
{
	struct record_cli c = { .interval = 1.0 };
	struct ntp_record_cli rc = NTP_RECORD_CLI_INIT;
	bool duration_set = false, interval_set = false;
	const struct ntp_option opts[] = {
		NTP_RECORD_CLI_WHAT(&rc),
		NTP_OPT_STRING('o', "output", &c.output, "FILE",
			       "save the recording to FILE (default: a temporary file, removed at exit)"),
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'd', .long_name = "duration",
		  .value = &c.duration, .argh = "SEC", .help = "stop after SEC seconds (default: at Ctrl-C)",
		  .is_set = &duration_set },
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'i', .long_name = "interval",
		  .value = &c.interval, .argh = "SEC",
		  .help = "print the live lines every SEC seconds (default 1)", .is_set = &interval_set },
		NTP_OPT_BOOL(0, "offline", &c.offline, "no live lines: print only the final report"),
		NTP_OPT_STRING('j', "json", &c.json, "FILE",
			       "also write the final report as JSON to FILE ('-': stdout, instead of the text)"),
		NTP_RECORD_CLI_HOW(&rc),
		NTP_OPT_END(),
	};
	struct ntp_record_opts o = { 0 };
	struct ntp_report_opts ro = { 0 };
	struct tmp_output tmp = { .dir = "" };
	const char *path;
	int n, err;

	n = ntp_opt__parse(opts, argc, argv, record_usage, NTP_OPT_STOP_AT_NON_OPTION);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	/* the upper bounds keep SEC x 1e9 ns far inside 64 bits */
	if (duration_set && !(c.duration > 0 && c.duration <= MAX_DURATION_S)) {
		ntp_error("invalid value for option '--duration': must be more than 0 seconds and at most "
			  "%d (a year)", MAX_DURATION_S);
		return NTP_EXIT_USAGE;
	}
	if (interval_set && !(c.interval >= 0.1 && c.interval <= MAX_INTERVAL_S)) {
		ntp_error("invalid value for option '--interval': must be at least 0.1 seconds and at most "
			  "%d (an hour)", MAX_INTERVAL_S);
		return NTP_EXIT_USAGE;
	}
	/* the filters are checked (and the namespace looked up) before anything is loaded */
	err = ntp_record_cli__apply(&rc, &o);
	if (err)
		return err;
	o.duration_s = duration_set ? c.duration : 0;
	o.interval_s = c.interval;
	/* JSON on stdout must stay parseable: no live lines in front of it */
	o.live = !c.offline && !(c.json && !strcmp(c.json, "-"));
	o.cmdline = cmdline;
	o.workload = n > 0 ? argv : NULL;

	/* a command that cannot run, or an output that cannot be created, is said before loading */
	if (o.workload) {
		err = ntp_record_child__check(o.workload);
		if (err)
			return err;
	}
	if (c.output) {
		err = ntp_writer__check_place(c.output);
		if (err)
			return err;
	}
	err = ntp_cmd__probe_kernel("record", o.role & NTP_RECORD_HOST, o.role & NTP_RECORD_TARGET,
				    o.transport, o.attach);
	if (err)
		return err;

	if (c.output) {
		path = c.output;
	} else {
		if (o.role == NTP_RECORD_TARGET)
			ntp_warn("-r target without -o: the recording is removed at exit; "
				 "save it with -o to join it with the host's");
		err = tmp_output_create(&tmp);
		if (err)
			return err;
		path = tmp.path;
	}
	err = ntp_record__run(&o, path);
	/*
	 * -r both: the join's pairing written into the recording, so that its
	 * joined_stages view answers plain SQL (ntprof-ntp(5)).  The recording
	 * is whole without it: a failure is a warning.
	 */
	if (!err && o.role == NTP_RECORD_BOTH && c.output && ntp_source__store_pairing(path))
		ntp_warn("%s: its joined_stages view stays empty; 'ntprof join -o FILE %s' writes"
			 " a joined recording instead", path, path);
	if (!err) {
		ro.json_path = c.json;
		/* the report that ends a recording is not paged: record is watched live */
		ro.no_pager = true;
		err = ntp_report__run(&path, 1, &ro);
	}
	tmp_output_remove(&tmp);
	return err;
}
