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

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* whether the kernel loads ret0 as a program of this type: 0 or -errno */
static int load_ret0(enum bpf_prog_type type, const struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, "ntp_probe", "GPL", ret0, sizeof(ret0) / sizeof(ret0[0]),
			       opts);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* the vmlinux BTF id of name, a kind: >= 0, -ENOENT, or -errno without BTF */
static int vmlinux_id(const char *name, int kind)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id;

	if (!vmlinux)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, name, kind);
	btf__free(vmlinux);
	return id < 0 ? -ENOENT : id;
}

/* a tracing program of attach type at the BTF id of name, a kind */
static int load_tracing(const char *name, int kind, enum bpf_attach_type at)
{
	int id = vmlinux_id(name, kind);

	if (id < 0)
		return id;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = at, .attach_btf_id = id);
	return load_ret0(BPF_PROG_TYPE_TRACING, &opts);
}

int ntp_probe__fentry(const char *func)
{
	return load_tracing(func, BTF_KIND_FUNC, BPF_TRACE_FENTRY);
}

int ntp_probe__kprobe(void)
{
	if (access("/sys/bus/event_source/devices/kprobe", F_OK))
		return -ENOENT;
	return load_ret0(BPF_PROG_TYPE_KPROBE, NULL);
}

int ntp_probe__raw_tp(void)
{
	return load_ret0(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL);
}

int ntp_probe__tp_btf(const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return load_tracing(name, BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
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

int ntp_probe__preempt_model(const char *path, char *buf, size_t len)
{
	char line[128], *open, *close;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	/* "none voluntary (full) lazy" */
	open = strchr(line, '(');
	close = open ? strchr(open, ')') : NULL;
	if (!close || (size_t)(close - open - 1) >= len)
		return -EINVAL;
	memcpy(buf, open + 1, close - open - 1);
	buf[close - open - 1] = '\0';
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

/* the type id behind typedefs and qualifiers (const, volatile, restrict, type tags) */
static __u32 skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;
	int depth;

	for (depth = 0; depth < 32 && id; depth++) {
		t = btf__type_by_id(btf, id);
		if (!t || !(btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t)))
			break;
		id = t->type;
	}
	return id;
}

/* the type id of member name (len bytes) of composite id, looking into anonymous members; 0: none */
static __u32 member_type(const struct btf *btf, __u32 id, const char *name, size_t len, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, skip_mods(btf, id));
	const struct btf_member *m;
	__u32 found;
	int i;

	if (!t || !btf_is_composite(t) || depth > 8)
		return 0;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);

		if (mn && *mn) {
			if (strlen(mn) == len && !strncmp(mn, name, len))
				return m[i].type;
		} else if ((found = member_type(btf, m[i].type, name, len, depth + 1))) {
			return found;
		}
	}
	return 0;
}

bool ntp_probe__btf_member(const struct btf *btf, const char *type, const char *path)
{
	const char *p = path, *dot;
	int id;
	__u32 t;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return false;
	for (t = id; *p; p = dot ? dot + 1 : p + strlen(p)) {
		dot = strchr(p, '.');
		t = member_type(btf, t, p, dot ? (size_t)(dot - p) : strlen(p), 0);
		if (!t)
			return false;
	}
	return true;
}

/* one word of a prototype (kernel_probe.h) for type id; 0 or -E2BIG */
static int type_word(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t;
	const char *name;
	int n;

	id = skip_mods(btf, id);
	t = id ? btf__type_by_id(btf, id) : NULL;
	if (!t) {
		n = snprintf(buf, len, "void");
	} else if (btf_is_ptr(t)) {
		const struct btf_type *to = btf__type_by_id(btf, skip_mods(btf, t->type));

		name = to && (btf_is_composite(to) || btf_is_fwd(to) || btf_is_any_enum(to)) ?
		       btf__name_by_offset(btf, to->name_off) : "";
		n = snprintf(buf, len, "%s*", name ? name : "");
	} else if (btf_is_int(t) || btf_is_any_enum(t)) {
		n = snprintf(buf, len, "i%u", t->size);
	} else {
		name = btf__name_by_offset(btf, t->name_off);
		n = snprintf(buf, len, "%s", name && *name ? name : "?");
	}
	return n < 0 || (size_t)n >= len ? -E2BIG : 0;
}

/* the prototype words of FUNC_PROTO id, from parameter `first` on */
static int proto_words(const struct btf *btf, __u32 id, int first, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_param *p;
	size_t used = 0;
	int i, err;

	if (!t || !btf_is_func_proto(t))
		return -ENOENT;
	p = btf_params(t);
	if (len)
		buf[0] = '\0';
	for (i = first; i < btf_vlen(t); i++) {
		if (used + 2 > len)
			return -E2BIG;
		if (i > first)
			buf[used++] = ',';
		err = type_word(btf, p[i].type, buf + used, len - used);
		if (err)
			return err;
		used += strlen(buf + used);
	}
	if (used + 3 > len)
		return -E2BIG;
	strcpy(buf + used, "->");
	used += 2;
	return type_word(btf, t->type, buf + used, len - used);
}

int ntp_probe__btf_func_proto(const struct btf *btf, const char *func, char *buf, size_t len)
{
	const struct btf_type *t;
	int id;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	return proto_words(btf, t->type, 0, buf, len);
}

int ntp_probe__btf_tp_proto(const struct btf *btf, const char *tp, char *buf, size_t len)
{
	const struct btf_type *t;
	char name[128];
	int id;

	if (!btf)
		return -ENOENT;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	/* typedef void (*btf_trace_X)(void *__data, args...) */
	t = btf__type_by_id(btf, skip_mods(btf, id));
	if (!t || !btf_is_ptr(t))
		return -ENOENT;
	return proto_words(btf, skip_mods(btf, t->type), 1, buf, len);
}

/* the next word of a prototype's parameters at *p (up to ',' or the end), its length */
static size_t next_word(const char **p, const char *end)
{
	const char *w = *p, *c = memchr(w, ',', end - w);
	size_t n = c ? (size_t)(c - w) : (size_t)(end - w);

	*p = c ? c + 1 : end;
	return n;
}

bool ntp_probe__proto_fits(const char *want, const char *have)
{
	const char *wret = strstr(want, "->"), *hret = strstr(have, "->");
	const char *wend = wret ? wret : want + strlen(want);
	const char *hend = hret ? hret : have + strlen(have);
	const char *w = want, *h = have;

	if (wret && (!hret || strcmp(wret, hret)))
		return false;
	while (w < wend) {
		const char *ws = w, *hs = h;
		size_t wn = next_word(&w, wend), hn;

		if (wn == 3 && !strncmp(ws, "...", 3))
			return true;
		if (h >= hend)
			return false;
		hn = next_word(&h, hend);
		/* "*": any pointer */
		if (wn == 1 && *ws == '*' ? !(hn && hs[hn - 1] == '*') : wn != hn || strncmp(ws, hs, wn))
			return false;
	}
	return h >= hend;
}
