// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof finish: a recording that a killed recorder left in WAL mode (or
 * with an interrupted write's journal) made one finished file, in place,
 * because the user asks: readers never change a recording.  Documented in
 * ntprof-finish(1); the work is in lib/ntp/db_finish.c.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/ntp/db_finish.h"

static const char *const finish_usage[] = {
	"ntprof finish [options] FILE...",
	NULL,
};

int cmd_finish(int argc, const char **argv)
{
	struct ntp_finish_opts o = { 0 };
	const struct ntp_option opts[] = {
		NTP_OPT_BOOL('n', "dry-run", &o.dry_run,
			     "say what would be done to each FILE, and change nothing"),
		NTP_OPT_BOOL(0, "without-wal", &o.without_wal,
			     "finish a FILE left in WAL mode whose FILE-wal is missing, as it is"),
		NTP_OPT_END(),
	};
	int n, rc = 0;

	ntp_err__set_cmd("finish");
	n = ntp_opt__parse(opts, argc, argv, finish_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n < 1) {
		ntp_error("no recording given: usage: %s", finish_usage[0]);
		return NTP_EXIT_USAGE;
	}
	/* each file in turn; the exit status is the first failure's */
	for (int i = 0; i < n; i++) {
		struct ntp_finish_done d;
		int err = ntp_db__finish(argv[i], &o, &d);

		if (!err)
			printf("%s: %s: %s\n", argv[i], d.was == NTP_DB_FINISHED ? "finished already" :
			       o.dry_run ? "would be finished" : "finished", d.did);
		if (err && !rc)
			rc = err;
	}
	return rc;
}
