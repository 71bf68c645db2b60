// SPDX-License-Identifier: GPL-2.0
/* report -F/--fields (report_fields.h): the list parsed and checked. */
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/report/report_fields.h"

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
		int k = ntp_stat__find(p, len, NTP_STAT_FIELD);

		if (k < 0) {
			char word[32], all[128];
			const char *hint;

			snprintf(word, sizeof(word), "%.*s", (int)(len < 31 ? len : 31), p);
			hint = ntp_stat__suggest(word, NTP_STAT_FIELD);
			ntp_stat__list(NTP_STAT_FIELD, all, sizeof(all));
			ntp_error("invalid value '%s' for option '--%s': '%.*s' is not a field: "
				  "expected %s%s%s%s", arg, opt->long_name, (int)len, p, all,
				  hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
			return -1;
		}
		for (int i = 0; i < f.nfields; i++) {
			if (f.list[i] == (enum ntp_stat)k) {
				ntp_error("invalid value '%s' for option '--%s': '%s' is given twice",
					  arg, opt->long_name, ntp_stats[k].name);
				return -1;
			}
		}
		f.list[f.nfields++] = (enum ntp_stat)k;
		p += len;
		if (*p)
			p++;
	}
	*out = f;
	return 0;
}
