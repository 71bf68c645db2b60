// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof compare: two recordings side by side, the first the baseline.
 * Documented in ntprof-compare(1); the work is in lib/compare/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/cli/term.h"
#include "lib/model/model_filter_opt.h"
#include "lib/compare/compare.h"
#include "lib/compare/compare_model.h"
#include "lib/core/stat_table.h"
#include "lib/diag/diag_by.h"
#include "lib/fleet/fleet_opts.h"
#include "lib/fleet/fleet_source.h"

static const char *const compare_usage[] = {
	"ntprof compare [options] BASELINE NEW",
	"ntprof compare [options] HOST.ntp,TARGET.ntp HOST.ntp,TARGET.ntp",
	"ntprof compare --url URL [fleet filters] [options] FROM..UNTIL FROM..UNTIL",
	"ntprof compare --url URL [fleet filters] [options] RUN[,RUN] RUN[,RUN]",
	NULL,
};

/* the fleet's engine as both runs' source: the filters given, and each run's own */
struct fleet_ctx {
	struct ntp_ch_opts ch;
	struct ntp_fleet_filter ff[NTP_CMP_RUNS];
	const struct ntp_read_filter *rf;
	char *arg[NTP_CMP_RUNS];
};

static int open_fleet(void *ctx, int r, struct ntp_source **s)
{
	struct fleet_ctx *c = ctx;

	return ntp_source__open_fleet(s, &c->ch, &c->ff[r], c->rf);
}

/*
 * One run of the engine as an argument names it: FROM..UNTIL, a span of
 * wall-clock time (either end may be left out), or RUN[,RUN], runs by the
 * ids push prints.  The fleet filters given as options apply to both; the
 * ones an argument sets may not be given as options too.
 */
