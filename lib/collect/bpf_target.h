/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target collector (bpf/target.bpf.c): what is its own, as the host
 * collector's (lib/collect/bpf_host.h).  ntp_target__prepare() gives the collector
 * core (lib/collect/collector.h) that everything after it goes through.
 *
 * It needs the nvmet module and the transport's driver loaded with their
 * BTF: nvmet_tcp, or nvmet_rdma with NTP_TRANSPORT_RDMA; only that driver's
 * programs are loaded.
 */
#ifndef NTP_BPF_TARGET_H
#define NTP_BPF_TARGET_H

#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "lib/collect/collector.h"

/* return 0 to go on, or a non-zero NTP_EXIT_* code to stop polling */
typedef int (*ntp_target_event_fn)(void *ctx, const struct ntp_target_event *e);

/*
 * Check the kernel's BTF, choose the hooks (rows t_recv, t_r2t, t_submit,
 * t_cmpl, t_sent), load.  Returns 0 with *c set, or an NTP_EXIT_* code after
 * printing one line: _UNSUPPORTED when the kernel lacks a module, type or
 * hook the collector needs, _FAILURE otherwise.  fn: as ntp_host__prepare()'s.
 */
int ntp_target__prepare(struct ntp_collector **c, const struct ntp_collector_opts *o,
		        ntp_target_event_fn fn, void *ctx);

#endif
