/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target collector (bpf/target.bpf.c) behind the same small interface as
 * the host collector (lib/bpf_host.h): record never touches the skeleton.
 *
 *	ntp_target__prepare()   check the kernel's BTF, choose the hooks, load
 *	ntp_target__start()     attach every chosen program, open the ring buffer
 *	ntp_target__poll()      hand sampled records to the callback
 *	ntp_target__stop()      detach; a last ntp_target__poll() drains what is left
 *	ntp_target__free()      unload; nothing of ours stays in the kernel
 *
 * It needs the nvmet module and the transport's driver loaded with their
 * BTF: nvmet_tcp, or nvmet_rdma with NTP_TRANSPORT_RDMA; only that driver's
 * programs are loaded.
 */
#ifndef NTP_BPF_TARGET_H
#define NTP_BPF_TARGET_H

#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "lib/attach.h"
#include "lib/collector.h"
#include "lib/transport.h"

struct ntp_filter;
struct ntp_target_collector;

struct ntp_target_opts {
	enum ntp_transport transport;    /* -t: which driver's hooks (0: TCP), and whose commands */
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
 * boundary: t_recv, t_r2t, t_submit, t_cmpl, t_sent
 */
#define NTP_TARGET_NHOOKS 5

/* return 0 to go on, or a non-zero NTP_EXIT_* code to stop polling */
typedef int (*ntp_target_event_fn)(void *ctx, const struct ntp_target_event *e);

/*
 * Returns 0, or an NTP_EXIT_* code after printing one line: _UNSUPPORTED when
 * the kernel lacks a module, type or hook the collector needs, _FAILURE otherwise.
 */
int ntp_target__prepare(struct ntp_target_collector **c, const struct ntp_target_opts *o);
int ntp_target__start(struct ntp_target_collector *c, ntp_target_event_fn fn, void *ctx);
/*
 * Wait up to timeout_ms, then consume every ready record.  Returns the number
 * of records handled, or -1 when the callback stopped it (its code is in
 * *stop_code), or -1 with errno on an error.  EINTR is not an error: 0.
 */
int ntp_target__poll(struct ntp_target_collector *c, int timeout_ms, int *stop_code);
/* the per-CPU counters, summed (enum ntp_counter) */
int ntp_target__read_counters(struct ntp_target_collector *c, uint64_t cnt[NTP_CNT_MAX]);
/*
 * The hooks chosen: NTP_TARGET_NHOOKS entries.  After start, each row's
 * flavour is the one it got, and its reason says why (a fallback's cause first).
 */
const struct ntp_hook *ntp_target__hooks(const struct ntp_target_collector *c);
/* after prepare: the attach classes whose programs were loaded (NTP_RUN_* bits) */
__u32 ntp_target__flavours(const struct ntp_target_collector *c);
/*
 * The hooks table as it would be after an attach in mode (one NTP_RUN_* bit),
 * why being the cause of a fallback ("" for none): for ntprof check.
 */
void ntp_target__plan(const struct ntp_target_collector *c, __u32 mode, const char *why,
		  struct ntp_hook out[NTP_TARGET_NHOOKS]);
int ntp_target__programs(const struct ntp_target_collector *c);   /* programs attached by start */
/*
 * Stop sampling at once, then detach every program in parallel, waiting at
 * most NTP_ATTACH_FENTRY_TIMEOUT_S seconds (a detach waits for an RCU-tasks
 * grace period, which a busy kernel thread holds up); records already in
 * the ring stay for a last poll.
 */
void ntp_target__stop(struct ntp_target_collector *c);
/*
 * Unload.  A program whose attach or detach is still waiting in the kernel
 * stays inert and is left to its worker thread (a warning says so); the
 * process then ends only once the kernel lets that thread go.
 */
void ntp_target__free(struct ntp_target_collector *c);

#endif
