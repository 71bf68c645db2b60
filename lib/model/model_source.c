// SPDX-License-Identifier: GPL-2.0
/* What every source of recordings has (lib/model/model_source.h). */
#include "lib/model/model_source.h"

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

void ntp_source__close(struct ntp_source *s)
{
	if (s)
		s->ops->close(s);
}
