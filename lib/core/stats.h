/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Summary statistics of a set of latencies: min, mean, max and percentiles.
 * Percentiles use the nearest-rank definition on the sorted samples
 * (p-th percentile = the smallest value with at least p% of samples at or
 * below it): one of the measured values, exact, never interpolated.  (fio
 * reads its percentiles off a log-linear histogram, so within a bucket of
 * the truth; blktrace's btt prints none.)
 * The standard deviation is the sample one (n - 1 in the denominator, 0 for
 * one sample), and the histogram lib/core/hist.h's log-linear buckets, both exact.
 */
#ifndef NTP_STATS_H
#define NTP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/hist.h"

struct ntp_samples {
	int64_t *v;
	size_t n, cap;
	int sorted;
};

/*
 * The percentiles a summary holds: the run's list, at most NTP_PCT_MAX of
 * them, in increasing order (lib/core/stat_table.h sets it from
 * --percentiles; 50, 90, 99 and 99.9 unless set).
 */
#define NTP_PCT_MAX 8
#define NTP_PCT_DEFAULT 50, 90, 99, 99.9

struct ntp_summary {
	size_t n;
	int64_t min, max;
	double mean;
	double stddev;            /* sample standard deviation, ns */
	/* the list's percentiles, and each one's 95% interval (lib/core/interval.h) */
	int64_t pct[NTP_PCT_MAX], p_lo[NTP_PCT_MAX], p_hi[NTP_PCT_MAX];
	double sum;
	/* every sample in its bucket, when asked for (ntp_samples__histogram); else NULL */
	struct ntp_hist *hist;
};

/* the list every summary made after it holds: n percentiles in (0, 100), increasing */
void ntp_summary__set_percentiles(const double *p, int n);
int ntp_summary__npercentiles(void);
double ntp_summary__percentile(int i);        /* the list's i-th p, in percent */

void ntp_samples__init(struct ntp_samples *s);
int ntp_samples__add(struct ntp_samples *s, int64_t v);    /* 0 or -ENOMEM */
/*
 * src's samples into dst (in no order: none of a summary depends on it), src
 * left empty: into whichever of the two has room for both, else a copy of
 * the smaller set.  0 or -ENOMEM (both kept).
 */
int ntp_samples__append(struct ntp_samples *dst, struct ntp_samples *src);
void ntp_samples__reset(struct ntp_samples *s);            /* keep the memory */
void ntp_samples__free(struct ntp_samples *s);
/* sorts s in place; p in (0, 100]; 0 when empty */
int64_t ntp_samples__percentile(struct ntp_samples *s, double p);
/*
 * The same of samples v[0..n) left in their order (the stages of a group's
 * i-th command are each stage's v[i]): a copy is selected in, in linear
 * time.  0 when n is 0; -ENOMEM into *err (else left).
 */
int64_t ntp_stats__percentile_of(const int64_t *v, size_t n, double p, int *err);
void ntp_samples__summarize(struct ntp_samples *s, struct ntp_summary *out);
/* s's histogram into out, summarized from s; 0 or -ENOMEM */
int ntp_samples__histogram(struct ntp_samples *s, struct ntp_summary *out);
/* frees what a summary holds (its histogram) */
void ntp_summary__free(struct ntp_summary *s);

/* one summary to make: s summarized into out */
struct ntp_summary_job {
	struct ntp_samples *s;
	struct ntp_summary *out;
};

/*
 * Every job's summary (and with histograms its histogram), the largest
 * first, shared by one thread a CPU: a report's groups and stages are
 * independent, and sorting their samples is most of a summary's cost.
 * Reorders jobs.  0 or -ENOMEM.
 */
int ntp_samples__summarize_all(struct ntp_summary_job *jobs, size_t n, bool histograms);

#endif
