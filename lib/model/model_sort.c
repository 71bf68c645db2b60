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
	s = ntp_stat__find(item, klen, NTP_STAT_SORT);
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
		s = ntp_stat__find(stat, klen - slen - 1, NTP_STAT_SORT);
		if (s < 0)
			goto unknown;
	}
	k->stat = (enum ntp_stat)s;
	return 0;
unknown: {
		char word[32], all[128], why[256];
		size_t off = (size_t)(stat - item), n = klen - off;

		snprintf(word, sizeof(word), "%.*s", (int)(n < 31 ? n : 31), stat);
		ntp_stat__list(NTP_STAT_SORT, all, sizeof(all));
		snprintf(why, sizeof(why), "'%%.*s' is not a statistic: expected %s, after a stage "
			 "and a dot or alone", all);
		return bad(arg, why, stat, (int)n, ntp_stat__suggest(word, NTP_STAT_SORT));
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
			ntp_stats[k->stat].name, change ? " change" : "", k->ascending ? down : up);
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
		ntp_json__string_field(j, "stat", ntp_stats[k->stat].name);
		ntp_json__string_field(j, "order", k->ascending ? "ascending" : "descending");
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
}
