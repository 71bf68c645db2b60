/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel and this process can do, asked before anything is
 * loaded so that record can say exactly what is missing.
 */
#ifndef NTP_KERNEL_PROBE_H
#define NTP_KERNEL_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

struct btf;

/* may this process load and attach tracing programs (root, CAP_SYS_ADMIN, or CAP_BPF + CAP_PERFMON)? */
bool ntp_probe__bpf_privileged(void);

/* /sys/kernel/btf/vmlinux exists (CONFIG_DEBUG_INFO_BTF) */
bool ntp_probe__vmlinux_btf(void);

/* the module is loaded (/sys/module/NAME) / has BTF (/sys/kernel/btf/NAME); NAME with underscores */
bool ntp_probe__module_loaded(const char *name);
bool ntp_probe__module_btf(const char *name);

/*
 * Load (never attach) a trivial fentry program on the vmlinux function FUNC:
 * 0 when the kernel accepts fentry programs, else -errno (EPERM without
 * ftrace direct calls, ENOENT when FUNC is not in BTF).
 */
int ntp_probe__fentry(const char *func);

/*
 * Load (never attach) a trivial kprobe program: 0 when this kernel can run
 * kprobes (its kprobe PMU exists and the program loads), else -errno
 * (ENOENT: no kprobe PMU, CONFIG_KPROBES off).
 */
int ntp_probe__kprobe(void);

/*
 * Load (never attach) a trivial tp_btf program on the vmlinux tracepoint TP
 * (e.g. "sched_switch"): 0 when the kernel accepts BTF-typed tracepoint
 * programs, else -errno (then raw_tp is the way).
 */
int ntp_probe__tp_btf(const char *tp);

/* Load (never attach) a trivial raw_tp program: 0, or -errno */
int ntp_probe__raw_tp(void);

/*
 * Which of names[0..n-1] are functions in /proc/kallsyms (what a kprobe can
 * attach to: not inlined), into found[]; -errno when it cannot be read.
 */
int ntp_probe__ksyms(const char *const *names, bool *found, int n);

/*
 * The addresses of the functions names[0..n-1] in a kallsyms file (path, e.g.
 * /proc/kallsyms) into addrs[]: 0 for one that is absent, that shows as 0
 * (kptr_restrict), or that two symbols of different addresses share (a
 * static function's name in two files: which one a pointer holds is not
 * told then).  -errno when the file cannot be read.
 */
int ntp_probe__ksym_addrs(const char *path, const char *const *names, __u64 *addrs, int n);

/*
 * The kernel's preemption model, the one in parentheses in
 * /sys/kernel/debug/sched/preempt ("none", "voluntary", "full", "lazy"),
 * into buf: 0, or -errno when the file cannot be read (debugfs not mounted,
 * a kernel without dynamic preemption).  path: that file, or another for tests.
 */
int ntp_probe__preempt_model(const char *path, char *buf, size_t len);

/* the number of parameters of FUNC in BTF, or -ENOENT when it is not there (inlined) */
int ntp_probe__btf_func_params(const struct btf *btf, const char *func);

/*
 * Whether struct TYPE in btf has the member at path, dot-separated, looking
 * into anonymous members on the way (bpf_link_info, "perf_event.kprobe.missed").
 */
bool ntp_probe__btf_member(const struct btf *btf, const char *type, const char *path);

/*
 * A prototype as the BPF programs see it, one word a parameter, separated
 * by commas, then "->" and the return: a pointer to a struct, union or enum
 * is its name and "*" (nvmet_req*), any other pointer "*", an integer,
 * enum or bool "i" and its size in bytes (i2 for a u16), void "void";
 * typedefs and qualifiers are looked through.  So
 * "nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*->i1" is
 * bool nvmet_req_init(struct nvmet_req *, struct nvmet_sq *, const struct nvmet_fabrics_ops *).
 *
 * FUNC's prototype in btf, or a tracepoint's (TP, without its "btf_trace_"
 * prefix, and without the context its programs get first) into buf:
 * 0, or -ENOENT when it is not there (a function inlined), -E2BIG when buf
 * is too small.
 */
int ntp_probe__btf_func_proto(const struct btf *btf, const char *func, char *buf, size_t len);
int ntp_probe__btf_tp_proto(const struct btf *btf, const char *tp, char *buf, size_t len);

/*
 * Whether a prototype (as above) is what a program was written for: want
 * lists the parameters its programs read, in order; a want ending in ",..."
 * allows more after them (a program that reads no return value), else the
 * count must be equal (an fexit program finds the return after the last
 * parameter).  A word "*" stands for any pointer.  "->R" at the end of want
 * checks the return too.
 */
bool ntp_probe__proto_fits(const char *want, const char *have);

#endif
