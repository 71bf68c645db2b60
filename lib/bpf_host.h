/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host collector (bpf/host.bpf.c) behind a small interface, after perf's
 * off_cpu_prepare/start/finish: record never touches the skeleton.
 *
 *	ntp_host__prepare()   check the kernel's BTF, choose the hooks, load
 *	ntp_host__start()     attach every chosen program, open the ring buffer
 *	ntp_host__poll()      hand sampled records to the callback
 *	ntp_host__stop()      detach; a last ntp_host__poll() drains what is left
 *	ntp_host__free()      unload; nothing of ours stays in the kernel
 *
 * (ntp_host__destroy would clash with the generated skeleton, struct ntp_host.)
 */
#ifndef NTP_BPF_HOST_H
#define NTP_BPF_HOST_H

#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "lib/attach.h"
#include "lib/collector.h"
#include "lib/transport.h"

struct ntp_filter;
struct ntp_host_collector;

struct ntp_host_opts {
	enum ntp_transport transport;    /* -t: which driver's hooks (0: TCP) */
	uint32_t sample_one_in;         /* record one command in N */
	/*
	 * AUTO (0): fentry/fexit where they attach now, else kprobes, else
	 * tracepoints only; FENTRY (--fentry) waits for a stuck attach;
	 * KPROBE (--kprobes).  ntprof-record(1), "Busy CPUs".
	 */
	enum ntp_attach_policy attach;
	/* --session, --io-type, --size, applied in BPF (lib/filter.h); NULL: none */
	const struct ntp_filter *filter;
};

/*
 * The hooks table (struct ntp_hook, lib/collector.h), one row per stage
 * boundary: h_start, h_queue, h_cmd_sent, h_r2t,
 * h_data_sent, h_recv, h_done
 */
#define NTP_HOST_NHOOKS 7

/* return 0 to go on, or a non-zero NTP_EXIT_* code to stop polling */
typedef int (*ntp_host_event_fn)(void *ctx, const struct ntp_host_event *e);

/*
 * Returns 0, or an NTP_EXIT_* code after printing one line: _UNSUPPORTED when
 * the kernel lacks a type or hook the collector needs, _FAILURE otherwise.
 */
int ntp_host__prepare(struct ntp_host_collector **c, const struct ntp_host_opts *o);
int ntp_host__start(struct ntp_host_collector *c, ntp_host_event_fn fn, void *ctx);
/*
 * Wait up to timeout_ms, then consume every ready record.  Returns the number
 * of records handled, or -1 when the callback stopped it (its code is in
 * *stop_code), or -1 with errno on an error.  EINTR is not an error: 0.
 */
int ntp_host__poll(struct ntp_host_collector *c, int timeout_ms, int *stop_code);
/* the per-CPU counters, summed (enum ntp_counter) */
int ntp_host__read_counters(struct ntp_host_collector *c, uint64_t cnt[NTP_CNT_MAX]);
/*
 * The hooks chosen: NTP_HOST_NHOOKS entries.  After start, each row's
 * flavour is the one it got, and its reason says why (a fallback's cause first).
 */
const struct ntp_hook *ntp_host__hooks(const struct ntp_host_collector *c);
/* after prepare: the attach classes whose programs were loaded (NTP_RUN_* bits) */
__u32 ntp_host__flavours(const struct ntp_host_collector *c);
/*
 * The hooks table as it would be after an attach in mode (one NTP_RUN_* bit),
 * why being the cause of a fallback ("" for none): for ntprof check.
 */
void ntp_host__plan(const struct ntp_host_collector *c, __u32 mode, const char *why,
		  struct ntp_hook out[NTP_HOST_NHOOKS]);
int ntp_host__programs(const struct ntp_host_collector *c);       /* programs attached by start */
/*
 * Stop sampling at once, then detach every program in parallel, waiting at
 * most NTP_ATTACH_FENTRY_TIMEOUT_S seconds (a detach waits for an RCU-tasks
 * grace period, which a busy kernel thread holds up); records already in
 * the ring stay for a last poll.
 */
void ntp_host__stop(struct ntp_host_collector *c);
/*
 * Unload.  A program whose attach or detach is still waiting in the kernel
 * stays inert and is left to its worker thread (a warning says so); the
 * process then ends only once the kernel lets that thread go.
 */
void ntp_host__free(struct ntp_host_collector *c);

#endif
