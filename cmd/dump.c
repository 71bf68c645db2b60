// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof dump: the sampled commands of a recording, or the joined commands
 * of host and target recordings, as CSV, for spreadsheets and scripts.
 * Documented in ntprof-dump(1); the work is in lib/dump/dump.c.
 */
#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/model/model_filter_opt.h"
#include "lib/dump/dump.h"

static const char *const dump_usage[] = {
	"ntprof dump [options] FILE",
	"ntprof dump [options] HOST.ntp TARGET.ntp...",
	NULL,
};

int cmd_dump(int argc, const char **argv)
{
	struct ntp_dump_opts o = { 0 };
	const struct ntp_option opts[] = {
		NTP_OPT_STRING('o', "output", &o.output, "FILE",
			       "write the CSV to FILE instead of stdout"),
		/* report's read filters, long options only as there */
		NTP_READ_FILTER_OPTIONS(&o.filter),
		NTP_OPT_BOOL(0, "no-pager", &o.no_pager,
			     "never page the CSV, even on a terminal (as ntprof --no-pager)"),
		NTP_OPT_END(),
	};
	int n;

	ntp_err__set_cmd("dump");
	n = ntp_opt__parse(opts, argc, argv, dump_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n < 1) {
		ntp_error("no recording given: usage: %s", dump_usage[0]);
		return NTP_EXIT_USAGE;
	}
	return ntp_dump__run(argv, n, &o);
}
