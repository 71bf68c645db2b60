/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which program flavours this kernel and the attach policy allow, and which
 * of a collector's programs to load accordingly (before the skeleton loads).
 * lib/collect/attach_set.c then attaches them.
 *
 * Every kernel-function hook comes as fentry/fexit programs and their
 * kprobe/kretprobe twins (bpf/ntp_attach.bpf.h).  A hook a kernel has in
 * BTF may still have no kprobe (not in /proc/kallsyms); it then has no
 * kprobe twin.
 */
#ifndef NTP_ATTACH_PLAN_H
#define NTP_ATTACH_PLAN_H

#include <stdbool.h>
#include <linux/types.h>

#include "lib/collect/attach.h"

struct bpf_program;

/* what the kernel lets us load, for this policy */
struct ntp_attach_caps {
	bool fentry;            /* fentry/fexit programs load (and the policy allows them) */
	bool kprobe;            /* kprobe programs load, the kprobe PMU exists (and allowed) */
	bool tp_btf;            /* BTF-typed tracepoint programs load; else raw_tp */
	char no_fentry[256];    /* why not fentry, when not */
	char no_kprobe[256];    /* why not kprobes, when not */
};

/*
 * Probe by loading trivial programs.  NTPROF_ATTACH_DISABLE (a comma-separated
 * list of fentry, kprobe, tp_btf) makes it act as if the kernel refused
 * those flavours: for testing the fallbacks on a kernel that has everything.
 */
void ntp_attach__probe_caps(struct ntp_attach_caps *caps, enum ntp_attach_policy policy);

/* one kernel function hook */
struct ntp_fhook {
	const char *func;
	/* the prototype its programs read (lib/collect/kernel_probe.h), checked against BTF */
	const char *proto;
	struct bpf_program *fe[2];      /* fentry and/or fexit; NULL-padded */
	struct bpf_program *kp[2];      /* their kprobe/kretprobe twins (a kretprobe's entry kprobe) */
	bool want;                      /* in this kernel's BTF: set by the collector */
	bool ksym;                      /* in /proc/kallsyms: set by ntp_attach__plan() */
};

/*
 * Set the autoload of each hook's programs for caps; returns the NTP_RUN_*
 * classes that will have programs: NTP_RUN_FENTRY, NTP_RUN_KPROBE (only
 * when every hook in required[] (indexes into h, -1 ended) has a kprobe;
 * else why goes to caps->no_kprobe).
 */
__u32 ntp_attach__plan(struct ntp_fhook *h, int n, const int *required, struct ntp_attach_caps *caps);

/*
 * The flavour the hook got in mode (NTP_RUN_*), for the hooks table: "fexit"
 * or "kretprobe" when a return is hooked, else "fentry" or "kprobe"; "none".
 */
const char *ntp_attach__flavour(const struct ntp_fhook *h, __u32 mode);

#endif
