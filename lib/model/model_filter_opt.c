// SPDX-License-Identifier: GPL-2.0
/* The read filters' options (model_filter_opt.h): each parsed and checked. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/core/filter.h"
#include "lib/model/model_filter_opt.h"

/* --time's bound: far past any recording, and no overflow once in ns */
#define TIME_MAX_S 1e9

static int bad(const struct ntp_option *opt, const char *arg, const char *why)
{
	ntp_error("invalid value '%s' for option '--%s': %s", arg, opt->long_name, why);
	return -1;
}

/* "a,b": no empty item ("a,,b", ",a", "a,") */
static bool items_ok(const char *arg)
{
	size_t n = strlen(arg);

	return n && arg[0] != ',' && arg[n - 1] != ',' && !strstr(arg, ",,");
}

int ntp_read_filter__opt_session(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	const char *p = arg, *item;
	int n = 0;

	if (!items_ok(arg))
		return bad(opt, arg, "an empty name: expected names separated by commas, as in "
			   "nvme0n1,nvme1n1");
	while (*p) {
		size_t len = ntp_read_filter__next_item(&p, &item);

		if (len > NTP_READ_NAME_MAX)
			return bad(opt, arg, "a name longer than 255 bytes");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)item[i] < 0x20 || item[i] == 0x7f)
				return bad(opt, arg, "a control character in a name");
		if (++n > NTP_READ_MAX_NAMES)
			return bad(opt, arg, "more than 16 names");
	}
	f->session = arg;
	return 0;
}

int ntp_read_filter__opt_io_type(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	const char *p = arg, *item;
	unsigned int m = 0;

	if (!items_ok(arg))
		return bad(opt, arg, "an empty item: expected read, write or other, comma-separated");
	while (*p) {
		size_t len = ntp_read_filter__next_item(&p, &item);
		char word[16];
		int k;

		for (k = 0; ntp_read_io_names[k]; k++)
			if (strlen(ntp_read_io_names[k]) == len && !strncmp(ntp_read_io_names[k], item, len))
				break;
		if (!ntp_read_io_names[k]) {
			const char *hint;

			snprintf(word, sizeof(word), "%.*s", (int)(len < 15 ? len : 15), item);
			hint = ntp_opt__suggest(word, ntp_read_io_names);
			ntp_error("invalid value '%s' for option '--%s': '%.*s' is not an I/O type: "
				  "expected read, write or other, comma-separated%s%s%s", arg,
				  opt->long_name, (int)len, item, hint ? "; did you mean '" : "",
				  hint ? hint : "", hint ? "'?" : "");
			return -1;
		}
		m |= 1u << k;
	}
	f->io_types = m;
	return 0;
}

/* record's parser, record's words: one definition of a size list (lib/core/filter.h) */
int ntp_read_filter__opt_size(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	struct ntp_filter s = { 0 };

	if (ntp_filter__set_sizes(&s, arg))
		return -1;
	f->sizes = s;
	return 0;
}

/* a queue id: decimal, 0 (the admin queue) to 65535 (NVMe's largest) */
static int qid_value(const char *s, size_t len, uint32_t *v)
{
	char buf[8];
	uint64_t u;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (ntp_opt__parse_uint(buf, &u) || u > 65535)
		return -1;
	*v = (uint32_t)u;
	return 0;
}

