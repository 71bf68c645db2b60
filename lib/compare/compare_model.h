/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare's model: the groups and stages of two report models paired, and
 * the arithmetic of every value, which the text and the JSON both print so
 * that they cannot disagree.
 */
#ifndef NTP_COMPARE_MODEL_H
#define NTP_COMPARE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compare/compare_by.h"
#include "lib/compare/compare_opts.h"
#include "lib/compare/compare_present.h"
#include "lib/diag/diag.h"
#include "lib/model/model.h"
#include "lib/model/model_source.h"

enum { NTP_CMP_BASE, NTP_CMP_NEW, NTP_CMP_RUNS };


/* what a change is (ntprof-compare(1), SIGNIFICANCE) */
enum ntp_compare_verdict {
	NTP_CMP_NO_DELTA,         /* not in both runs */
	NTP_CMP_NOT_TESTED,       /* too few commands in a run: need_n says how many */
	NTP_CMP_NOISE,            /* within the noise (corrected for every row tested) */
	NTP_CMP_SMALL,            /* beyond the noise, within the floor (--min-change) */
	NTP_CMP_CHANGED,          /* beyond the noise and beyond the floor */
};

/* one statistic of one stage, both runs and the change */
struct ntp_compare_value {
	bool has[NTP_CMP_RUNS];
	int64_t v[NTP_CMP_RUNS];                  /* ns; means rounded to whole ns */
	bool has_delta;                           /* in both runs */
	int64_t delta;                            /* new - baseline, ns */
	double ratio;                             /* new / baseline; NaN: not both, or baseline 0 */
	/* the delta's 95% interval (lib/core/interval.h), ns: both runs with 2 commands or more */
	bool has_ci;
	double ci_lo, ci_hi;
	/*
	 * tested: both runs have the commands the statistic needs (its least
	 * n, lib/core/stat_table.h, and --min-n); need_n is that number
	 */
	bool tested;
	uint64_t need_n;
	double p;                                 /* two-sided p-value of no change; NaN untested */
	enum ntp_compare_verdict verdict;
	bool significant;                         /* verdict NTP_CMP_CHANGED */
};

/* one stage (or the end-to-end latency) of one group, in both runs */
struct ntp_compare_stage {
	const char *text;                         /* "network*", "end-to-end" */
	const char *json;                         /* "network_star", "e2e" */
	const struct ntp_summary *s[NTP_CMP_RUNS];  /* NULL: not in that run */
	int64_t sum[NTP_CMP_RUNS];                /* exact sum of the latencies, ns */
	uint64_t min_n;                           /* --min-n: the least n of a tested change */
	struct ntp_compare_value val[NTP_NSTATS]; /* of the statistics of NTP_STAT_CHANGE */
};

struct ntp_compare_group {
	const char *io_type, *ns;
	int64_t bytes;
	/*
	 * The host file of its run the group's commands came from, from 1: in
	 * a joined run of several host files the groups of the Nth host file of
	 * each run are paired.  label: ns, or "N:ns" when a run has several
	 * host files (what the text shows)
	 */
	int file;
	char label[64];
	const struct ntp_report_group *g[NTP_CMP_RUNS];  /* NULL: not in that run */
	struct ntp_compare_stage *stage;          /* the stages, the end-to-end last */
	size_t nstages;
	bool over_threshold;                      /* a --threshold rule tripped */
	const struct ntp_compare_threshold *tripped;  /* the first that did; NULL: none */
	double tripped_growth_pct;                /* its statistic's growth, % of the baseline */
	double e2e_growth_pct;                    /* of the end-to-end mean; NaN unless in both runs */
	/* the first rule that could not be tested in the group; NULL: none */
	const struct ntp_compare_threshold *untested;
	uint64_t untested_need;                   /* the commands a run needs for it */
};

/* the most recordings one run of a comparison joins */
#define NTP_CMP_MAX_FILES 16

/* the stage (not the end-to-end) whose mean moved the most, of a group in both runs */
struct ntp_compare_most {
	const struct ntp_compare_group *g;        /* NULL: no stage in both runs */
	const struct ntp_compare_stage *stage;
	struct ntp_compare_value mean;
};

struct ntp_compare {
	const char *arg[NTP_CMP_RUNS];            /* each run as the command line named it */
	char *names[NTP_CMP_RUNS];                /* the copy files[] point into */
	const char *files[NTP_CMP_RUNS][NTP_CMP_MAX_FILES];
	int nfiles[NTP_CMP_RUNS];
	struct ntp_source *src[NTP_CMP_RUNS];     /* each run's recordings */
	struct ntp_report run[NTP_CMP_RUNS];      /* each run, as report sees it */
	struct ntp_diag diag[NTP_CMP_RUNS];       /* each run's diagnosis, as report's */
	struct ntp_compare_by by;                 /* --by: the runs' rows per queue or process */
	struct ntp_compare_group *groups;         /* ordered: namespace, I/O type, size */
	size_t ngroups;
	char **differences;                       /* header fields that differ, as text */
	size_t ndifferences;
	char **warnings;
	size_t nwarnings;
	unsigned int stats;                       /* never 0 here */
	size_t over_threshold;                    /* groups over --threshold */
	size_t untested_threshold;                /* groups of both runs where a rule is not tested */
	uint64_t min_n;                           /* --min-n, or its default */
	double floor_pct, floor_ns;               /* --min-change, --min-change-ns, or theirs */
	size_t ntests;                            /* the rows the correction is over */
	struct ntp_compare_most most;             /* the stage that changed most */
};

/* a --threshold rule as it is written: "storage.p99=10" */
void ntp_compare__rule_str(const struct ntp_compare_threshold *t, char *buf, size_t len);

/* "host recordings", "target recordings", "joined recordings" */
const char *ntp_compare__kind_words(enum ntp_report_kind kind);

/* pairs the runs' groups and stages; 0 or NTP_EXIT_FAILURE */
int ntp_compare__build(struct ntp_compare *c, const struct ntp_compare_opts *o);
void ntp_compare__free(struct ntp_compare *c);
/* a statistic of a stage, as ntp_compare__build made it */
void ntp_compare__value(const struct ntp_compare_stage *st, enum ntp_stat stat,
			struct ntp_compare_value *out);
/* "yes", "small", "no", "n<500", "-": the text's sig column */
void ntp_compare__verdict_str(const struct ntp_compare_value *v, char *buf, size_t len);
/* "changed", "small", "noise", "not_tested"; NULL without a delta: the JSON's verdict */
const char *ntp_compare__verdict_key(enum ntp_compare_verdict v);
/* the arithmetic behind a value, one line in ns (--formula) */
void ntp_compare__formula(const struct ntp_compare_stage *st, enum ntp_stat stat,
			  char *buf, size_t len);

#endif
