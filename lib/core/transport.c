// SPDX-License-Identifier: GPL-2.0
/* Transport names (lib/core/transport.h). */
#include <string.h>

#include "lib/core/transport.h"

static const struct {
	const char *name, *label;
} transports[] = {
	[NTP_TRANSPORT_TCP] = { "tcp", "TCP" },
	[NTP_TRANSPORT_RDMA] = { "rdma", "RDMA" },
};

#define NTRANSPORTS (sizeof(transports) / sizeof(transports[0]))

const char *ntp_transport__name(enum ntp_transport t)
{
	return (unsigned int)t < NTRANSPORTS ? transports[t].name : "unknown";
}

const char *ntp_transport__label(enum ntp_transport t)
{
	return (unsigned int)t < NTRANSPORTS ? transports[t].label : "unknown";
}

int ntp_transport__parse(const char *name, enum ntp_transport *t)
{
	unsigned int i;

	for (i = 0; name && i < NTRANSPORTS; i++) {
		if (!strcmp(name, transports[i].name)) {
			*t = i;
			return 0;
		}
	}
	return -1;
}
