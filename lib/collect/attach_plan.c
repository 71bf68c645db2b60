// SPDX-License-Identifier: GPL-2.0
/* Which flavours to load (lib/collect/attach_plan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "bpf/ntp_attach_flags.h"
#include "lib/collect/attach_plan.h"
#include "lib/collect/kernel_probe.h"

/* the vmlinux function and tracepoint whose probe loads tell what this kernel runs */
#define FENTRY_PROBE_FUNC "blk_mq_complete_request_remote"
#define TP_BTF_PROBE "sched_switch"
#define MAX_HOOKS 16

/*
 * NTPROF_ATTACH_DISABLE=fentry,kprobe,tp_btf: act as if the kernel refused
 * these flavours, so that the fallbacks (down to tracepoints only, raw_tp)
 * can be exercised on a kernel that has everything (tests/testbed).
 */
static bool disabled(const char *flavour)
{
	const char *env = getenv("NTPROF_ATTACH_DISABLE");
	size_t len = strlen(flavour);
	const char *p;

	for (p = env; p && (p = strstr(p, flavour)); p += len)
		if ((p == env || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

void ntp_attach__probe_caps(struct ntp_attach_caps *caps, enum ntp_attach_policy policy)
{
	int err;

	memset(caps, 0, sizeof(*caps));
	if (policy == NTP_ATTACH_KPROBE) {
		snprintf(caps->no_fentry, sizeof(caps->no_fentry), "--kprobes");
	} else if (disabled("fentry")) {
		snprintf(caps->no_fentry, sizeof(caps->no_fentry), "fentry disabled by NTPROF_ATTACH_DISABLE");
	} else {
		err = ntp_probe__fentry(FENTRY_PROBE_FUNC);
		caps->fentry = !err;
		if (err)
			snprintf(caps->no_fentry, sizeof(caps->no_fentry),
				 "kernel cannot run fentry/fexit programs: loading one on %s: %s "
				 "(needs CONFIG_FUNCTION_TRACER with ftrace direct calls)",
				 FENTRY_PROBE_FUNC, strerror(-err));
	}
	if (policy == NTP_ATTACH_FENTRY) {
		snprintf(caps->no_kprobe, sizeof(caps->no_kprobe), "--fentry");
	} else if (disabled("kprobe")) {
		snprintf(caps->no_kprobe, sizeof(caps->no_kprobe), "kprobes disabled by NTPROF_ATTACH_DISABLE");
	} else {
		err = ntp_probe__kprobe();
		caps->kprobe = !err;
		if (err == -ENOENT)
			snprintf(caps->no_kprobe, sizeof(caps->no_kprobe),
				 "kernel has no kprobes: /sys/bus/event_source/devices/kprobe is missing "
				 "(needs CONFIG_KPROBES)");
		else if (err)
			snprintf(caps->no_kprobe, sizeof(caps->no_kprobe),
				 "kernel cannot run kprobe programs: loading one: %s", strerror(-err));
	}
	caps->tp_btf = !disabled("tp_btf") && !ntp_probe__tp_btf(TP_BTF_PROBE);
}

__u32 ntp_attach__plan(struct ntp_fhook *h, int n, const int *required, struct ntp_attach_caps *caps)
{
	const char *names[MAX_HOOKS] = {};
	bool found[MAX_HOOKS] = {};
	__u32 classes = 0;
	int i, j;

	for (i = 0; i < n && i < MAX_HOOKS; i++)
		names[i] = h[i].func;
	if (caps->kprobe && ntp_probe__ksyms(names, found, n < MAX_HOOKS ? n : MAX_HOOKS)) {
		caps->kprobe = false;
		snprintf(caps->no_kprobe, sizeof(caps->no_kprobe),
			 "cannot read /proc/kallsyms: %s", strerror(errno));
	}
	for (i = 0; i < n; i++)
		h[i].ksym = caps->kprobe && i < MAX_HOOKS && found[i];
	for (i = 0; caps->kprobe && required && required[i] >= 0; i++) {
		const struct ntp_fhook *r = &h[required[i]];

		if (r->want && !r->ksym) {
			caps->kprobe = false;
			snprintf(caps->no_kprobe, sizeof(caps->no_kprobe),
				 "%s has no kprobe: it is not in /proc/kallsyms", r->func);
		}
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < 2; j++) {
			if (h[i].fe[j]) {
				bpf_program__set_autoload(h[i].fe[j], h[i].want && caps->fentry);
				if (h[i].want && caps->fentry)
					classes |= NTP_RUN_FENTRY;
			}
			if (h[i].kp[j]) {
				bool on = h[i].want && caps->kprobe && h[i].ksym;

				bpf_program__set_autoload(h[i].kp[j], on);
				if (on)
					classes |= NTP_RUN_KPROBE;
			}
		}
	}
	return classes;
}

static bool any_sec(struct bpf_program *const *p, const char *prefix)
{
	int i;

	for (i = 0; i < 2; i++)
		if (p[i] && !strncmp(bpf_program__section_name(p[i]), prefix, strlen(prefix)))
			return true;
	return false;
}

const char *ntp_attach__flavour(const struct ntp_fhook *h, __u32 mode)
{
	if (!h->want)
		return "none";
	if (mode == NTP_RUN_KPROBE && h->ksym && h->kp[0])
		return any_sec(h->kp, "kretprobe") ? "kretprobe" : "kprobe";
	if (mode == NTP_RUN_FENTRY && h->fe[0])
		return any_sec(h->fe, "fexit") ? "fexit" : "fentry";
	return "none";
}
