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

/* the number of parameters of FUNC in BTF, or -ENOENT when it is not there (inlined) */
int ntp_probe__btf_func_params(const struct btf *btf, const char *func);

/* whether a typedef (e.g. btf_trace_<tracepoint>) exists in BTF */
bool ntp_probe__btf_typedef(const struct btf *btf, const char *name);

#endif
