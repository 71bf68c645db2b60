/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host and target collectors (lib/bpf_host.c, lib/bpf_target.c) do
 * the same way: load the kernel's and the modules' BTF, plan the program
 * flavours under the attach policy, load, attach through a set, read the ring
 * buffer and the counters, and keep the hooks table.  A collector file keeps
 * only what is its own: which hooks exist on this kernel and transport and
 * why, its skeleton, and its record type; it embeds a struct ntp_collector
 * first in its own and fills it in before ntp_collector__prepare().
 */
#ifndef NTP_COLLECTOR_H
#define NTP_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_attach_flags.h"
#include "bpf/ntp_events.h"
#include "lib/attach.h"
#include "lib/attach_plan.h"
#include "lib/transport.h"

/* the hook one stage boundary got on this kernel, for the recording's hooks table */
struct ntp_hook {
	const char *point;      /* h_queue, t_recv, ... (bpf/ntp_events.h) */
	const char *hook;       /* kernel function(s), tracepoint or field; "none" */
	const char *flavour;    /* fentry, fexit, kprobe, kretprobe, tp_btf, raw_tp, derived, none */
	char reason[320];
};

#define NTP_COLLECTOR_MAX_HOOKS 8       /* rows of a hooks table */
#define NTP_COLLECTOR_MAX_FH 16         /* function hooks (ntp_attach__plan's limit) */
#define NTP_COLLECTOR_MAX_TPS 8         /* tracepoint programs */

struct bpf_map;
struct bpf_program;
struct btf;
struct ntp_attach_set;
struct ring_buffer;
struct ntp_collector;

/* the kernel's BTF and two modules', as named in ntp_collector.mods */
struct ntp_kbtf {
	struct btf *vmlinux;
	struct btf *mod[2];
};

/* a hooks-table row in tracepoints-only mode */
struct ntp_tp_row {
	const char *hook;       /* its tracepoint; NULL: none for this point */
	const char *why;        /* after "tracepoints only (<why not fentry>): " */
};

/* what only the collector's own file knows: its skeleton and its choices */
struct ntp_collector_ops {
	/* fill fh[], point_fh[], hooks[] from the BTF; 0 or NTP_EXIT_* after one line */
	int (*choose_hooks)(struct ntp_collector *c, const struct ntp_kbtf *k);
	/* after the flavours are planned: the tracepoint programs' autoload (may add NTP_RUN_TP) */
	void (*choose_tracepoints)(struct ntp_collector *c, const struct ntp_kbtf *k);
	int (*load)(struct ntp_collector *c);           /* the skeleton's load: 0 or -errno */
	void (*destroy)(struct ntp_collector *c);       /* the skeleton's destroy */
	/* one ring-buffer record: 0 to go on, or the NTP_EXIT_* code that stops polling */
	int (*deliver)(struct ntp_collector *c, const void *data, size_t size);
};

struct ntp_collector {
	/* set by the collector before ntp_collector__prepare() */
	const char *name;                       /* "host", "target": in messages */
	const struct ntp_collector_ops *ops;
	enum ntp_attach_policy policy;
	enum ntp_transport transport;
	const char *mods[2];                    /* the modules to load BTF of, most basic lack first */
	const char *no_module;                  /* after "module %s is not loaded: " */
	const int *required;                    /* fh indexes kprobe mode needs, -1 ended */
	int nfh, nhooks;
	/* in tracepoints-only mode, rows without a function hook keep their text */
	bool tp_keep_unhooked;
	const struct ntp_tp_row *tp_rows;       /* nhooks entries */
	struct bpf_map *events, *counters;
	volatile __u32 *run_flavours;           /* the skeleton's .bss */

	/* set by the collector's ops->choose_hooks / choose_tracepoints */
	struct ntp_fhook fh[NTP_COLLECTOR_MAX_FH];
	int point_fh[NTP_COLLECTOR_MAX_HOOKS];  /* the function hook of each row, or -1 */
	struct ntp_hook hooks[NTP_COLLECTOR_MAX_HOOKS];
	const char *kprobe_note[NTP_COLLECTOR_MAX_HOOKS];  /* appended to a row's reason in kprobe mode */
	struct {
		struct bpf_program *prog;
		__u32 cls;                      /* NTP_RUN_TP, NTP_RUN_SAMPLE or NTP_RUN_KPROBE */
	} tps[NTP_COLLECTOR_MAX_TPS];           /* attached after the function hooks, in order */
	int ntps;

	/* the core's */
	struct ntp_attach_caps caps;
	__u32 loaded;                           /* NTP_RUN_* classes with programs */
	struct ring_buffer *rb;
	struct ntp_attach_set *set;
	int stop_code;
};

/*
 * The collector's struct, zeroed, size bytes; NULL after printing one line.
 * Before its skeleton is opened: it sends libbpf's messages to -v -v.
 */
void *ntp_collector__alloc(size_t size);
/* the row's fields; its reason from fmt */
void ntp_hook__set(struct ntp_hook *h, const char *point, const char *hook, const char *flavour,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* describe function hook i (its programs NULL-padded), not wanted until the collector says so */
void ntp_collector__fhook(struct ntp_collector *c, int i, const char *func, struct bpf_program *fe0,
			  struct bpf_program *fe1, struct bpf_program *kp0, struct bpf_program *kp1);
/* a tracepoint program to attach in class cls after the function hooks */
void ntp_collector__add_tp(struct ntp_collector *c, struct bpf_program *p, __u32 cls);

/*
 * Load the BTF, let the collector choose its hooks, plan the flavours, load
 * the skeleton.  Returns 0, or an NTP_EXIT_* code after printing one line,
 * c then freed and its skeleton destroyed.
 */
int ntp_collector__prepare(struct ntp_collector *c);
/* the ring buffer reader and the attach of every loaded program; 0 or NTP_EXIT_* */
int ntp_collector__start(struct ntp_collector *c);
/* as ntp_host__poll(), lib/bpf_host.h */
int ntp_collector__poll(struct ntp_collector *c, int timeout_ms, int *stop_code);
int ntp_collector__read_counters(struct ntp_collector *c, uint64_t cnt[NTP_CNT_MAX]);
/* the hooks table as after an attach in mode (NTP_RUN_*), why: a fallback's cause */
void ntp_collector__plan(const struct ntp_collector *c, __u32 mode, const char *why,
			 struct ntp_hook *out);
int ntp_collector__programs(const struct ntp_collector *c);
void ntp_collector__stop(struct ntp_collector *c);
/* detach, unload and free c (the collector's struct that begins with it) */
void ntp_collector__free(struct ntp_collector *c);

#endif
