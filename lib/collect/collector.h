/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host and target collectors (lib/collect/bpf_host.c, lib/collect/bpf_target.c) do
 * the same way: load the kernel's and the modules' BTF, plan the program
 * flavours under the attach policy, load, attach through a set, read the ring
 * buffer and the counters, and keep the hooks table.  A collector file keeps
 * only what is its own: which hooks exist on this kernel and transport and
 * why, its skeleton, and its record type; it embeds a struct ntp_collector
 * first in its own and fills it in before ntp_collector__prepare().
 *
 * Its prepare (ntp_host__prepare(), ntp_target__prepare()) gives callers
 * this core; they go on with it alone:
 *
 *	ntp_collector__start()   attach every chosen program, open the ring buffer
 *	ntp_collector__poll()    hand sampled records to the collector's callback
 *	ntp_collector__stop()    detach; a last ntp_collector__poll() drains what is left
 *	ntp_collector__free()    unload; nothing of ours stays in the kernel
 *
 * and read name, nhooks, hooks[] and loaded, below.
 */
#ifndef NTP_COLLECTOR_H
#define NTP_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_attach_flags.h"
#include "bpf/ntp_events.h"
#include "lib/collect/inflight_expire.h"  /* struct ntp_slots_view */
#include "lib/collect/attach.h"
#include "lib/collect/attach_plan.h"
#include "lib/core/transport.h"

/* the hook one stage boundary got on this kernel, for the recording's hooks table */
struct ntp_hook {
	const char *point;      /* h_queue, t_recv, ... (bpf/ntp_events.h) */
	const char *hook;       /* kernel function(s), tracepoint or field; "none" */
	const char *flavour;    /* fentry, fexit, kprobe, kretprobe, tp_btf, raw_tp, derived, none */
	char reason[320];
};

#define NTP_COLLECTOR_MAX_HOOKS 12      /* rows of a hooks table */
#define NTP_COLLECTOR_MAX_FH 16         /* function hooks (ntp_attach__plan's limit) */
#define NTP_COLLECTOR_MAX_TPS 8         /* tracepoint programs */
#define NTP_COLLECTOR_MAX_PARKED 8      /* maps of records kept past their completion */
#define NTP_COLLECTOR_MAX_FAILED 8      /* hooks whose programs the kernel refused */

struct bpf_map;
struct bpf_program;
struct btf;
struct ntp_attach_set;
struct ring_buffer;
struct ntp_collector;
struct ntp_filter;

/* what a recording asks of a collector, the same for each (their prepare) */
struct ntp_collector_opts {
	enum ntp_transport transport;    /* -t: which driver's hooks (0: TCP), and whose commands */
	uint32_t sample_one_in;         /* record one command in N */
	/*
	 * AUTO (0): fentry/fexit where they attach now, else kprobes, else
	 * tracepoints only; FENTRY (--fentry) waits for a stuck attach;
	 * KPROBE (--kprobes).  ntprof-record(1), "Busy CPUs".
	 */
	enum ntp_attach_policy attach;
	/* --session, --io-type, --size, applied in BPF (lib/core/filter.h); NULL: none */
	const struct ntp_filter *filter;
	/* host: --no-app, none of the application's hooks (ntprof-record(1)) */
	bool no_app;
	/*
	 * histogram mode (ntprof monitor, bpf/ntp_mon.bpf.h): sampled commands
	 * are counted into the `hists` map, not handed to the ring buffer
	 */
	bool hist_mode;
	/* and each sampled command handed to the ring buffer too (monitor --flight) */
	bool hist_stream;
};

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

/*
 * A hook whose program the kernel refused to load: prepare sets it aside and
 * loads the collector again without it, each point it served falling back
 * as when the kernel lacks the hook (ntprof-design(7), "Flavours and
 * fallbacks").
 */
struct ntp_failed_hook {
	char hook[64];          /* the kernel function or tracepoint */
	char why[200];          /* "its fentry program failed to load: Permission denied" */
};

