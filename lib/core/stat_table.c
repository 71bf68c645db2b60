// SPDX-License-Identifier: GPL-2.0
/* The statistics ntprof shows (lib/core/stat_table.h). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/opt.h"
#include "lib/core/stat_table.h"

#define F NTP_STAT_FIELD
#define S NTP_STAT_SORT
#define C NTP_STAT_CHANGE

/* the percentile slots are filled by set_slots(), from the summaries' list */
static struct ntp_stat_desc table[NTP_NSTATS] = {
	/*                   name      key               unit   title         pct shown min_n uses */
	[NTP_STAT_N]      = { "n",      "n",              "",    "n",          0,  0,    1,    F | S },
	[NTP_STAT_RATE]   = { "rate",   "est_cmds_per_s", "",    "est_cmds/s", 0,  0,    1,    F },
	[NTP_STAT_MIN]    = { "min",    "min",            "ns",  "min",        0,  1,    1,    F | S },
	[NTP_STAT_MEAN]   = { "mean",   "mean",           "ns",  "mean",       0,  1,    2,    F | S | C },
	[NTP_STAT_MAX]    = { "max",    "max",            "ns",  "max",        0,  1,    1,    F | S },
	[NTP_STAT_SHARE]  = { "share",  "share",          "pct", "share%",     0,  1,    1,    F | S },
	[NTP_STAT_STDDEV] = { "stddev", "stddev",         "ns",  "stddev",     0,  1,    2,    F },
};

const struct ntp_stat_desc *const ntp_stats = table;

/* each slot's name ("p99.99") and key ("p99_99") */
static char slot_name[NTP_PCT_MAX][24], slot_key[NTP_PCT_MAX][24];

/* p in ten-thousandths of a percent: the list's exact unit (at most 4 decimals) */
#define E4 10000

static int64_t to_e4(double p)
{
	return llround(p * E4);
}

uint64_t ntp_stat__pct_min_shown(double p)
{
	int64_t q4 = 100 * E4 - to_e4(p);

	return q4 > 0 ? (uint64_t)((100 * E4 + q4 - 1) / q4) : UINT64_MAX;
}

static void set_slot(int i, int64_t p4)
{
	struct ntp_stat_desc *d = &table[NTP_STAT_PCT + i];
	int64_t q4 = 100 * E4 - p4, side = p4 < q4 ? p4 : q4;
	char frac[8];
	int k;

	snprintf(frac, sizeof(frac), "%04" PRId64, p4 % E4);
	for (k = 3; k >= 0 && frac[k] == '0'; k--)
		frac[k] = '\0';
	snprintf(slot_name[i], sizeof(slot_name[i]), "p%d%s%s", (int)(p4 / E4),
		 frac[0] ? "." : "", frac);
	snprintf(slot_key[i], sizeof(slot_key[i]), "p%d%s%s", (int)(p4 / E4),
		 frac[0] ? "_" : "", frac);
	*d = (struct ntp_stat_desc){
		.name = slot_name[i], .key = slot_key[i], .unit = "ns", .title = slot_name[i],
		.pct = (double)p4 / E4,
		/* ceil(5 / min(p, 1 - p)), in integers */
		.min_shown = ntp_stat__pct_min_shown((double)p4 / E4),
		.min_n = (uint64_t)((5 * 100 * E4 + side - 1) / side),
		.uses = F | S | C,
	};
}

/* the slots from the summaries' list; the others emptied */
static void set_slots(void)
{
	int n = ntp_summary__npercentiles();

	for (int i = 0; i < NTP_PCT_MAX; i++) {
		if (i < n)
			set_slot(i, to_e4(ntp_summary__percentile(i)));
		else
			table[NTP_STAT_PCT + i] = (struct ntp_stat_desc){ .name = "", .key = "",
									  .unit = "", .title = "" };
	}
}

/* the default list's slots, before main() */
__attribute__((constructor)) static void default_slots(void)
{
	set_slots();
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* one entry of the list: digits, at most one point, at most 4 decimals; its value in E4 */
static int parse_entry(const char *s, size_t len, int64_t *p4)
{
	int64_t whole = 0, frac = 0;
	int decimals = -1;

	if (!len || len > 12)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.' && decimals < 0) {
			decimals = 0;
		} else if (isdigit((unsigned char)s[i])) {
			if (decimals < 0) {
				whole = whole * 10 + (s[i] - '0');
			} else if (++decimals <= 4) {
				frac = frac * 10 + (s[i] - '0');
			} else if (s[i] != '0') {
				return -2;      /* a fifth decimal that matters */
			}
		} else {
			return -1;
		}
	}
	if (decimals == 0)
		return -1;
	for (int d = decimals < 0 ? 0 : decimals; d < 4; d++)
		frac *= 10;
	*p4 = whole * E4 + frac;
	return 0;
}

int ntp_stat__set_percentiles(const char *list, char *why, size_t len)
{
	int64_t p4[NTP_PCT_MAX];
	double p[NTP_PCT_MAX];
	const char *at = list;
	int n = 0, k = 0;

	for (;;) {
		size_t l = strcspn(at, ",:");
		int64_t v;
		int rc = parse_entry(at, l, &v);

		if (rc == -2) {
			snprintf(why, len, "'%.*s' has more than 4 decimals", (int)l, at);
			return -1;
		}
		if (rc) {
			snprintf(why, len, "'%.*s' is not a percentile: expected numbers such as "
				 "50,95,99,99.99", (int)l, at);
			return -1;
		}
		if (v <= 0 || v >= 100 * E4) {
			snprintf(why, len, "%.*s is not above 0 and below 100 (the maximum is 'max')",
				 (int)l, at);
			return -1;
		}
		if (n == NTP_PCT_MAX) {
			snprintf(why, len, "more than %d percentiles", NTP_PCT_MAX);
			return -1;
		}
		p4[n++] = v;
		if (!at[l])
			break;
		at += l + 1;
	}
	qsort(p4, (size_t)n, sizeof(p4[0]), by_value);
	for (int i = 0; i < n; i++)
		if (!k || p4[i] != p4[k - 1])
			p4[k++] = p4[i];
	for (int i = 0; i < k; i++)
		p[i] = (double)p4[i] / E4;
	ntp_summary__set_percentiles(p, k);
	set_slots();
	return 0;
}

