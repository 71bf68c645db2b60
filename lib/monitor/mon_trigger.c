// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's trigger (lib/monitor/mon_trigger.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/opt.h"
#include "lib/core/stage_table.h"
#include "lib/monitor/mon_expo.h"
#include "lib/monitor/mon_table.h"
#include "lib/monitor/mon_trigger.h"

#define STAGES "e2e, block, driver, network_star, target_driver, storage, residence, " \
	"submit, complete, reap, app_e2e"

/*
 * the monitor's stage of key (the stage table's), or -1.  Not network: the
 * stage table's network is the joined stage, network* less the target's
 * residence of the same command, which the monitor does not count
 */
static int stage_named(const char *key, size_t len)
{
	int st;

	for (st = 0; st < NTP_MON_NSTAGES; st++) {
		const char *k = ntp_stages[ntp_mon_expo__stage((enum ntp_mon_stage)st)].key;

		if (strlen(k) == len && !strncmp(key, k, len))
			return st;
	}
	return -1;
}

/* "p99", "p99.9", "mean", "max" (len bytes of s) into t */
static int stat_named(const char *s, size_t len, struct ntp_trigger *t)
{
	char buf[16], *end;
	size_t i, dots = 0, decimals = 0;

	if (len == 4 && !strncmp(s, "mean", 4)) {
		t->stat = NTP_TRIGGER_MEAN;
		return 0;
	}
	if (len == 3 && !strncmp(s, "max", 3)) {
		t->stat = NTP_TRIGGER_MAX;
		return 0;
	}
	if (len < 2 || len >= sizeof(buf) || s[0] != 'p' || s[1] < '0' || s[1] > '9')
		return -1;
	for (i = 1; i < len; i++) {
		if (s[i] == '.' && !dots && i + 1 < len)
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return -1;
		else if (dots)
			decimals++;
	}
	if (decimals > 4)
		return -1;
	memcpy(buf, s + 1, len - 1);
	buf[len - 1] = '\0';
	t->pct = strtod(buf, &end);
	if (*end || !(t->pct > 0 && t->pct < 100))
		return -1;
	t->stat = NTP_TRIGGER_PCT;
	return 0;
}

int ntp_trigger__parse(const char *s, struct ntp_trigger *t, char *why, size_t len)
{
	const char *gt = strchr(s, '>'), *lhs = s, *val, *sep;
	size_t lhs_len;
	double secs;
	int st;

	memset(t, 0, sizeof(*t));
	t->stage = NTP_MON_E2E;
	snprintf(t->text, sizeof(t->text), "%s", s);
	if (strlen(s) >= sizeof(t->text)) {
		snprintf(why, len, "'%.20s...' is too long (at most %zu characters)", s,
			 sizeof(t->text) - 1);
		return -1;
	}
	if (!gt) {
		snprintf(why, len, "'%s' has no comparison: write STAT>DURATION (e.g. p99>5ms)", s);
		return -1;
	}
	lhs_len = (size_t)(gt - s);
	val = gt + 1;
	if (*val == '=') {
		t->or_equal = true;
		val++;
	}
	if (lhs_len > 6 && !strncmp(lhs, "stage:", 6)) {
		lhs += 6;
		lhs_len -= 6;
	}
	/* a statistic starts with p and a digit, or is mean or max; before it, a stage */
	if (!(lhs_len >= 2 && lhs[0] == 'p' && lhs[1] >= '0' && lhs[1] <= '9') &&
	    !(lhs_len == 4 && !strncmp(lhs, "mean", 4)) && !(lhs_len == 3 && !strncmp(lhs, "max", 3))) {
		sep = lhs;
		while (sep < lhs + lhs_len && *sep != '.' && *sep != ':')
			sep++;
		if (sep == lhs + lhs_len) {
			snprintf(why, len, "'%.*s' is not a statistic (pN such as p99 or p99.9, mean, max)",
				 (int)lhs_len, lhs);
			return -1;
		}
		st = stage_named(lhs, (size_t)(sep - lhs));
		if (st < 0 && sep - lhs == 7 && !strncmp(lhs, "network", 7)) {
			snprintf(why, len, "'network' is the joined stage (network_star less the target's "
				 "residence), which the monitor does not count: use network_star");
			return -1;
		}
		if (st < 0) {
			snprintf(why, len, "'%.*s' is not a stage the monitor counts (" STAGES ")",
				 (int)(sep - lhs), lhs);
			return -1;
		}
		t->stage = (enum ntp_mon_stage)st;
		lhs_len -= (size_t)(sep + 1 - lhs);
		lhs = sep + 1;
	}
	if (stat_named(lhs, lhs_len, t)) {
		snprintf(why, len, "'%.*s' is not a statistic (pN such as p99 or p99.9, mean, max)",
			 (int)lhs_len, lhs);
		return -1;
	}
	if (ntp_opt__parse_seconds(val, &secs) || secs * 1e9 >= 9.2e18) {
		snprintf(why, len, "'%s' is not a duration (such as 5ms, 250us or 0.5s)", val);
		return -1;
	}
	t->threshold_ns = (int64_t)llround(secs * 1e9);
	return 0;
}

int ntp_trigger__role(const struct ntp_trigger *t)
{
	return t->stage >= NTP_MON_TARGET_DRIVER && t->stage <= NTP_MON_RESIDENCE ? NTP_MON_ROLE_TARGET :
	       NTP_MON_ROLE_HOST;
}

bool ntp_trigger__app(const struct ntp_trigger *t)
{
	return t->stage >= NTP_MON_APP_SUBMIT;
}

/* bucket k's bounds in ns, as the kernel counts (bucket 0: every value up to 0) */
static void bounds(int k, double *lo, double *hi)
{
	*lo = k < 1 ? 0 : (double)ntp_hist_bucket_lo(k, NTP_HIST_SUB_BITS);
	*hi = k < 1 ? 0 : (double)ntp_hist_bucket_hi(k, NTP_HIST_SUB_BITS);
}

bool ntp_trigger__stat(const struct ntp_trigger *t, const struct ntp_trigger_hist *h,
		       double *value)
{
	double lo, hi, rank;
	uint64_t cum = 0;
	int k;

	if (!h->n)
		return false;
	switch (t->stat) {
	case NTP_TRIGGER_MEAN:
		*value = (double)h->sum / (double)h->n;
		return true;
	case NTP_TRIGGER_MAX:
		for (k = NTP_MON_NBUCKETS - 1; k > 0 && !h->bucket[k]; k--)
			;
		bounds(k, &lo, &hi);
		*value = hi;
		return true;
	case NTP_TRIGGER_PCT:
		break;
	}
	/* report's minimum to show a percentile (lib/core/stat_table.h): n >= 1 / (1 - p) */
	if ((double)h->n * (100.0 - t->pct) < 100.0 - 1e-9)
		return false;
	rank = t->pct / 100.0 * (double)h->n;
	for (k = 0; k < NTP_MON_NBUCKETS; k++) {
		if (!h->bucket[k] || (double)(cum + h->bucket[k]) < rank) {
			cum += h->bucket[k];
			continue;
		}
		bounds(k, &lo, &hi);
		*value = lo + (hi - lo) * (rank - (double)cum) / (double)h->bucket[k];
		return true;
	}
	return false;
}

bool ntp_trigger__holds(const struct ntp_trigger *t, const struct ntp_trigger_hist *h,
			double *value)
{
	double v;

	if (!ntp_trigger__stat(t, h, &v))
		return false;
	*value = v;
	return t->or_equal ? v >= (double)t->threshold_ns : v > (double)t->threshold_ns;
}