/* what only the collector's own file knows: its skeleton and its choices */
struct ntp_collector_ops {
	/*
	 * Open the skeleton (again, after a program failed to load): set its
	 * read-only data and fill in obj, events, counters and the other
	 * skeleton pointers; 0 or NTP_EXIT_* after one line.
	 */
	int (*open)(struct ntp_collector *c);
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
	int nfh;
	int nhooks;                             /* rows of hooks[] */
	/* in tracepoints-only mode, rows without a function hook keep their text */
	bool tp_keep_unhooked;
	const struct ntp_tp_row *tp_rows;       /* nhooks entries */
	const struct ntp_collector_opts *opts;  /* what the recording asked; during prepare only */

	/* set by ops->open, for each skeleton */
	struct bpf_object *obj;
	struct bpf_map *events, *counters;
	struct bpf_map *hists;                  /* the histograms of histogram mode (bpf/ntp_mon.h) */
	struct bpf_map *queues;                 /* ... the host's per-queue readings (bpf/ntp_mon.h) */
	struct bpf_map *flight_floor;           /* ... and the flight recorder's floor (bpf/ntp_mon.h) */
	/* the skeleton's .bss: NTP_CNT_SEEN, NTP_SEEN_SLOTS of them (bpf/ntp_events.h) */
	const volatile struct ntp_seen_slot *seen_slots;
	/* the skeleton's .bss: NTP_CNT_FABRIC likewise, or NULL (the per-CPU counter) */
	const volatile struct ntp_seen_slot *fabric_slots;
	volatile __u32 *run_flavours;           /* the skeleton's .bss */
	/*
	 * The sampled commands in flight (8-byte keys), swept by poll of those
	 * that never completed (lib/collect/inflight_expire.h): inflight_ts_off is the
	 * offset of the first timestamp in its value, inflight_cid_off that of
	 * the command id (for rdma_cmds).  NULL: no sweep.
	 */
	struct bpf_map *inflight;
	size_t inflight_ts_off, inflight_cid_off;
	/* the host's per-request slots, mapped (their entries' offsets as inflight's); base NULL: none */
	struct ntp_slots_view slots;
	struct bpf_map *rdma_cmds;              /* host, -t rdma: (qp, cid) -> request; or NULL */
	/*
	 * Maps where the BPF side keeps a command's record after its
	 * completion, until a later hook stamps and emits it (the host's
	 * application side, bpf/host_app.bpf.h).  poll writes the records kept
	 * longer than NTP_PARKED_EXPIRE_NS, ntp_collector__flush_parked every
	 * one left, through ops->deliver: a hook that never came costs a
	 * record its later stamps, not the record.  ts_off: the offset of the
	 * completion's time in the value; record: the value is a record (else
	 * a helper entry, only dropped); live: the BPF side's count of the
	 * map's entries (its hooks look only while it is not 0).  An array of
	 * slots (slots.base set once mapped: ntp_inflight__take_slots) holds
	 * its record at rec_off of each slot, ts_off within the record.
	 */
	struct ntp_parked {
		struct bpf_map *map;
		size_t ts_off;
		bool record;
		volatile __u32 *live;
		struct ntp_slots_view slots;
		size_t rec_off;
	} parked[NTP_COLLECTOR_MAX_PARKED];
	int nparked;

	/* set by the collector's ops->choose_hooks / choose_tracepoints */
	struct ntp_fhook fh[NTP_COLLECTOR_MAX_FH];
	char fh_why[NTP_COLLECTOR_MAX_FH][256]; /* why a hook cannot be had: ntp_collector__usable() */
	/*
	 * The cross-check (ntp_collector__crosscheck): the decision's hook, and
	 * what counts the commands independently (NTP_CNT_FABRIC), or NULL
	 * when this kernel gives nothing to count them with.
	 */
	const char *decision;
	const char *fabric;
	int point_fh[NTP_COLLECTOR_MAX_HOOKS];  /* the function hook of each row, or -1 */
	/*
	 * The hooks table, one row per stage boundary.  After start, each
	 * row's flavour is the one it got, and its reason says why (a
	 * fallback's cause first).
	 */
	struct ntp_hook hooks[NTP_COLLECTOR_MAX_HOOKS];
	const char *kprobe_note[NTP_COLLECTOR_MAX_HOOKS];  /* appended to a row's reason in kprobe mode */
	struct {
		struct bpf_program *prog;
		__u32 cls;                      /* NTP_RUN_TP, NTP_RUN_SAMPLE or NTP_RUN_KPROBE */
	} tps[NTP_COLLECTOR_MAX_TPS];           /* attached after the function hooks, in order */
	int ntps;

