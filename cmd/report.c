// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof report: the per-group, per-stage latency report of a recording, or
 * of host and target recordings joined.
 * Documented in ntprof-report(1); the work is in lib/report/, shared with
 * the end of `ntprof record`.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/report/report.h"

static const char *const report_usage[] = {
	"ntprof report [options] FILE",
	"ntprof report [options] HOST.ntp TARGET.ntp...",
	NULL,
};

static const char *const stage_views[] = { "summary", "detail", NULL };

/* a percentage in [0, 100], decimals allowed: the whole string must be a number */
static int parse_percent(const struct ntp_option *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > 100) {
		ntp_error("invalid value '%s' for option '--%s': expected a percentage from 0 to 100",
			  arg, opt->long_name);
		return -1;
	}
	*(double *)opt->value = v;
	return 0;
}

int cmd_report(int argc, const char **argv)
{
	struct ntp_report_opts o = { 0 };
	const struct ntp_option opts[] = {
		NTP_OPT_STRING('j', "json", &o.json_path, "FILE",
			       "also write the report as JSON to FILE ('-': stdout, instead of the text)"),
		NTP_OPT_BOOL(0, "pretty", &o.pretty, "indent the JSON"),
		NTP_OPT_CALLBACK(0, "percent-limit", &o.percent_limit, "PCT",
				 "hide groups holding less than PCT% of the sampled commands",
				 parse_percent),
		NTP_OPT_STRING('t', "field-separator", &o.field_separator, "SEP",
			       "unpadded columns separated by SEP (e.g. ',')"),
		NTP_OPT_CHOICE('S', "stages", &o.stages, "VIEW",
			       "summary: the main stages (default); detail: the finer sub-stages",
			       stage_views),
		NTP_OPT_END(),
	};
	int n;

	ntp_err__set_cmd("report");
	n = ntp_opt__parse(opts, argc, argv, report_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n < 1) {
		ntp_error("no recording given: usage: %s", report_usage[0]);
		return NTP_EXIT_USAGE;
	}
	return ntp_report__run(argv, n, &o);
}
