// SPDX-License-Identifier: GPL-2.0
/*
 * report --histogram: the bars of each stage's latency histogram.
 *
 * Every line begins with '#', the bars too: `grep -v '^#'` (and -t)
 * readers get the same rows with and without --histogram, and the buckets
 * as data are in the JSON (--histogram -j).  The buckets printed are the
 * contiguous range from the first non-empty one to the last, empty ones
 * between included, so that a gap between two modes shows as a gap.
 * A bar is count / largest count of NTP_HIST_BAR characters, rounded up:
 * a bucket with any command in it shows at least one '*', so that a tail of
 * a few commands among thousands is not drawn as nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/report/report_text_hist.h"

/* bucket k's bounds as printed: the first bucket starts at the smallest sample */
static void bounds(const struct ntp_summary *s, int k, int64_t *lo, int64_t *hi)
{
	*lo = k == 0 ? s->min : ntp_hist__lo(k);
	*hi = ntp_hist__hi(k);
}

static int digits(int64_t v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%" PRId64, v);
}

/* one summary's histogram under a title line naming what it is of */
static void print_histogram(FILE *f, const struct ntp_summary *s, const char *what)
{
	const struct ntp_hist *h = s->hist;
	uint64_t most = 0;
	int wlo = 4, whi = 2, wn = 5;
	char bar[NTP_HIST_BAR + 1];

	fprintf(f, "#\n# histogram of %s (n=%zu), ns, log2 buckets\n", what, s->n);
	if (!s->n || !h || h->lo > h->hi) {
		fprintf(f, "# (no commands)\n");
		return;
	}
	for (int k = h->lo; k <= h->hi; k++) {
		int64_t lo, hi;

		bounds(s, k, &lo, &hi);
		if (digits(lo) > wlo)
			wlo = digits(lo);
		if (digits(hi) > whi)
			whi = digits(hi);
		if (digits((int64_t)h->count[k]) > wn)
			wn = digits((int64_t)h->count[k]);
		if (h->count[k] > most)
			most = h->count[k];
	}
	fprintf(f, "# %*s -> %-*s : %*s  %6s distribution\n", wlo, "from", whi, "to", wn, "count",
		"%");
	for (int k = h->lo; k <= h->hi; k++) {
		uint64_t c = h->count[k];
		/* rounded up: never an empty bar for a non-empty bucket */
		size_t len = most ? (size_t)((c * NTP_HIST_BAR + most - 1) / most) : 0;
		int64_t lo, hi;

		bounds(s, k, &lo, &hi);
		memset(bar, '*', len);
		memset(bar + len, ' ', NTP_HIST_BAR - len);
		bar[NTP_HIST_BAR] = '\0';
		fprintf(f, "# %*" PRId64 " -> %-*" PRId64 " : %*" PRIu64 "  %5.1f%% |%s|\n", wlo, lo,
			whi, hi, wn, c, 100.0 * (double)c / (double)s->n, bar);
	}
}

void ntp_report__print_group_histograms(FILE *f, const struct ntp_report_group *g,
					const struct ntp_view_stage *stages, int nstages,
					const char *total, const char *group)
{
	char what[256];

	for (int s = 0; s < nstages; s++) {
		snprintf(what, sizeof(what), "%s, %s", stages[s].text, group);
		print_histogram(f, &g->stage[s], what);
	}
	snprintf(what, sizeof(what), "%s, %s", total, group);
	print_histogram(f, &g->e2e, what);
}