int ntp_stat__percentiles_opt(const struct ntp_option *opt, const char *arg)
{
	char why[160];

	if (ntp_stat__set_percentiles(arg, why, sizeof(why))) {
		ntp_error("invalid value '%s' for option '--%s': %s", arg, opt->long_name, why);
		return -1;
	}
	if (opt->value)
		*(bool *)opt->value = true;
	return 0;
}

void ntp_stat__minimums(char *buf, size_t len, const enum ntp_stat *st, int n, bool tested)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s %" PRIu64, i ? ", " : "",
					ntp_stats[st[i]].name,
					tested ? ntp_stats[st[i]].min_n : ntp_stats[st[i]].min_shown);
}

void ntp_stat__percentile_list(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < ntp_summary__npercentiles() && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					ntp_stats[NTP_STAT_PCT + i].name + 1);
}

int ntp_stat__percentile(double p)
{
	for (int i = 0; i < ntp_summary__npercentiles(); i++)
		if (to_e4(ntp_summary__percentile(i)) == to_e4(p))
			return NTP_STAT_PCT + i;
	return -1;
}

enum ntp_stat ntp_stat__tail(void)
{
	int p99 = ntp_stat__percentile(99);

	return (enum ntp_stat)(p99 >= 0 ? p99 : NTP_STAT_PCT + ntp_summary__npercentiles() - 1);
}

enum ntp_stat ntp_stat__tail_tested(uint64_t n)
{
	for (int i = ntp_summary__npercentiles() - 1; i >= 0; i--)
		if (ntp_stats[NTP_STAT_PCT + i].min_n <= n)
			return (enum ntp_stat)(NTP_STAT_PCT + i);
	return NTP_STAT_N;
}

int ntp_stat__latencies(enum ntp_stat out[NTP_NSTATS])
{
	int n = 0;

	out[n++] = NTP_STAT_MIN;
	out[n++] = NTP_STAT_MEAN;
	for (int i = 0; i < ntp_summary__npercentiles(); i++)
		out[n++] = (enum ntp_stat)(NTP_STAT_PCT + i);
	out[n++] = NTP_STAT_MAX;
	return n;
}

/* is st a percentile slot of the list? */
static bool ntp_stat__is_percentile(enum ntp_stat st)
{
	return (int)st >= NTP_STAT_PCT && (int)st < NTP_STAT_PCT + ntp_summary__npercentiles();
}

bool ntp_stat__shown(const struct ntp_summary *s, enum ntp_stat st)
{
	return s->n >= ntp_stats[st].min_shown;
}

int ntp_stat__find(const char *s, size_t len, unsigned int use)
{
	for (int st = 0; st < NTP_NSTATS; st++) {
		const struct ntp_stat_desc *d = &ntp_stats[st];

		if (!(d->uses & use))
			continue;
		if ((strlen(d->name) == len && !strncmp(d->name, s, len)) ||
		    (strlen(d->key) == len && !strncmp(d->key, s, len)) ||
		    (use & NTP_STAT_FIELD && strlen(d->title) == len && !strncmp(d->title, s, len)))
			return st;
	}
	return -1;
}

void ntp_stat__list(unsigned int use, char *buf, size_t len)
{
	int n = 0, k = 0;
	size_t off = 0;

	for (int st = 0; st < NTP_NSTATS; st++)
		n += !!(ntp_stats[st].uses & use);
	buf[0] = '\0';
	for (int st = 0; st < NTP_NSTATS && off < len; st++) {
		if (!(ntp_stats[st].uses & use))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", k == 0 ? "" :
					k == n - 1 ? " or " : ", ", ntp_stats[st].name);
		k++;
	}
}

const char *ntp_stat__suggest(const char *word, unsigned int use)
{
	const char *names[2 * NTP_NSTATS + 1];
	int n = 0;

	for (int st = 0; st < NTP_NSTATS; st++) {
		if (!(ntp_stats[st].uses & use))
			continue;
		names[n++] = ntp_stats[st].name;
		if (strcmp(ntp_stats[st].key, ntp_stats[st].name))
			names[n++] = ntp_stats[st].key;
	}
	names[n] = NULL;
	return ntp_opt__suggest(word, names);
}

const char *const *ntp_stat__names(unsigned int use)
{
	static const char *names[(F | S | C) + 1][NTP_NSTATS + 1];
	const char **out;
	int n = 0;

	if (use >= sizeof(names) / sizeof(names[0]))
		return NULL;
	out = names[use];
	for (int st = 0; st < NTP_NSTATS; st++)
		if (ntp_stats[st].uses & use)
			out[n++] = ntp_stats[st].name;
	out[n] = NULL;
	return out;
}

int64_t ntp_stat__of(const struct ntp_summary *s, enum ntp_stat st)
{
	switch (st) {
	case NTP_STAT_N:
		return (int64_t)s->n;
	case NTP_STAT_MIN:
		return s->min;
	case NTP_STAT_MEAN:
		return llround(s->mean);
	case NTP_STAT_MAX:
		return s->max;
	case NTP_STAT_STDDEV:
		return llround(s->stddev);
	default:
		return ntp_stat__is_percentile(st) ? s->pct[st - NTP_STAT_PCT] : 0;
	}
}
