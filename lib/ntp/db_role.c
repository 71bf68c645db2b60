// SPDX-License-Identifier: GPL-2.0
/* The roles of a recording (lib/ntp/db_role.h). */
#include <string.h>

#include "lib/ntp/db_role.h"

const struct ntp_role_desc ntp_roles[NTP_ROLE_MAX] = {
	[NTP_ROLE_HOST] = { "host", NTP_SIDE_HOST, true, false, "a host recording" },
	[NTP_ROLE_TARGET] = { "target", NTP_SIDE_TARGET, true, false, "a target recording" },
	[NTP_ROLE_BOTH] = { "both", NTP_SIDE_HOST | NTP_SIDE_TARGET, true, true,
			    "a \"-r both\" recording" },
	[NTP_ROLE_JOINED] = { "joined", NTP_SIDE_HOST | NTP_SIDE_TARGET, false, false,
			      "a joined recording (ntprof join)" },
};

enum ntp_role ntp_role__find(const char *name)
{
	for (int r = 0; name && r < NTP_ROLE_MAX; r++)
		if (!strcmp(ntp_roles[r].name, name))
			return r;
	return NTP_ROLE_MAX;
}
