/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transport names: the -t value and the .ntp meta value ("tcp", "rdma") and
 * the label people read ("TCP", "RDMA").
 */
#ifndef NTP_LIB_TRANSPORT_H
#define NTP_LIB_TRANSPORT_H

#include "bpf/ntp_transport.h"

/* "tcp" or "rdma": record's -t and the meta row "transport" */
const char *ntp_transport__name(enum ntp_transport t);
/* "TCP" or "RDMA", as in "NVMe/TCP" */
const char *ntp_transport__label(enum ntp_transport t);
/* 0 and *t set, or -1 for a name that is not a transport */
int ntp_transport__parse(const char *name, enum ntp_transport *t);

#endif
