// SPDX-License-Identifier: GPL-2.0
/* report -F/--fields (report_fields.h): the list parsed and checked. */
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/report/report_fields.h"

/* each field's name, then the column title it also answers to */
static const char *const names[NTP_FIELD_COUNT][2] = {
	[NTP_FIELD_N] = { "n", "n" },
	[NTP_FIELD_RATE] = { "rate", "est_cmds/s" },
	[NTP_FIELD_MIN] = { "min", "min" },
	[NTP_FIELD_MEAN] = { "mean", "mean" },
	[NTP_FIELD_P50] = { "p50", "p50" },
	[NTP_FIELD_P90] = { "p90", "p90" },
	[NTP_FIELD_P99] = { "p99", "p99" },
	[NTP_FIELD_P999] = { "p99.9", "p99_9" },
	[NTP_FIELD_MAX] = { "max", "max" },
	[NTP_FIELD_SHARE] = { "share", "share%" },
	[NTP_FIELD_STDDEV] = { "stddev", "stddev" },
};

static const char *const suggestions[] = {
	"n", "rate", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "share", "stddev", NULL,
};

static int field_of(const char *s, size_t len)
{
	for (int f = 0; f < NTP_FIELD_COUNT; f++)
		for (int k = 0; k < 2; k++)
			if (strlen(names[f][k]) == len && !strncmp(names[f][k], s, len))
				return f;
	return -1;
}

int ntp_report_fields__opt(const struct ntp_option *opt, const char *arg)
{
	struct ntp_report_fields *out = opt->value, f = { .nfields = 0 };
	const char *p = arg;

	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		ntp_error("invalid value '%s' for option '--%s': an empty field: expected fields "
			  "separated by commas, as in n,mean,p99", arg, opt->long_name);
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		int k = field_of(p, len);

		if (k < 0) {
			char word[32];
			const char *hint;

			snprintf(word, sizeof(word), "%.*s", (int)(len < 31 ? len : 31), p);
			hint = ntp_opt__suggest(word, suggestions);
			ntp_error("invalid value '%s' for option '--%s': '%.*s' is not a field: "
				  "expected n, rate, min, mean, p50, p90, p99, p99.9, max, share or stddev%s%s%s",
				  arg, opt->long_name, (int)len, p, hint ? "; did you mean '" : "",
				  hint ? hint : "", hint ? "'?" : "");
			return -1;
		}
		for (int i = 0; i < f.nfields; i++) {
			if (f.list[i] == (enum ntp_field)k) {
				ntp_error("invalid value '%s' for option '--%s': '%s' is given twice",
					  arg, opt->long_name, names[k][0]);
				return -1;
			}
		}
		f.list[f.nfields++] = (enum ntp_field)k;
		p += len;
		if (*p)
			p++;
	}
	*out = f;
	return 0;
}
