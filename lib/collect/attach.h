/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the collectors attach their programs (record's --fentry / --kprobes,
 * and the automatic choice the seed's "Busy CPUs" section describes).
 */
#ifndef NTP_ATTACH_H
#define NTP_ATTACH_H

enum ntp_attach_policy {
	/* fentry/fexit where a probe shows they attach now, else kprobes, each
	 * fallback said and recorded; tracepoints where neither can attach */
	NTP_ATTACH_AUTO = 0,
	NTP_ATTACH_FENTRY,      /* --fentry: fentry/fexit only, wait for the attach */
	NTP_ATTACH_KPROBE,      /* --kprobes: kprobes/kretprobes only */
};

/* seconds an fentry attach may take before AUTO gives up on it for kprobes */
#define NTP_ATTACH_FENTRY_TIMEOUT_S 10

#endif
