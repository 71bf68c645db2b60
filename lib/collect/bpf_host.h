/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host collector (bpf/host.bpf.c): what is its own.  ntp_host__prepare()
 * gives the collector core (lib/collect/collector.h) that everything after it goes
 * through, after perf's off_cpu_prepare/start/finish: record never touches
 * the skeleton.
 */
#ifndef NTP_BPF_HOST_H
#define NTP_BPF_HOST_H

#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "lib/collect/collector.h"

/* return 0 to go on, or a non-zero NTP_EXIT_* code to stop polling */
typedef int (*ntp_host_event_fn)(void *ctx, const struct ntp_host_event *e);

/*
 * Check the kernel's BTF, choose the hooks (rows h_start, h_queue,
 * h_cmd_sent, h_r2t, h_data_sent, h_recv, h_done), load.  Returns 0 with *c
 * set, or an NTP_EXIT_* code after printing one line: _UNSUPPORTED when the
 * kernel lacks a type or hook the collector needs, _FAILURE otherwise.
 * fn gets each sampled record from ntp_collector__poll(); NULL only for
 * a collector never started (ntprof check).
 */
int ntp_host__prepare(struct ntp_collector **c, const struct ntp_collector_opts *o,
		      ntp_host_event_fn fn, void *ctx);

#endif
