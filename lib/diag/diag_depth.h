/* SPDX-License-Identifier: GPL-2.0 */
/* A host queue's depth, as a recording's meta host_queue_depth states it. */
#ifndef NTP_DIAG_DEPTH_H
#define NTP_DIAG_DEPTH_H

#include <stdint.h>

struct ntp_source;

/* ctrl's depth in a meta host_queue_depth text v ("nvme0=128 nvme1=32", NULL); -1 not stated */
int64_t ntp_diag__depth_in(const char *v, const char *ctrl);
/* ctrl's queue depth in file's meta host_queue_depth ("nvme0=128 nvme1=32"); -1 not stated */
int64_t ntp_diag__ctrl_depth(const struct ntp_source *s, int file, const char *ctrl);

#endif
