// SPDX-License-Identifier: GPL-2.0
/* The statistics ntprof shows (lib/core/stat_table.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli/opt.h"
#include "lib/core/stat_table.h"

#define F NTP_STAT_FIELD
#define S NTP_STAT_SORT
#define C NTP_STAT_CHANGE

const struct ntp_stat_desc ntp_stats[NTP_NSTATS] = {
	/*                   name      key               unit   title         pct  min_n uses */
	[NTP_STAT_N]      = { "n",      "n",              "",    "n",          0,    1,    F | S },
	[NTP_STAT_RATE]   = { "rate",   "est_cmds_per_s", "",    "est_cmds/s", 0,    1,    F },
	[NTP_STAT_MIN]    = { "min",    "min",            "ns",  "min",        0,    1,    F | S },
	[NTP_STAT_MEAN]   = { "mean",   "mean",           "ns",  "mean",       0,    2,    F | S | C },
	[NTP_STAT_P50]    = { "p50",    "p50",            "ns",  "p50",        50,   10,   F | S | C },
	[NTP_STAT_P90]    = { "p90",    "p90",            "ns",  "p90",        90,   50,   F | S | C },
	[NTP_STAT_P99]    = { "p99",    "p99",            "ns",  "p99",        99,   500,  F | S | C },
	[NTP_STAT_P999]   = { "p99.9",  "p99_9",          "ns",  "p99.9",      99.9, 5000, F | S | C },
	[NTP_STAT_MAX]    = { "max",    "max",            "ns",  "max",        0,    1,    F | S },
	[NTP_STAT_SHARE]  = { "share",  "share",          "pct", "share%",     0,    1,    F | S },
	[NTP_STAT_STDDEV] = { "stddev", "stddev",         "ns",  "stddev",     0,    2,    F },
};

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
	case NTP_STAT_P50:
		return s->p50;
	case NTP_STAT_P90:
		return s->p90;
	case NTP_STAT_P99:
		return s->p99;
	case NTP_STAT_P999:
		return s->p999;
	case NTP_STAT_MAX:
		return s->max;
	case NTP_STAT_STDDEV:
		return llround(s->stddev);
	default:
		return 0;
	}
}
