// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof report: the per-group, per-stage latency report of a recording, or
 * of host and target recordings joined.
 * Documented in ntprof-report(1); the work is in lib/report/, shared with
 * the end of `ntprof record`.
 */

#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/cli/term.h"
#include "lib/model/model_filter_opt.h"
#include "lib/core/stat_table.h"
#include "lib/diag/diag_by.h"
#include "lib/fleet/fleet_opts.h"
#include "lib/fleet/fleet_source.h"
#include "lib/report/report.h"

static const char *const report_usage[] = {
	"ntprof report [options] FILE",
	"ntprof report [options] HOST.ntp TARGET.ntp...",
	"ntprof report --url URL [fleet filters] [options]",
	NULL,
};

static const char *const stage_views[] = { "summary", "detail", NULL };

/* --histogram-buckets: the resolutions lib/core/hist.h reads (2^0 to 2^NTP_HIST_SUB_BITS) */
static const char *const per_octave_words[] = { "1", "2", "4", "8", NULL };
static const char *const hist_units[] = { "ns", "us", "ms", NULL };

int cmd_report(int argc, const char **argv)
{
	struct ntp_report_opts o = { 0 };
	struct ntp_fleet_conn conn = { 0 };
	struct ntp_fleet_open fo = { .rf = &o.filter };
	const char *per_octave = NULL;
	const struct ntp_option opts[] = {
		NTP_OPT_STRING('j', "json", &o.json_path, "FILE",
			       "also write the report as JSON to FILE ('-': stdout, instead of the text)"),
		NTP_OPT_BOOL(0, "pretty", &o.pretty, "indent the JSON"),
		{ .type = NTP_OPT_TYPE_CALLBACK, .long_name = "percent-limit",
		  .value = &o.percent_limit, .argh = "PCT", .cb = ntp_opt__percent, .max = 100,
		  .help = "hide groups holding less than PCT% of the sampled commands" },
		NTP_OPT_STRING('t', "field-separator", &o.field_separator, "SEP",
			       "the tables in long form, one row per group, stage and statistic, "
			       "fields separated by SEP (e.g. ',')"),
		NTP_OPT_CHOICE('S', "stages", &o.stages, "VIEW",
			       "summary: the main stages (default); detail: the finer sub-stages",
			       stage_views),
		NTP_OPT_STRING(0, "html", &o.html_path, "FILE",
			       "also write the report as a page with charts to FILE "
			       "('-': stdout, instead of the text)"),
		NTP_OPT_BOOL(0, "histogram", &o.histogram,
			     "each stage's latency histogram (bars; with -j, the buckets)"),
		NTP_OPT_CHOICE(0, "histogram-buckets", &per_octave, "N",
			       "--histogram with N buckets an octave: 1 (log2), 2, 4 (the default) "
			       "or 8", per_octave_words, .is_set = &o.histogram),
		NTP_OPT_CHOICE(0, "histogram-unit", &o.hist.unit, "UNIT",
			       "--histogram with bounds in ns, us (the default) or ms", hist_units,
			       .is_set = &o.histogram),
		/* long options only: -s and -t already mean other things (record's -s, -t) */
		NTP_READ_FILTER_OPTIONS(&o.filter),
		NTP_OPT_CALLBACK(0, "sort", &o.sort, "KEY[,KEY]",
				 "order the groups by [STAGE.]STAT (e.g. storage.p99), largest "
				 "first; KEY:asc for smallest first", ntp_report_sort__opt,
				 .values = ntp_stat__names(NTP_STAT_SORT)),
		NTP_OPT_CALLBACK('F', "fields", &o.fields, "FIELD[,FIELD]",
				 "the table columns: n, rate, min, mean, a listed percentile (p50, p90, "
				 "p99, p99.9 unless --percentiles), max, share, stddev",
				 ntp_report_fields__opt,
				 .values = ntp_stat__names(NTP_STAT_FIELD)),
		NTP_OPT_PERCENTILES(&o.percentiles),
		NTP_DIAG_BY_OPTION(&o.by, "the host's commands per queue, process, cpu or io_cpu: in "
				   "flight against the queue's depth, tail, errors, deferred sends; "
				   "the imbalance and the sends off io_cpu"),
		NTP_OPT_BOOL(0, "header", &o.header,
			     "the full header: every hook, the command counts, host, start time, "
			     "the clock pairs of a join"),
		NTP_OPT_BOOL('q', "quiet", &o.quiet,
			     "no header block (files, counts, notes): the tables only"),
		NTP_OPT_BOOL(0, "wide", &o.wide,
			     "tables whole: never folded to the terminal, COLUMNS or a pipe's 100"),
		NTP_OPT_CHOICE(0, "color", &o.color, "WHEN",
			       "mark the stage that takes the most time in colour: on a "
			       "terminal (auto, the default; not with NO_COLOR), always or never", ntp_term__color_words),
		NTP_OPT_BOOL(0, "no-pager", &o.no_pager,
			     "never page the text, even on a terminal (as ntprof --no-pager)"),
		NTP_FLEET_CONN_OPTIONS(&conn),
		NTP_FLEET_FILTER_OPTIONS(&fo.ff),
		NTP_OPT_BOOL(0, "approx", &fo.ff.approx,
			     "--url: percentiles by the engine's t-digest: faster, approximate "
			     "(the error: ntprof-fleet(7))"),
		NTP_OPT_END(),
	};
	bool fleet;
	int n, err;

	ntp_err__set_cmd("report");
	n = ntp_opt__parse(opts, argc, argv, report_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (per_octave)
		o.hist.per_octave = strtoull(per_octave, NULL, 10);
	err = ntp_fleet_conn__args(&conn, &fo, n, argv, report_usage[0], &fleet);
	if (!err && !fleet)
		return ntp_report__run(argv, n, &o);
	if (!err)
		err = ntp_report__run_from(ntp_fleet_open__source, &fo, conn.url, NULL, 0, &o);
	ntp_fleet_conn__free(&conn);
	return err;
}