	/* the core's */
	struct ntp_failed_hook failed[NTP_COLLECTOR_MAX_FAILED];
	int nfailed;
	uint64_t kprobe_missed;                 /* summed over the kprobe links, read at the stop */
	/*
	 * Program runs the kernel skipped (each program's recursion_misses:
	 * it was running already on that CPU, preempted or interrupted), read
	 * at the stop, without those of `covered` (a program whose skipped
	 * runs another one takes: the host's decision and its backup).
	 */
	uint64_t prog_missed;
	const struct bpf_program *covered[2];
	bool kprobe_missed_told;                /* the kernel tells a link's missed count (6.7+) */
	bool kprobe_links;                      /* kprobe links were attached */
	struct ntp_attach_caps caps;
	__u32 loaded;                           /* after prepare: NTP_RUN_* classes with programs */
	struct ring_buffer *rb;
	struct ntp_attach_set *set;
	int stop_code;
	uint64_t sweep_next_ns;                 /* CLOCK_MONOTONIC: the next sweep of inflight */
	uint64_t expired;                       /* inflight entries dropped by the sweeps */
	uint64_t parked_written;                /* parked records written by user space */
	int parked_err;                         /* the first error ops->deliver returned for one */
};

/*
 * The collector's struct, zeroed, size bytes; NULL after printing one line.
 * Before its skeleton is opened: it sends libbpf's messages to -v -v.
 */
void *ntp_collector__alloc(size_t size);
/*
 * core->hists and core->queues before load: preallocated (bpf/ntp_mon.bpf.h),
 * so one entry where nothing is counted (record); -1 after one error line
 */
