/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics ntprof shows, defined once: each one's names, what it is,
 * and how many commands it needs before a change of it can be told from
 * noise.  report's -F and --sort, compare's --stats, --sort and
 * --threshold, and every printer take their names from here.
 *
 * The percentiles are the run's list (--percentiles; 50, 90, 99 and 99.9
 * unless set), in slots NTP_STAT_PCT on: a slot past the list has no name
 * and no use.  A percentile has two minimums.  It is shown from the n at
 * which its nearest rank falls below the last command, n >= 1 / (1 - p)
 * (2 for p50, 100 for p99, 10000 for p99.99): with fewer it would only
 * repeat the maximum.  Its change is tested from the binomial's normal
 * rule: the p-th percentile of n commands is estimated from the commands
 * on each side of it, and its 95% interval (lib/core/interval.h) holds
 * only with at least 5 on the smaller side, so n >= 5 / min(p, 1 - p): 10
 * for p50, 50 for p90, 500 for p99, 5000 for p99.9.  The mean and the
 * standard deviation are tested from 2 (a sample variance); every latency
 * is shown from one command on, counts from none.
 */
#ifndef NTP_STAT_TABLE_H
#define NTP_STAT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/cli/opt.h"
#include "lib/core/stats.h"

/* in the order the text tables show them */
enum ntp_stat {
	NTP_STAT_N,
	NTP_STAT_RATE,            /* estimated commands per second: n x N / duration */
	NTP_STAT_MIN,
	NTP_STAT_MEAN,
	NTP_STAT_PCT,             /* the first of NTP_PCT_MAX slots: the run's percentiles */
	NTP_STAT_MAX = NTP_STAT_PCT + NTP_PCT_MAX,
	NTP_STAT_SHARE,           /* a stage's mean in % of the end-to-end mean */
	NTP_STAT_STDDEV,
	NTP_NSTATS,
};

/* where a statistic may be named */
enum ntp_stat_use {
	NTP_STAT_FIELD = 1 << 0,      /* report -F */
	NTP_STAT_SORT = 1 << 1,       /* report and compare --sort */
	NTP_STAT_CHANGE = 1 << 2,     /* compare --stats and --threshold: a change with its interval */
};

struct ntp_stat_desc {
	const char *name;         /* as options and text write it: "p99.9" */
	const char *key;          /* JSON and separated fields: "p99_9" (with unit: p99_9_ns) */
	const char *unit;         /* the key's suffix there: "ns", "pct", or "" for none */
	const char *title;        /* the text table's column: "est_cmds/s", "share%" */
	double pct;               /* a percentile's p, in percent; 0 for the others */
	uint64_t min_shown;       /* commands needed before it is shown */
	uint64_t min_n;           /* commands needed before a change of it is tested */
	unsigned int uses;        /* enum ntp_stat_use */
};

/* the table: its percentile slots as the last ntp_stat__set_percentiles left them */
extern const struct ntp_stat_desc *const ntp_stats;

/* the longest list --percentiles takes, for messages */
#define NTP_PCT_LIST_MAX 96

/*
 * The run's percentiles from a list such as "50,95,99,99.99" (fio's
 * "50:95:99" too): each above 0 and below 100, with at most 4 decimals,
 * at most NTP_PCT_MAX; sorted, repeats dropped.  Set before any summary
 * is made and any statistic named.  0, or -1 with why filled.
 */
int ntp_stat__set_percentiles(const char *list, char *why, size_t len);
/*
 * --percentiles LIST, the same in report, compare and series: an early
 * option (lib/cli/opt.h), so that -F, --sort, --stats and --threshold name
 * the listed percentiles wherever it stands.  value: a bool set when given.
 */
int ntp_stat__percentiles_opt(const struct ntp_option *opt, const char *arg);
#define NTP_OPT_PERCENTILES(given) \
	NTP_OPT_CALLBACK(0, "percentiles", (given), "P[,P]", \
			 "the percentiles shown and compared, such as 50,95,99,99.99 " \
			 "(fio's 50:95:99 too; at most 8; default 50,90,99,99.9)", \
			 ntp_stat__percentiles_opt, .early = true)

/* the commands the p-th percentile needs before it is shown: ceil(1 / (1 - p)) */
uint64_t ntp_stat__pct_min_shown(double p);
/* "p50 2, p99 100": each of st[0..n)'s minimum n, shown (min_shown) or tested (min_n) */
void ntp_stat__minimums(char *buf, size_t len, const enum ntp_stat *st, int n, bool tested);
/* the run's list as --percentiles writes it: "50,90,99,99.9" */
void ntp_stat__percentile_list(char *buf, size_t len);
/* the slot of the percentile p, if the list has it; -1 */
int ntp_stat__percentile(double p);
/* the tail the charts show: p99 when listed, else the list's highest */
enum ntp_stat ntp_stat__tail(void);
/*
 * The highest percentile of the list whose change n commands can test
 * (min_n <= n): the edge of the tail the diagnosis looks at
 * (ntprof-report(1), DIAGNOSIS); NTP_STAT_N when n tests none.
 */
enum ntp_stat ntp_stat__tail_tested(uint64_t n);
/* min, mean, the listed percentiles and max, the latencies a summary row shows, into out; their count */
int ntp_stat__latencies(enum ntp_stat out[NTP_NSTATS]);
/* is st of s shown: s has the commands it needs (min_shown)? */
bool ntp_stat__shown(const struct ntp_summary *s, enum ntp_stat st);

/* the statistic named s[0..len) (its name or its key) among those use allows; -1 */
int ntp_stat__find(const char *s, size_t len, unsigned int use);
/* "n, min, ... or share": the names use allows, for a message */
void ntp_stat__list(unsigned int use, char *buf, size_t len);
/* the name use allows nearest to word, for "did you mean"; NULL when none is near */
const char *ntp_stat__suggest(const char *word, unsigned int use);
/* the names use allows, NULL-terminated, in the table's order: an option's .values */
const char *const *ntp_stat__names(unsigned int use);
/* a latency statistic of s (min, mean rounded to the ns, a percentile, max, stddev); n as is */
int64_t ntp_stat__of(const struct ntp_summary *s, enum ntp_stat st);

#endif
