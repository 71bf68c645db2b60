/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics ntprof shows, defined once: each one's names, what it is,
 * and how many commands it needs before a change of it can be told from
 * noise.  report's -F and --sort, compare's --stats, --sort and
 * --threshold, and every printer take their names from here.
 *
 * A percentile's minimum is the binomial's normal rule: the p-th
 * percentile of n commands is estimated from the commands on each side of
 * it, and its 95% interval (lib/core/interval.h) holds only with at least
 * 5 on the smaller side, so n >= 5 / min(p, 1 - p): 10 for p50, 50 for
 * p90, 500 for p99, 5000 for p99.9.  The mean and the standard deviation
 * need 2 (a sample variance); the others are counts or extremes, shown
 * from one command on.
 */
#ifndef NTP_STAT_TABLE_H
#define NTP_STAT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/stats.h"

/* in the order the text tables show them */
enum ntp_stat {
	NTP_STAT_N,
	NTP_STAT_RATE,            /* estimated commands per second: n x N / duration */
	NTP_STAT_MIN,
	NTP_STAT_MEAN,
	NTP_STAT_P50,
	NTP_STAT_P90,
	NTP_STAT_P99,
	NTP_STAT_P999,
	NTP_STAT_MAX,
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
	uint64_t min_n;           /* commands needed before a change of it is tested */
	unsigned int uses;        /* enum ntp_stat_use */
};

extern const struct ntp_stat_desc ntp_stats[NTP_NSTATS];

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
