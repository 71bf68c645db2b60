// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof series: how the stages of a recording moved over its run, per
 * interval and group (n, rate, the mean and p99 of each stage), as text,
 * JSON or CSV; of one recording, or of host and target recordings joined.
 * Documented in ntprof-series(1); the work is in lib/series/.
 */
#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/core/stat_table.h"
#include "lib/diag/diag_by.h"
#include "lib/model/model_filter_opt.h"
#include "lib/fleet/fleet_opts.h"
#include "lib/fleet/fleet_source.h"
#include "lib/series/series.h"

static const char *const series_usage[] = {
	"ntprof series [options] FILE",
	"ntprof series [options] HOST.ntp TARGET.ntp...",
	"ntprof series --url URL [fleet filters] [options]",
	NULL,
};

/* the interval's bounds: a microsecond, and what int64 ns of interval indexes stay far from */
#define SERIES_MIN_S 1e-6
#define SERIES_MAX_S 1e6

int cmd_series(int argc, const char **argv)
{
	struct ntp_series_opts o = { .interval_s = NTP_SERIES_DEFAULT_S };
	struct ntp_fleet_conn conn = { 0 };
	struct ntp_fleet_open fo = { .rf = &o.filter };
	const struct ntp_option opts[] = {
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'i', .long_name = "interval",
		  .value = &o.interval_s, .argh = "TIME",
		  .help = "the length of an interval: 1 (s, the default), 0.5, 100ms, 10s, 1m" },
		NTP_OPT_STRING('j', "json", &o.json_path, "FILE",
			       "also write the series as JSON to FILE ('-': stdout, instead of the text)"),
		NTP_OPT_BOOL(0, "pretty", &o.pretty, "indent the JSON"),
		NTP_OPT_STRING(0, "csv", &o.csv_path, "FILE",
			       "also write the series as CSV to FILE ('-': stdout, instead of the text)"),
		NTP_OPT_STRING(0, "html", &o.html_path, "FILE",
			       "also write the series as a page of line charts to FILE "
			       "('-': stdout, instead of the text)"),
		NTP_OPT_PERCENTILES(&o.percentiles),
		/* report's read filters, long options only as there */
		NTP_READ_FILTER_OPTIONS(&o.filter),
		NTP_OPT_UINT(0, "top", &o.top, "N",
			     "only the N groups with the most commands, in every output", 1, 1000000),
		NTP_DIAG_BY_OPTION(&o.by, "the groups are the host's queues, processes, submitting "
				   "CPUs or io_cpus: each interval's commands per key"),
		NTP_OPT_BOOL('q', "quiet", &o.quiet,
			     "no header block (files, interval, notes): the rows and their titles only"),
		NTP_FLEET_CONN_OPTIONS(&conn),
		NTP_FLEET_FILTER_OPTIONS(&fo.ff),
		NTP_OPT_END(),
	};
	bool fleet;
	int n, err;

	ntp_err__set_cmd("series");
	n = ntp_opt__parse(opts, argc, argv, series_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (!(o.interval_s >= SERIES_MIN_S && o.interval_s <= SERIES_MAX_S)) {
		ntp_error("--interval %.9g s: must be from 1us to 1000000 s", o.interval_s);
		return NTP_EXIT_USAGE;
	}
	err = ntp_fleet_conn__args(&conn, &fo, n, argv, series_usage[0], &fleet);
	if (!err && !fleet)
		return ntp_series__run(argv, n, &o);
	if (!err)
		err = ntp_series__run_from(ntp_fleet_open__source, &fo, conn.url, &o);
	ntp_fleet_conn__free(&conn);
	return err;
}
