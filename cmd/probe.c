// SPDX-License-Identifier: GPL-2.0
/* What record and monitor ask of the kernel before loading anything (cmd/cmd.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/kernel_probe.h"

/* the vmlinux function whose fentry load tells whether this kernel runs fentry programs */
#define FENTRY_PROBE_FUNC "blk_mq_complete_request_remote"

static int probe_module(const char *name, const char *hint)
{
	if (!ntp_probe__module_loaded(name)) {
		ntp_error("module %s is not loaded: %s", name, hint);
		return NTP_EXIT_UNSUPPORTED;
	}
	if (!ntp_probe__module_btf(name)) {
		ntp_error("kernel has no BTF for module %s: /sys/kernel/btf/%s is missing "
			  "(needs CONFIG_DEBUG_INFO_BTF_MODULES: Linux 5.11 and later)", name, name);
		return NTP_EXIT_UNSUPPORTED;
	}
	return 0;
}

int ntp_cmd__probe_kernel(const char *cmd, bool host, bool target, enum ntp_transport t,
			  enum ntp_attach_policy attach)
{
	bool rdma = t == NTP_TRANSPORT_RDMA;
	int err;

	err = ntp_cmd__check_privileges(cmd);
	if (err)
		return err;
	if (!ntp_probe__vmlinux_btf()) {
		ntp_error("kernel lacks /sys/kernel/btf/vmlinux: needs a kernel built with CONFIG_DEBUG_INFO_BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	/*
	 * A forced flavour the kernel cannot run is said here, in one line; in
	 * the automatic choice the collectors fall back and say why.
	 */
	if (attach == NTP_ATTACH_FENTRY) {
		err = ntp_probe__fentry(FENTRY_PROBE_FUNC);
		if (err == -ENOENT) {
			ntp_error("kernel lacks %s in its BTF: cannot attach the completion hook",
				  FENTRY_PROBE_FUNC);
			return NTP_EXIT_UNSUPPORTED;
		}
		if (err) {
			ntp_error("--fentry: kernel cannot run fentry/fexit programs: loading one on %s: %s "
				  "(needs CONFIG_FUNCTION_TRACER with ftrace direct calls)",
				  FENTRY_PROBE_FUNC, strerror(-err));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	if (attach == NTP_ATTACH_KPROBE) {
		err = ntp_probe__kprobe();
		if (err) {
			ntp_error("--kprobes: kernel cannot run kprobes: %s (needs CONFIG_KPROBES)",
				  strerror(-err));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	if (host) {
		err = rdma ? probe_module("nvme_rdma", "no NVMe/RDMA host here "
					  "(modprobe nvme-rdma, then nvme connect -t rdma)")
			   : probe_module("nvme_tcp", "no NVMe/TCP host here (modprobe nvme-tcp, then nvme connect)");
		if (err)
			return err;
	}
	if (target) {
		err = probe_module("nvmet", rdma ? "no NVMe-oF target here (modprobe nvmet-rdma, then configure it)"
					 : "no NVMe-oF target here (modprobe nvmet-tcp, then configure it)");
		err = err ?: rdma ? probe_module("nvmet_rdma", "no NVMe/RDMA target here "
						 "(modprobe nvmet-rdma, then add an rdma port to nvmet)")
				  : probe_module("nvmet_tcp", "no NVMe/TCP target here (modprobe nvmet-tcp)");
		if (err)
			return err;
	}
	return 0;
}
