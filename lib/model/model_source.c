// SPDX-License-Identifier: GPL-2.0
/* What every source of recordings has (lib/model/model_source.h). */
#include <stdio.h>

#include "lib/cli/err.h"
#include "lib/model/model_source.h"
#include "lib/ntp/db_fail.h"

static const char *const kind_names[NTP_KIND_MAX] = {
	[NTP_KIND_HOST] = "host",
	[NTP_KIND_TARGET] = "target",
	[NTP_KIND_BOTH] = "both",
	[NTP_KIND_JOINED] = "joined",
	[NTP_KIND_PAIR] = "pair",
};

const char *ntp_kind__name(enum ntp_kind k)
{
	return k < NTP_KIND_MAX ? kind_names[k] : "?";
}

bool ntp_kind__joined(enum ntp_kind k)
{
	return k == NTP_KIND_BOTH || k == NTP_KIND_JOINED || k == NTP_KIND_PAIR;
}

int ntp_source__verdict(struct ntp_source *const *s, int n, int rc)
{
	char held[1024], msg[NTP_DB_FAIL_LINE];
	int bad = 0;

	for (int i = 0; i < n && !bad; i++)
		if (s[i] && s[i]->ops->wait)
			bad = s[i]->ops->wait(s[i], msg, sizeof(msg));
	ntp_err__undefer(held, sizeof(held), !bad);
	if (bad) {
		ntp_error("%s", msg);
		return bad;
	}
	if (held[0])
		ntp_error("%s", held);
	return rc;
}

void ntp_source__close(struct ntp_source *s)
{
	if (!s)
		return;
	if (ntp_err__deferring())
		ntp_source__verdict(&s, 1, 0);
	s->ops->close(s);
}
