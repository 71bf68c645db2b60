/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bits of the collectors' `run_flavours` word (bpf/ntp_attach.bpf.h),
 * shared by the BPF programs and lib/collect/attach_set.c.
 */
#ifndef NTP_ATTACH_FLAGS_H
#define NTP_ATTACH_FLAGS_H

enum ntp_run_flavour {
	NTP_RUN_FENTRY = 1 << 0,        /* fentry/fexit programs do their work */
	NTP_RUN_KPROBE = 1 << 1,        /* kprobe/kretprobe twins do it */
	NTP_RUN_TP = 1 << 2,            /* tracepoint-only mode: the completion tracepoints do it */
	NTP_RUN_SAMPLE = 1 << 3,        /* the decision hook samples new commands */
};

#endif
