// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof export: recordings as a Perfetto trace, to look at the sampled
 * commands on a timeline.  Documented in ntprof-export(1); the work is in
 * lib/export/export.c.
 */
#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/export/export.h"

static const char *const export_usage[] = {
	"ntprof export [options] FILE",
	"ntprof export [options] HOST.ntp TARGET.ntp...",
	NULL,
};

int cmd_export(int argc, const char **argv)
{
	struct ntp_export_opts o = { 0 };
	const struct ntp_option opts[] = {
		NTP_OPT_STRING('o', "output", &o.output, "FILE",
			       "write the trace to FILE (- for stdout); default: the first FILE with .pftrace for .ntp"),
		NTP_OPT_END(),
	};
	int n;

	ntp_err__set_cmd("export");
	n = ntp_opt__parse(opts, argc, argv, export_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n < 1) {
		ntp_error("no recording given: usage: %s", export_usage[0]);
		return NTP_EXIT_USAGE;
	}
	return ntp_export__run(argv, n, &o);
}