int ntp_collector__size_hists(struct ntp_collector *core, bool hist_mode);
/* the row's fields; its reason from fmt */
void ntp_hook__set(struct ntp_hook *h, const char *point, const char *hook, const char *flavour,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Describe function hook i (its programs NULL-padded), not wanted until the
 * collector says so.  proto: the prototype its programs read
 * (lib/collect/kernel_probe.h), which the kernel's must fit.
 */
void ntp_collector__fhook(struct ntp_collector *c, int i, const char *func, const char *proto,
			  struct bpf_program *fe0, struct bpf_program *fe1, struct bpf_program *kp0,
			  struct bpf_program *kp1);
/*
 * Whether function hook i can be had on this kernel: its function is in btf
 * (the BTF of module mod, or "vmlinux"), with a prototype that fits the one
 * its programs read, and none of its programs was refused by the kernel
 * before.  When not, c->fh_why[i] says why, for the hooks table.
 * NTPROF_WRONG_PROTO (a comma-separated list of kernel functions) turns the
 * prototype check of those hooks around: a program for another prototype
 * fits, the one for the kernel's does not; a testing aid that makes any
 * kernel look like one whose prototype changed unnoticed (ntprof-record(1)).
 */
bool ntp_collector__usable(struct ntp_collector *c, int i, const struct btf *btf, const char *mod);
/* the same for a tracepoint program's tracepoint tp; why (len bytes) says why not */
bool ntp_collector__tp_usable(const struct ntp_collector *c, const char *tp, const char *proto,
			      const struct btf *btf, const char *mod, char *why, size_t len);
/* a tracepoint program to attach in class cls after the function hooks */
void ntp_collector__add_tp(struct ntp_collector *c, struct bpf_program *p, __u32 cls);
/* change the class of a tracepoint program added before (a decision moved to it) */
void ntp_collector__tp_class(struct ntp_collector *c, struct bpf_program *p, __u32 cls);

/*
 * Open the skeleton, load the BTF, let the collector choose its hooks, plan
 * the flavours, load the skeleton.  When the kernel refuses a program of a
 * hook, that hook is set aside with a warning and all is done again without
 * it.  NTPROF_FAIL_LOAD (a comma-separated list of kernel functions and
 * tracepoints, as in the hooks table) makes the kernel refuse every program
 * on those hooks: a testing aid for that path (ntprof-record(1)).  Returns
 * 0, or an NTP_EXIT_* code after printing one line, c then freed and its
 * skeleton destroyed.
 */
int ntp_collector__prepare(struct ntp_collector *c);
/* the ring buffer reader and the attach of every loaded program; 0 or NTP_EXIT_* */
int ntp_collector__start(struct ntp_collector *c);
/*
 * Wait up to timeout_ms, then consume every ready record.  Returns the number
 * of records handled, or -1 when the callback stopped it (its code is in
 * *stop_code), or -1 with errno on an error.  EINTR is not an error: 0.
 */
int ntp_collector__poll(struct ntp_collector *c, int timeout_ms, int *stop_code);
/*
 * After the stop and the ring's last records: write every parked record
 * left (struct ntp_collector's parked).  0, or what ops->deliver returned.
 */
int ntp_collector__flush_parked(struct ntp_collector *c);
/* sampled commands that never completed, dropped from inflight by poll (after NTP_INFLIGHT_EXPIRE_NS) */
uint64_t ntp_collector__expired(const struct ntp_collector *c);
/* the counters, summed (enum ntp_counter): the per-CPU ones and the seen slots */
int ntp_collector__read_counters(struct ntp_collector *c, uint64_t cnt[NTP_CNT_MAX]);
/* monitor --flight: the floor below which the kernel keeps commands off the ring buffer; 0 or -errno */
int ntp_collector__set_flight_floor(struct ntp_collector *c, uint64_t floor);
/*
 * The cross-check of a collector that sees nothing while commands flow:
 * true when the independent count (cnt[NTP_CNT_FABRIC]) reached
 * NTP_CROSSCHECK_MIN and the decision's (cnt[NTP_CNT_SEEN]) is less than
 * half of it; then msg says so in one line.
 */
#define NTP_CROSSCHECK_MIN 16
bool ntp_collector__blind(const struct ntp_collector *c, const uint64_t cnt[NTP_CNT_MAX], char *msg,
			  size_t len);
/*
 * The hooks table (c->nhooks rows) as it would be after an attach in mode
 * (one NTP_RUN_* bit), why being the cause of a fallback ("" for none): for
 * ntprof check.
 */
void ntp_collector__plan(const struct ntp_collector *c, __u32 mode, const char *why,
			 struct ntp_hook *out);
int ntp_collector__programs(const struct ntp_collector *c);     /* programs attached by start */
/*
 * The kernel's run-time statistics of c's loaded programs, summed: how many
 * times they ran and for how long (ns).  They count only while statistics
 * are enabled (bpf_enable_stats(BPF_STATS_RUN_TIME), or the sysctl
 * kernel.bpf_stats_enabled).
 */
void ntp_collector__bpf_stats(const struct ntp_collector *c, uint64_t *runs, uint64_t *run_ns);
/*
 * The statistics cost two clock reads a program run while they are on, so
 * record and monitor measure their own cost over a window only: from the
 * attach until NTP_COST_WINDOW_NS have passed and NTP_COST_COMMANDS
 * commands were seen.
 */
#define NTP_COST_WINDOW_NS 2000000000ULL
#define NTP_COST_COMMANDS 1000
/*
 * Stop sampling at once, read the kprobe links' missed counts
 * (kprobe_missed), then detach every program in parallel, waiting at
 * most NTP_ATTACH_FENTRY_TIMEOUT_S seconds (a detach waits for an RCU-tasks
 * grace period, which a busy kernel thread holds up); records already in
 * the ring stay for a last poll.  NULL: nothing.
 */
void ntp_collector__stop(struct ntp_collector *c);
/*
 * Detach, unload and free c (the collector's struct that begins with it).  A program
 * whose attach or detach is still waiting in the kernel stays inert and is
 * left to its worker thread (a warning says so); the process then ends only
 * once the kernel lets that thread go.  NULL: nothing.
 */
void ntp_collector__free(struct ntp_collector *c);

#endif
