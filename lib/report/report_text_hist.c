// SPDX-License-Identifier: GPL-2.0
/*
 * report --histogram: the bars of each stage's latency histogram, in the
 * buckets and the unit the options choose (struct ntp_hist_form).
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

#include "lib/fmt/number.h"
#include "lib/report/report_text_hist.h"

/* bucket k's bounds at bits, in the form's unit: the first bucket starts at the smallest sample */
static void bounds(const struct ntp_summary *s, int k, int bits, int64_t per_unit, char *lo,
		   char *hi, size_t len)
{
	ntp_num__exact(lo, len, k == 0 ? s->min : ntp_hist__lo(k, bits), per_unit);
	ntp_num__exact(hi, len, ntp_hist__hi(k, bits), per_unit);
}

static int digits(uint64_t v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%" PRIu64, v);
}

/* one summary's histogram under a title line naming what it is of */
static void print_histogram(FILE *f, const struct ntp_summary *s, const char *what,
			    const struct ntp_hist_form *form)
{
	const struct ntp_hist *h = s->hist;
	int bits = ntp_hist_form__bits(form), first, last;
	int64_t per_unit = ntp_hist_form__ns_per_unit(form);
	uint64_t most = 0;
	int wlo = 4, whi = 2, wn = 5;
	char bar[NTP_HIST_BAR + 1], lo[40], hi[40];

	fprintf(f, "#\n# histogram of %s (n=%zu), %s, %d bucket%s an octave\n", what, s->n,
		ntp_hist_form__unit(form), 1 << bits, bits ? "s" : "");
	if (!s->n || !h || h->lo > h->hi) {
		fprintf(f, "# (no commands)\n");
		return;
	}
	ntp_hist__range(h, bits, &first, &last);
	for (int k = first; k <= last; k++) {
		uint64_t c = ntp_hist__count(h, k, bits);

		bounds(s, k, bits, per_unit, lo, hi, sizeof(lo));
		if ((int)strlen(lo) > wlo)
			wlo = (int)strlen(lo);
		if ((int)strlen(hi) > whi)
			whi = (int)strlen(hi);
		if (digits(c) > wn)
			wn = digits(c);
		if (c > most)
			most = c;
	}
	fprintf(f, "# %*s -> %-*s : %*s  %6s distribution\n", wlo, "from", whi, "to", wn, "count",
		"%");
	for (int k = first; k <= last; k++) {
		uint64_t c = ntp_hist__count(h, k, bits);
		/* rounded up: never an empty bar for a non-empty bucket */
		size_t len = most ? (size_t)((c * NTP_HIST_BAR + most - 1) / most) : 0;

		bounds(s, k, bits, per_unit, lo, hi, sizeof(lo));
		memset(bar, '*', len);
		memset(bar + len, ' ', NTP_HIST_BAR - len);
		bar[NTP_HIST_BAR] = '\0';
		fprintf(f, "# %*s -> %-*s : %*" PRIu64 "  %5.1f%% |%s|\n", wlo, lo, whi, hi, wn, c,
			100.0 * (double)c / (double)s->n, bar);
	}
}

void ntp_report__print_group_histograms(FILE *f, const struct ntp_report_group *g,
					const struct ntp_view_stage *stages, int nstages,
					const char *total, const char *group,
					const struct ntp_hist_form *form)
{
	char what[256];

	for (int s = 0; s < nstages; s++) {
		snprintf(what, sizeof(what), "%s, %s", stages[s].text, group);
		print_histogram(f, &g->stage[s], what, form);
	}
	snprintf(what, sizeof(what), "%s, %s", total, group);
	print_histogram(f, &g->e2e, what, form);
}