int ntp_read_filter__opt_qid(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	struct ntp_read_qids q[NTP_READ_MAX_QIDS];
	const char *p = arg, *item;
	int n = 0;

	if (!items_ok(arg))
		return bad(opt, arg, "an empty item: expected queue ids or ranges, as in 1-4,7");
	while (*p) {
		size_t len = ntp_read_filter__next_item(&p, &item);
		const char *dash = memchr(item, '-', len);
		char why[160];

		if (n == NTP_READ_MAX_QIDS)
			return bad(opt, arg, "more than 16 items");
		if (dash ? qid_value(item, (size_t)(dash - item), &q[n].lo) ||
			   qid_value(dash + 1, len - (size_t)(dash - item) - 1, &q[n].hi) :
			   qid_value(item, len, &q[n].lo)) {
			snprintf(why, sizeof(why), "'%.*s' is not a queue id or a range LO-HI of "
				 "them (0 to 65535)", (int)(len < 32 ? len : 32), item);
			return bad(opt, arg, why);
		}
		if (!dash)
			q[n].hi = q[n].lo;
		if (q[n].lo > q[n].hi) {
			snprintf(why, sizeof(why), "the range '%.*s' ends before it starts",
				 (int)len, item);
			return bad(opt, arg, why);
		}
		n++;
	}
	memcpy(f->qids, q, sizeof(q));
	f->nqids = n;
	return 0;
}

/* one side of --time: empty (unbounded), or seconds as -d takes them (2, 2.5, 500ms) */
static int time_side(const char *s, size_t len, bool *has, int64_t *ns)
{
	char buf[64];
	double sec;

	*has = len > 0;
	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (ntp_opt__parse_seconds(buf, &sec) || sec > TIME_MAX_S)
		return -1;
	*ns = llround(sec * 1e9);
	return 0;
}

int ntp_read_filter__opt_time(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	const char *comma = strchr(arg, ',');
	bool hs, he;
	int64_t s = 0, e = 0;

	if (!comma || strchr(comma + 1, ','))
		return bad(opt, arg, "expected START,END in seconds from the recording's start, "
			   "either may be empty (2,5 or 2, or ,5)");
	if (time_side(arg, (size_t)(comma - arg), &hs, &s) ||
	    time_side(comma + 1, strlen(comma + 1), &he, &e))
		return bad(opt, arg, "START and END are seconds (2, 2.5, 500ms, 1m), at most 1e9 s");
	if (!hs && !he)
		return bad(opt, arg, "neither START nor END given");
	if (hs && he && e <= s)
		return bad(opt, arg, "END is not after START");
	f->has_start = hs;
	f->has_end = he;
	f->start_ns = hs ? s : 0;
	f->end_ns = he ? e : 0;
	return 0;
}

static void seconds(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%.9g", (double)ns / 1e9);
}

void ntp_read_filter__describe(const struct ntp_read_filter *f, char *buf, size_t len)
{
	FILE *m = fmemopen(buf, len, "w");
	const char *sp = "";
	char s[40];

	if (!m) {
		snprintf(buf, len, "?");
		return;
	}
	if (f->session) {
		fprintf(m, "--session %s", f->session);
		sp = " ";
	}
	if (f->io_types) {
		int n = 0;

		fprintf(m, "%s--io-type ", sp);
		for (int k = 0; ntp_read_io_names[k]; k++)
			if (f->io_types & (1u << k))
				fprintf(m, "%s%s", n++ ? "," : "", ntp_read_io_names[k]);
		sp = " ";
	}
	if (f->sizes.nsizes) {
		fprintf(m, "%s--size ", sp);
		for (uint32_t i = 0; i < f->sizes.nsizes; i++)
			fprintf(m, "%s%" PRIu32, i ? "," : "", f->sizes.sizes[i]);
		sp = " ";
	}
	if (f->nqids) {
		fprintf(m, "%s--qid ", sp);
		for (int i = 0; i < f->nqids; i++) {
			fprintf(m, "%s%" PRIu32, i ? "," : "", f->qids[i].lo);
			if (f->qids[i].hi != f->qids[i].lo)
				fprintf(m, "-%" PRIu32, f->qids[i].hi);
		}
		sp = " ";
	}
	if ((f->has_start || f->has_end)) {
		fprintf(m, "%s--time ", sp);
		if (f->has_start) {
			seconds(s, sizeof(s), f->start_ns);
			fputs(s, m);
		}
		fputc(',', m);
		if (f->has_end) {
			seconds(s, sizeof(s), f->end_ns);
			fputs(s, m);
		}
	}
	fclose(m);
	buf[len - 1] = '\0';
}