static int fleet_run(struct fleet_ctx *c, int r, const char *arg, const struct ntp_fleet_filter *ff)
{
	char *dots = strstr(arg, "..");

	c->ff[r] = *ff;
	c->arg[r] = strdup(arg);
	if (!c->arg[r]) {
		ntp_error("%s: %s", arg, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (dots) {
		char *sep = c->arg[r] + (dots - arg);

		if (ff->from || ff->until) {
			ntp_error("'%s' is a time range: '--%s' cannot be given too", arg,
				  ff->from ? "from" : "until");
			return NTP_EXIT_USAGE;
		}
		*sep = '\0';
		c->ff[r].from = *c->arg[r] ? c->arg[r] : NULL;
		c->ff[r].until = sep[2] ? sep + 2 : NULL;
		if (!c->ff[r].from && !c->ff[r].until) {
			ntp_error("'%s': a time range needs FROM, UNTIL or both", arg);
			return NTP_EXIT_USAGE;
		}
		return 0;
	}
	if (ff->runs) {
		ntp_error("'%s' names runs: '--run' cannot be given too", arg);
		return NTP_EXIT_USAGE;
	}
	c->ff[r].runs = c->arg[r];
	return 0;
}

static int compare_fleet(struct ntp_fleet_conn *conn, const struct ntp_fleet_filter *ff,
			 const char **argv, const struct ntp_compare_opts *o)
{
	struct fleet_ctx c = { .rf = &o->filter };
	int rc = ntp_fleet_conn__check(conn, &c.ch);

	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++)
		rc = fleet_run(&c, r, argv[r], ff);
	if (!rc)
		rc = ntp_compare__run_from(open_fleet, &c, argv[0], argv[1], o);
	for (int r = 0; r < NTP_CMP_RUNS; r++)
		free(c.arg[r]);
	return rc;
}

static const char *const stage_views[] = { "summary", "detail", NULL };

/* "mean,p99": each name once or more, in any order; shown in a fixed order */
static int parse_stats(const struct ntp_option *opt, const char *arg)
{
	unsigned int *mask = opt->value;
	char *copy = strdup(arg), *save = NULL, *tok;
	unsigned int m = 0;

	if (!copy) {
		ntp_error("invalid value '%s' for option '--%s': %s", arg, opt->long_name,
			  strerror(ENOMEM));
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int s = ntp_stat__find(tok, strlen(tok), NTP_STAT_CHANGE);

		if (s < 0) {
			char all[128];

			ntp_stat__list(NTP_STAT_CHANGE, all, sizeof(all));
			ntp_error("invalid value '%s' for option '--%s': expected %s, comma-separated",
				  tok, opt->long_name, all);
			free(copy);
			return -1;
		}
		m |= 1u << s;
	}
	free(copy);
	if (!m) {
		ntp_error("invalid value '%s' for option '--%s': no statistic named", arg,
			  opt->long_name);
		return -1;
	}
	*mask = m;
	return 0;
}

/*
 * One rule of --threshold: PCT (the end-to-end mean), STAT=PCT (of the
 * end-to-end latency) or STAGE.STAT=PCT.  "p99.9=5" is a statistic, not a
 * stage "p99" with a statistic "9": the statistic is tried first.
 */
static int parse_rule(const struct ntp_option *opt, const char *rule,
		      struct ntp_compare_threshold *t)
{
	const char *eq = strchr(rule, '='), *pct = eq ? eq + 1 : rule;
	char left[64] = "", *dot;
	struct ntp_option popt = *opt;
	int stat = NTP_STAT_MEAN;

	snprintf(t->stage, sizeof(t->stage), "e2e");
	if (eq) {
		if ((size_t)(eq - rule) >= sizeof(left) || eq == rule)
			goto bad;
		memcpy(left, rule, (size_t)(eq - rule));
		stat = ntp_stat__find(left, strlen(left), NTP_STAT_CHANGE);
		if (stat < 0 && (dot = strchr(left, '.'))) {
			*dot = '\0';
			stat = ntp_stat__find(dot + 1, strlen(dot + 1), NTP_STAT_CHANGE);
			if (!*left || strlen(left) >= sizeof(t->stage))
				goto bad;
			snprintf(t->stage, sizeof(t->stage), "%s", left);
		}
		if (stat < 0)
			goto bad;
	}
	t->stat = stat;
	popt.value = &t->pct;
	popt.max = 0;
	return ntp_opt__percent(&popt, pct);
bad: {
		char all[128];

		ntp_stat__list(NTP_STAT_CHANGE, all, sizeof(all));
		ntp_error("invalid value '%s' for option '--%s': expected [STAGE.][STAT=]PCT, STAT "
			  "one of %s (e.g. storage.p99=10)", rule, opt->long_name, all);
		return -1;
	}
}

/* --threshold RULE[,RULE]: each given adds its rules */
static int parse_thresholds(const struct ntp_option *opt, const char *arg)
{
	struct ntp_compare_opts *o = opt->value;
	char *copy = strdup(arg), *save = NULL, *tok;
	int rc = 0;

	if (!copy) {
		ntp_error("invalid value '%s' for option '--%s': %s", arg, opt->long_name,
			  strerror(ENOMEM));
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		if (o->nthresholds == NTP_CMP_MAX_THRESHOLDS) {
			ntp_error("invalid value '%s' for option '--%s': more than %d rules", arg,
				  opt->long_name, NTP_CMP_MAX_THRESHOLDS);
			rc = -1;
			break;
		}
		rc = parse_rule(opt, tok, &o->threshold[o->nthresholds]);
		if (!rc)
			o->nthresholds++;
	}
	if (!rc && !o->nthresholds) {
		ntp_error("invalid value '%s' for option '--%s': no rule", arg, opt->long_name);
		rc = -1;
	}
	free(copy);
	return rc;
}

int cmd_compare(int argc, const char **argv)
{
	struct ntp_compare_opts o = { 0 };
	struct ntp_fleet_conn conn = { 0 };
	struct ntp_fleet_filter ff = { 0 };
	const struct ntp_option opts[] = {
		NTP_OPT_STRING('j', "json", &o.json_path, "FILE",
			       "also write the comparison as JSON to FILE "
			       "('-': stdout, instead of the text)"),
		NTP_OPT_BOOL(0, "pretty", &o.pretty, "indent the JSON"),
		NTP_OPT_CALLBACK(0, "stat", &o.stats, "STAT[,STAT]",
				 "statistics to compare: mean or a listed percentile (p50, p90, p99, "
				 "p99.9 unless --percentiles; default: mean,p99)",
				 parse_stats, .values = ntp_stat__names(NTP_STAT_CHANGE)),
		NTP_OPT_PERCENTILES(&o.percentiles),
		NTP_OPT_BOOL(0, "formula", &o.formula, "show the arithmetic behind every value"),
		NTP_OPT_CALLBACK(0, "threshold", &o, "[STAGE.][STAT=]PCT[,...]",
				 "exit 11 when a statistic grew significantly by more than PCT% "
				 "(default: e2e.mean), e.g. storage.p99=10", parse_thresholds),
		{ .type = NTP_OPT_TYPE_UINT, .long_name = "min-n", .value = &o.min_n,
		  .argh = "N", .min = 2, .max = 1000000000, .is_set = &o.min_n_set,
		  .help = "test a change only with at least N commands in both runs (default 10)" },
		{ .type = NTP_OPT_TYPE_CALLBACK, .long_name = "min-change", .value = &o.floor_pct,
		  .argh = "PCT", .is_set = &o.floor_pct_set, .cb = ntp_opt__percent,
		  .help = "a change counts only from PCT% of its baseline up (default 5)" },
		{ .type = NTP_OPT_TYPE_UINT, .long_name = "min-change-ns", .value = &o.floor_ns,
		  .argh = "NS", .min = 0, .max = 1000000000000, .is_set = &o.floor_ns_set,
		  .help = "a change counts only from NS nanoseconds up (default 1000)" },
		NTP_OPT_CHOICE('S', "stages", &o.stages, "VIEW",
			       "summary: the main stages (default); detail: the finer sub-stages",
			       stage_views),
		NTP_OPT_STRING(0, "html", &o.html_path, "FILE",
			       "also write the comparison as a page with charts to FILE "
			       "('-': stdout, instead of the text)"),
		/* report's read filters, long options only as there, on both runs */
		NTP_READ_FILTER_OPTIONS(&o.filter),
		NTP_OPT_CALLBACK(0, "sort", &o.sort, "KEY[,KEY]",
				 "order the groups by the change (new - baseline) of [STAGE.]STAT, "
				 "largest growth first; KEY:asc for the largest drop first",
				 ntp_report_sort__opt, .values = ntp_stat__names(NTP_STAT_SORT)),
		NTP_OPT_STRING('t', "field-separator", &o.field_separator, "SEP",
			       "the rows in long form, one per group, stage and statistic, "
			       "fields separated by SEP (e.g. ',')"),
		NTP_DIAG_BY_OPTION(&o.by, "each run's host commands per queue, process, cpu or "
				   "io_cpu, paired: in flight against the queue's depth, mean and "
				   "tail, and their change"),
		NTP_OPT_BOOL(0, "header", &o.header,
			     "the full header: each file's host, start time, ntprof version and hooks"),
		NTP_OPT_BOOL('q', "quiet", &o.quiet,
			     "no header block (files, differences, notes): the tables only"),
		NTP_OPT_BOOL(0, "wide", &o.wide,
			     "tables whole: never folded to the terminal, COLUMNS or a pipe's 100"),
		NTP_OPT_CHOICE(0, "color", &o.color, "WHEN",
			       "mark significant changes in colour: on a "
			       "terminal (auto, the default; not with NO_COLOR), always or never", ntp_term__color_words),
		NTP_OPT_BOOL(0, "no-pager", &o.no_pager,
			     "never page the text, even on a terminal (as ntprof --no-pager)"),
		NTP_FLEET_CONN_OPTIONS(&conn),
		NTP_FLEET_FILTER_OPTIONS(&ff),
		NTP_OPT_END(),
	};
	int n, rc;

	ntp_err__set_cmd("compare");
	n = ntp_opt__parse(opts, argc, argv, compare_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n != 2) {
		if (n > 2)
			ntp_error("unexpected argument '%s': usage: %s", argv[2],
				  compare_usage[conn.url ? 2 : 0]);
		else if (conn.url)
			ntp_error("%s: usage: %s", n ? "no new run given" : "no runs given",
				  compare_usage[2]);
		else
			ntp_error("%s: usage: %s",
				  n ? "no new recording given" : "no recordings given",
				  compare_usage[0]);
		return NTP_EXIT_USAGE;
	}
	if (conn.url) {
		rc = compare_fleet(&conn, &ff, argv, &o);
		ntp_fleet_conn__free(&conn);
		return rc;
	}
	rc = ntp_fleet_conn__none(&conn, &ff);
	if (rc)
		return rc;
	return ntp_compare__run(argv[0], argv[1], &o);
}
