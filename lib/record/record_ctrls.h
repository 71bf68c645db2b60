/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's NVMe-oF controllers of the recorded transport, from sysfs
 * (/sys/class/nvme/nvmeX: transport, queue_count, sqsize, state): their
 * I/O queues and depth written at the start (meta host_io_queues,
 * host_queue_depth), and their resets counted each interval while
 * recording (meta host_ctrl_resets).  The capacity and the retries the
 * diagnosis holds the commands against (ntprof-report(1), DIAGNOSIS).
 */
#ifndef NTP_RECORD_CTRLS_H
#define NTP_RECORD_CTRLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NTP_CTRLS_MAX 64
#define NTP_CTRLS_SYSFS "/sys/class/nvme"

struct ntp_ctrl {
	char name[16];            /* "nvme0" */
	int64_t io_queues;        /* queue_count less the admin queue; -1 unread */
	int64_t depth;            /* sqsize + 1 (sqsize is 0's based); -1 unread */
	bool live;                /* its state at the last look */
};

struct ntp_ctrls {
	char root[128];           /* NTP_CTRLS_SYSFS, or a test's copy of it */
	struct ntp_ctrl c[NTP_CTRLS_MAX];
	int n;
	int64_t resets;           /* times a controller left "live" while recording */
};

/*
 * The controllers under root whose transport file says transport ("tcp",
 * "rdma"), in name order, their queues and state read: the number found
 * (0 with none, or no such folder).
 */
int ntp_ctrls__scan(struct ntp_ctrls *c, const char *root, const char *transport);
/*
 * "nvme0=2 nvme1=4" (io_queues) and "nvme0=128 nvme1=128" (depth), the
 * controllers whose value was read; "" when none was
 */
void ntp_ctrls__queues_text(const struct ntp_ctrls *c, char *buf, size_t len);
void ntp_ctrls__depth_text(const struct ntp_ctrls *c, char *buf, size_t len);
/* each controller's state read again (every 100 ms): one reset more for each that left "live" */
void ntp_ctrls__tick(struct ntp_ctrls *c);

#endif
