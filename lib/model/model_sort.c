// SPDX-License-Identifier: GPL-2.0
/*
 * report --sort (model_sort.h): the keys parsed, and said in the header;
 * model_order.c orders the groups by them.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/fmt/json.h"
#include "lib/model/model_sort.h"

/* the statistics by name; p99_9 is the JSON's spelling */
static const struct {
	const char *name;
	enum ntp_sort_stat stat;
} stats[] = {
	{ "n", NTP_SORT_N }, { "min", NTP_SORT_MIN }, { "mean", NTP_SORT_MEAN },
	{ "p50", NTP_SORT_P50 }, { "p90", NTP_SORT_P90 }, { "p99", NTP_SORT_P99 },
	{ "p99.9", NTP_SORT_P999 }, { "p99_9", NTP_SORT_P999 }, { "max", NTP_SORT_MAX },
	{ "share", NTP_SORT_SHARE },
};

#define NSTATS (sizeof(stats) / sizeof(stats[0]))

static const char *const stat_names[] = {
	"n", "min", "mean", "p50", "p90", "p99", "p99.9", "p99_9", "max", "share", NULL,
};

static int stat_of(const char *s, size_t len)
{
	for (size_t i = 0; i < NSTATS; i++)
		if (strlen(stats[i].name) == len && !strncmp(stats[i].name, s, len))
			return (int)stats[i].stat;
	return -1;
}

static int bad(const char *arg, const char *fmt, const char *item, int len, const char *hint)
{
	char why[256];

	snprintf(why, sizeof(why), fmt, len, item);
	ntp_error("invalid value '%s' for option '--sort': %s%s%s%s", arg, why,
		  hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
	return -1;
}

/* one key, item[0..len): [STAGE.]STAT[:asc|:desc] */
static int parse_key(const char *arg, const char *item, size_t len, struct ntp_sort_key *k)
{
	const char *colon = memchr(item, ':', len), *stat = item, *dot;
	size_t klen = colon ? (size_t)(colon - item) : len, slen;
	int s;

	memset(k, 0, sizeof(*k));
	if (colon) {
		size_t olen = len - klen - 1;

		if (olen == 3 && !strncmp(colon + 1, "asc", 3))
			k->ascending = true;
		else if (!(olen == 4 && !strncmp(colon + 1, "desc", 4)))
			return bad(arg, "'%.*s': the order after ':' is asc or desc", item,
				   (int)len, NULL);
	}
	/* a statistic alone, dots and all (p99.9), is the end-to-end's */
	s = stat_of(item, klen);
	if (s < 0) {
		dot = memchr(item, '.', klen);
		if (!dot)
			goto unknown;
		slen = (size_t)(dot - item);
		if (!slen || slen >= sizeof(k->stage))
			return bad(arg, "'%.*s': expected [STAGE.]STAT, as in storage.p99", item,
				   (int)klen, NULL);
		memcpy(k->stage, item, slen);
		k->stage[slen] = '\0';
		stat = dot + 1;
		s = stat_of(stat, klen - slen - 1);
		if (s < 0)
			goto unknown;
	}
	k->stat = (enum ntp_sort_stat)s;
	return 0;
unknown: {
		char word[32];
		size_t off = (size_t)(stat - item), n = klen - off;

		snprintf(word, sizeof(word), "%.*s", (int)(n < 31 ? n : 31), stat);
		return bad(arg, "'%.*s' is not a statistic: expected n, min, mean, p50, p90, p99, "
			   "p99.9, max or share, after a stage and a dot or alone", stat, (int)n,
			   ntp_opt__suggest(word, stat_names));
	}
}

int ntp_report_sort__opt(const struct ntp_option *opt, const char *arg)
{
	struct ntp_report_sort *s = opt->value, out = { .arg = arg };
	const char *p = arg;

	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		return bad(arg, "%.*san empty key: expected keys separated by commas, as in "
			   "storage.p99,n", "", 0, NULL);
	while (*p) {
		size_t len = strcspn(p, ",");

		if (out.nkeys == NTP_SORT_MAX_KEYS)
			return bad(arg, "%.*smore than 4 keys", "", 0, NULL);
		if (parse_key(arg, p, len, &out.keys[out.nkeys++]))
			return -1;
		p += len;
		if (*p)
			p++;
	}
	*s = out;
	return 0;
}

/* the statistic's own name: p99.9, not p99_9 */
static const char *stat_name(enum ntp_sort_stat st)
{
	for (size_t i = 0; i < NSTATS; i++)
		if (stats[i].stat == st)
			return stats[i].name;
	return "?";
}

void ntp_report_sort__print_text(FILE *f, const struct ntp_report_sort *s, bool change)
{
	const char *up = change ? "largest growth first" : "largest first";
	const char *down = change ? "largest drop first" : "smallest first";

	if (!s || !s->nkeys)
		return;
	fprintf(f, "# %-18s ", "sorted by:");
	for (int i = 0; i < s->nkeys; i++) {
		const struct ntp_sort_key *k = &s->keys[i];

		fprintf(f, "%s%s%s%s%s (%s)", i ? ", then " : "", k->stage, *k->stage ? "." : "",
			stat_name(k->stat), change ? " change" : "", k->ascending ? down : up);
	}
	fputc('\n', f);
}

void ntp_report_sort__json(struct ntp_json *j, const struct ntp_report_sort *s)
{
	ntp_json__name(j, "sort");
	if (!s || !s->nkeys) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_array(j);
	for (int i = 0; i < s->nkeys; i++) {
		const struct ntp_sort_key *k = &s->keys[i];

		ntp_json__start_object(j);
		ntp_json__string_field(j, "stage", *k->stage ? k->stage : "e2e");
		ntp_json__string_field(j, "stat", stat_name(k->stat));
		ntp_json__string_field(j, "order", k->ascending ? "ascending" : "descending");
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}
