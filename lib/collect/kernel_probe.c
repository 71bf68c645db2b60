// SPDX-License-Identifier: GPL-2.0
/* Kernel and privilege probes (lib/collect/kernel_probe.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "lib/collect/kernel_probe.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool cap_effective(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap >> 5].effective & (1u << (cap & 31));
}

bool ntp_probe__bpf_privileged(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0;
	if (cap_effective(d, CAP_SYS_ADMIN))
		return true;
	return cap_effective(d, CAP_BPF) && cap_effective(d, CAP_PERFMON);
}

bool ntp_probe__vmlinux_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

static bool path_exists(const char *fmt, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), fmt, name);
	return access(path, F_OK) == 0;
}

bool ntp_probe__module_loaded(const char *name)
{
	return path_exists("/sys/module/%s", name);
}

bool ntp_probe__module_btf(const char *name)
{
	return path_exists("/sys/kernel/btf/%s", name);
}

int ntp_probe__fentry(const char *func)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id, fd;

	if (!vmlinux)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0)
		return -ENOENT;

	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ntp_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

int ntp_probe__kprobe(void)
{
	int fd;

	if (access("/sys/bus/event_source/devices/kprobe", F_OK))
		return -ENOENT;
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ntp_probe", "GPL", ret0,
			   sizeof(ret0) / sizeof(ret0[0]), NULL);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int ntp_probe__raw_tp(void)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "ntp_probe", "GPL", ret0,
			       sizeof(ret0) / sizeof(ret0[0]), NULL);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int ntp_probe__tp_btf(const char *tp)
{
	char name[128];
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id, fd;

	if (!vmlinux)
		return -errno;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	btf__free(vmlinux);
	if (id < 0)
		return -ENOENT;

	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ntp_probe", "GPL", ret0,
			   sizeof(ret0) / sizeof(ret0[0]), &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int ntp_probe__ksyms(const char *const *names, bool *found, int n)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	FILE *f;
	int i;

	for (i = 0; i < n; i++)
		found[i] = false;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* "ffffffffc0a01230 t nvme_complete_rq\t[nvme_core]" */
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		for (i = 0; i < n; i++)
			if (!found[i] && !strcmp(sym, names[i]))
				found[i] = true;
	}
	fclose(f);
	return 0;
}

int ntp_probe__ksym_addrs(const char *path, const char *const *names, __u64 *addrs, int n)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	bool ambiguous[64] = {};
	FILE *f;
	int i;

	for (i = 0; i < n; i++)
		addrs[i] = 0;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		for (i = 0; i < n && i < 64; i++) {
			if (strcmp(sym, names[i]))
				continue;
			if (addrs[i] && addrs[i] != addr)
				ambiguous[i] = true;
			addrs[i] = addr;
		}
	}
	fclose(f);
	for (i = 0; i < n; i++)
		if (i >= 64 || ambiguous[i])
			addrs[i] = 0;
	return 0;
}

int ntp_probe__btf_func_params(const struct btf *btf, const char *func)
{
	const struct btf_type *t;
	int id;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_func_proto(t))
		return -ENOENT;
	return btf_vlen(t);
}

bool ntp_probe__btf_typedef(const struct btf *btf, const char *name)
{
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0;
}
