/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVMe-oF transport a collector records (record's -t), shared by the BPF
 * programs (a read-only global set before load) and user space (lib/core/transport.h).
 */
#ifndef NTP_TRANSPORT_H
#define NTP_TRANSPORT_H

enum ntp_transport {
	NTP_TRANSPORT_TCP = 0,  /* nvme-tcp / nvmet-tcp (the default: a zeroed opts struct) */
	NTP_TRANSPORT_RDMA = 1, /* nvme-rdma / nvmet-rdma */
};

#endif
