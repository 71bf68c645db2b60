// SPDX-License-Identifier: GPL-2.0
/*
 * The host collector's user-space half: choose the hooks this kernel offers
 * from its BTF, for the transport recorded (-t: only that driver's programs
 * are loaded), load, attach, and read records and counters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>        /* __u64 for bpf/ntp_hash.h */

#include "bpf/ntp_hash.h"
#include "bpf/ntp_slots.h"      /* struct ntp_app_slot_head */
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/bpf_host.h"
#include "lib/collect/collector.h"
#include "lib/collect/kernel_probe.h"
#include "lib/core/filter.h"    /* before the skeleton: its rodata holds a struct ntp_filter */

#include "host.skel.h"

enum send_mode {
	SEND_DIRECT,    /* fexit nvme_tcp_try_send_cmd_pdu / _data (6.12) */
	SEND_FALLBACK,  /* fentry+fexit nvme_tcp_try_send, per-queue state (6.1) */
	SEND_NONE,
};

/*
 * The kernel-function hooks, each an fentry/fexit program with kprobe twins,
 * in attach order reversed (ntp_collector__start attaches the completion first).
 */
enum {
	FH_SYS_IO_SUBMIT,       /* the I/O system calls: the application's submission */
	FH_SYS_IO_URING_ENTER,
	FH_SYS_PREAD,
	FH_SYS_PWRITE,
	FH_SYS_GETEVENTS,       /* io_getevents' return: libaio events handed over */
	FH_CMD_PDU,     /* nvme_tcp_try_send_cmd_pdu */
	FH_DATA,        /* nvme_tcp_try_send_data */
	FH_H2C,         /* nvme_tcp_setup_h2c_data_pdu */
	FH_TRY_SEND,    /* nvme_tcp_try_send (where the two above are inlined) */
	FH_RDMA_SEND,   /* nvme_rdma_post_send */
	FH_RDMA_RECV,   /* nvme_rdma_recv_done */
	FH_REMOTE,      /* blk_mq_complete_request_remote (TCP) */
	FH_COMPLETE,    /* nvme_complete_rq */
	FH_COMPLETE_EXIT,       /* its return: the completion posted to the application */
	FH_N,
};

/* hooks[] rows, and the function hook each one is on */
enum {
	P_START, P_QUEUE, P_CMD_SENT, P_R2T, P_DATA_SENT, P_RECV, P_DONE,
	P_APP_SUBMIT, P_APP_DONE, P_APP_REAP, P_N
};

/* the system calls whose entry is the application's submission (bpf/host_app.bpf.h) */
static const char *const app_syscalls[] = {
	"__x64_sys_io_submit", "__x64_sys_io_uring_enter", "__x64_sys_pread64", "__x64_sys_pwrite64",
};

/* the functions whose addresses tell what posts a completion (bpf/host_app.bpf.h) */
enum { KS_END_IO_ASYNC, KS_WAIT_ENDIO, KS_AIO, KS_URING, KS_URING_POLL, KS_N };
static const char *const app_ksyms[KS_N] = {
	"blkdev_bio_end_io_async", "submit_bio_wait_endio", "aio_complete_rw", "io_complete_rw",
	"io_complete_rw_iopoll",
};

/* the modules whose BTF the collector needs (struct ntp_kbtf) */
enum { M_DRV, M_CORE };

struct ntp_host_collector {
	struct ntp_collector core;      /* first: the core's callbacks cast back */
	struct ntp_host *skel;
	ntp_host_event_fn fn;
	void *ctx;
	enum send_mode send;
	bool no_app;                    /* record --no-app */
	/* the nvme_complete_rq tracepoint: usable on this kernel, else why not */
	bool done_tp;
	char done_tp_why[256];
};

static struct ntp_host_collector *host_of(struct ntp_collector *c)
{
	return (struct ntp_host_collector *)c;
}

/* the prototypes the programs read (lib/collect/kernel_probe.h) */
#define PROTO_RQ "request*,..."
#define PROTO_TCP_REQ_RET "nvme_tcp_request*->i4"
#define PROTO_SYS "pt_regs*,..."
#define TP_SETUP_PROTO "request*,nvme_command*,..."
#define TP_DONE_PROTO "request*,..."

static bool usable(struct ntp_host_collector *c, int i, const struct ntp_kbtf *k, int mod)
{
	return ntp_collector__usable(&c->core, i, mod < 0 ? k->vmlinux : k->mod[mod],
				     mod < 0 ? "vmlinux" : c->core.mods[mod]);
}

/* NVMe/TCP's send, R2T and receive hooks, from nvme_tcp's BTF */
static int choose_tcp(struct ntp_host_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_host *s = c->skel;
	struct ntp_hook *h = c->core.hooks;
	int n;

	if (usable(c, FH_CMD_PDU, k, M_DRV) && usable(c, FH_DATA, k, M_DRV))
		c->send = SEND_DIRECT;
	else if (usable(c, FH_TRY_SEND, k, M_DRV))
		c->send = SEND_FALLBACK;
	else
		c->send = SEND_NONE;
	n = usable(c, FH_H2C, k, M_DRV) ?
	    ntp_probe__btf_func_params(k->mod[M_DRV], "nvme_tcp_setup_h2c_data_pdu") : -1;

	c->core.fh[FH_CMD_PDU].want = c->send == SEND_DIRECT;
	c->core.fh[FH_DATA].want = c->send == SEND_DIRECT;
	c->core.fh[FH_H2C].want = n >= 0;
	c->core.fh[FH_TRY_SEND].want = c->send == SEND_FALLBACK;
	c->core.fh[FH_REMOTE].want = usable(c, FH_REMOTE, k, -1);
	c->core.point_fh[P_CMD_SENT] = c->send == SEND_DIRECT ? FH_CMD_PDU : FH_TRY_SEND;
	c->core.point_fh[P_DATA_SENT] = c->send == SEND_DIRECT ? FH_DATA : FH_TRY_SEND;
	c->core.point_fh[P_R2T] = FH_H2C;
	c->core.point_fh[P_RECV] = FH_REMOTE;

	switch (c->send) {
	case SEND_DIRECT:
		ntp_hook__set(&h[P_CMD_SENT], "h_cmd_sent", "nvme_tcp_try_send_cmd_pdu", "fexit",
			      "returned 1: the command PDU is all in the socket");
		ntp_hook__set(&h[P_DATA_SENT], "h_data_sent", "nvme_tcp_try_send_data", "fexit",
			      "returned 1: the data of a PDU is all in the socket; the last one counts");
		break;
	case SEND_FALLBACK:
		ntp_hook__set(&h[P_CMD_SENT], "h_cmd_sent", "nvme_tcp_try_send", "fexit",
			      "%s (inlined on this kernel): fentry+fexit nvme_tcp_try_send, per-queue "
			      "send state", c->core.fh_why[FH_CMD_PDU]);
		ntp_hook__set(&h[P_DATA_SENT], "h_data_sent", "nvme_tcp_try_send", "fexit",
			      "%s (inlined on this kernel): fentry+fexit nvme_tcp_try_send, per-queue "
			      "send state", *c->core.fh_why[FH_DATA] ? c->core.fh_why[FH_DATA]
								    : c->core.fh_why[FH_CMD_PDU]);
		break;
	case SEND_NONE:
		ntp_hook__set(&h[P_CMD_SENT], "h_cmd_sent", "none", "none", "%s; and %s",
			      c->core.fh_why[FH_CMD_PDU], c->core.fh_why[FH_TRY_SEND]);
		ntp_hook__set(&h[P_DATA_SENT], "h_data_sent", "none", "none", "%s; and %s",
			      *c->core.fh_why[FH_DATA] ? c->core.fh_why[FH_DATA]
						       : c->core.fh_why[FH_CMD_PDU],
			      c->core.fh_why[FH_TRY_SEND]);
		c->core.point_fh[P_CMD_SENT] = c->core.point_fh[P_DATA_SENT] = -1;
		break;
	}

	if (n < 0) {
		ntp_hook__set(&h[P_R2T], "h_r2t", "none", "none", "%s", c->core.fh_why[FH_H2C]);
		c->core.point_fh[P_R2T] = -1;
	} else {
		s->rodata->h2c_setup_is_r2t = n == 2;
		ntp_hook__set(&h[P_R2T], "h_r2t", "nvme_tcp_setup_h2c_data_pdu", "fentry", "%s",
			      n == 2 ? "called for R2Ts only on this kernel"
				   : "an R2T when pdu_len is 0 at entry");
	}
	if (c->core.fh[FH_REMOTE].want) {
		ntp_hook__set(&h[P_RECV], "h_recv", "blk_mq_complete_request_remote", "fentry",
			      "the response PDU is parsed");
	} else {
		ntp_hook__set(&h[P_RECV], "h_recv", "none", "none", "%s: the driver's receive time "
			      "stays in network*", c->core.fh_why[FH_REMOTE]);
		c->core.point_fh[P_RECV] = -1;
	}
	return 0;
}

/* NVMe/RDMA's capsule send and receive hooks (bpf/host_rdma.bpf.h), from nvme_rdma's BTF */
static int choose_rdma(struct ntp_host_collector *c, const struct ntp_kbtf *k)
{
	static const int funcs[] = { FH_RDMA_SEND, FH_RDMA_RECV };
	static const char *const types[] = { "nvme_rdma_request", "nvme_rdma_qe" };
	static const char no_pull[] = "NVMe/RDMA: the target pulls write data with RDMA READ; "
				      "the host sees no event";
	struct ntp_hook *h = c->core.hooks;
	size_t i;

	/* the command's identity goes from one to the other (bpf/host_rdma.bpf.h): both or neither */
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (!usable(c, funcs[i], k, M_DRV)) {
			ntp_error("%s", c->core.fh_why[funcs[i]]);
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (btf__find_by_name_kind(k->mod[M_DRV], types[i], BTF_KIND_STRUCT) < 0) {
			ntp_error("kernel lacks struct %s in nvme_rdma's BTF", types[i]);
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	c->core.fh[FH_RDMA_SEND].want = true;
	c->core.fh[FH_RDMA_RECV].want = true;
	c->core.point_fh[P_CMD_SENT] = FH_RDMA_SEND;
	c->core.point_fh[P_RECV] = FH_RDMA_RECV;
	ntp_hook__set(&h[P_CMD_SENT], "h_cmd_sent", "nvme_rdma_post_send", "fexit",
		      "returned 0: the command capsule is on the send queue, the doorbell rung");
	ntp_hook__set(&h[P_R2T], "h_r2t", "none", "none", "%s", no_pull);
	ntp_hook__set(&h[P_DATA_SENT], "h_data_sent", "none", "none", "%s", no_pull);
	ntp_hook__set(&h[P_RECV], "h_recv", "nvme_rdma_recv_done", "fentry",
		      "the response capsule's receive completion, matched by (queue, command id); "
		      "not blk_mq_complete_request_remote, which waits for the send completion too");
	return 0;
}

/*
 * The application's side (bpf/host_app.bpf.h): the I/O system calls this
 * kernel has in BTF, nvme_complete_rq's return, and the addresses that tell
 * what completes a bio, from /proc/kallsyms.
 */
/* the maps where the application's side keeps records past their completion */
static void park_app(struct ntp_host_collector *c)
{
	static const size_t done = offsetof(struct ntp_host_event, h_done);
	struct ntp_host *s = c->skel;
	struct ntp_collector *core = &c->core;
	const struct ntp_parked parked[] = {
		/* the CQE's map first: a record moves from it to app_uring */
		{ .map = s->maps.app_cqe, .ts_off = done, .record = true,
		  .live = &s->bss->app_cqe_live },
		{ .map = s->maps.app_uring, .ts_off = done, .record = true,
		  .live = &s->bss->app_uring_live },
		{ .map = s->maps.app_aio, .ts_off = done, .record = true,
		  .live = &s->bss->app_aio_n.n.hashed },
		/* the arrays mapped at the load (map_app_slots), else left empty by the BPF side */
		{ .map = s->maps.app_aio_slots, .ts_off = done, .record = true,
		  .live = &s->bss->app_aio_n.n.slots, .rec_off = sizeof(struct ntp_app_slot_head) },
		{ .map = s->maps.app_reap, .ts_off = done, .record = true,
		  .live = &s->bss->app_reap_n.n.hashed },
		{ .map = s->maps.app_reap_slots, .ts_off = done, .record = true,
		  .live = &s->bss->app_reap_n.n.slots, .rec_off = sizeof(struct ntp_app_slot_head) },
		/* struct inflight begins with the record; its record is in one of the above too */
		{ .map = s->maps.completing, .ts_off = done, .record = false,
		  .live = &s->bss->completing_live },
	};

	memcpy(core->parked, parked, sizeof(parked));
	core->nparked = sizeof(parked) / sizeof(parked[0]);
}

/* record --no-app: none of the application's hooks, and rows that say so */
static void no_app(struct ntp_host_collector *c)
{
	struct ntp_hook *h = c->core.hooks;
	static const char why[] = "record --no-app";

	bpf_program__set_autoload(c->skel->progs.app_cqe_raw, false);
	ntp_hook__set(&h[P_APP_SUBMIT], "h_app_submit", "none", "none", why);
	ntp_hook__set(&h[P_APP_DONE], "h_app_done", "none", "none", why);
	ntp_hook__set(&h[P_APP_REAP], "h_app_reap", "none", "none", why);
}

static void choose_app(struct ntp_host_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_host *s = c->skel;
	struct ntp_collector *core = &c->core;
	struct ntp_hook *h = core->hooks;
	__u64 addr[KS_N] = {};
	char calls[160] = "";
	size_t i, n = 0;
	bool uring;


	/* io_submit: the entry only (bpf/host_app.bpf.h says why); io_uring_enter's return reaps */
	ntp_collector__fhook(core, FH_SYS_IO_SUBMIT, app_syscalls[0], PROTO_SYS,
			     s->progs.app_ent_io_submit, NULL, s->progs.app_ent_kp_io_submit, NULL);
	ntp_collector__fhook(core, FH_SYS_IO_URING_ENTER, app_syscalls[1], PROTO_SYS,
			     s->progs.app_ent_io_uring_enter, s->progs.app_exit_io_uring_enter,
			     s->progs.app_ent_kp_io_uring_enter, s->progs.app_exit_kp_io_uring_enter);
	ntp_collector__fhook(core, FH_SYS_PREAD, app_syscalls[2], PROTO_SYS, s->progs.app_ent_pread64,
			     s->progs.app_exit_pread64, s->progs.app_ent_kp_pread64,
			     s->progs.app_exit_kp_pread64);
	ntp_collector__fhook(core, FH_SYS_PWRITE, app_syscalls[3], PROTO_SYS,
			     s->progs.app_ent_pwrite64, s->progs.app_exit_pwrite64,
			     s->progs.app_ent_kp_pwrite64, s->progs.app_exit_kp_pwrite64);
	/* fexit: the return follows the parameters */
	ntp_collector__fhook(core, FH_SYS_GETEVENTS, "__x64_sys_io_getevents", "pt_regs*->i8",
			     s->progs.app_getevents_exit_fx, NULL, s->progs.app_getevents_exit_kp,
			     NULL);
	ntp_collector__fhook(core, FH_COMPLETE_EXIT, "nvme_complete_rq", PROTO_RQ,
			     s->progs.complete_rq_exit, NULL, s->progs.complete_rq_exit_kp, NULL);
	/* described, for the plan to leave them unloaded, and none wanted */
	if (c->no_app)
		return no_app(c);
	park_app(c);
	core->fh[FH_SYS_GETEVENTS].want = usable(c, FH_SYS_GETEVENTS, k, -1);
	/* nvme_complete_rq's return, where its entry is hooked */
	core->fh[FH_COMPLETE_EXIT].want = core->fh[FH_COMPLETE].want;
	core->point_fh[P_APP_DONE] = FH_COMPLETE_EXIT;
	/* h_app_submit's row names the entry: io_submit's hook has no return program */
	for (i = 0; i < sizeof(app_syscalls) / sizeof(app_syscalls[0]); i++) {
		if (!usable(c, FH_SYS_IO_SUBMIT + i, k, -1))
			continue;
		core->fh[FH_SYS_IO_SUBMIT + i].want = true;
		if (core->point_fh[P_APP_SUBMIT] < 0)
			core->point_fh[P_APP_SUBMIT] = FH_SYS_IO_SUBMIT + i;
		n += snprintf(calls + n, n < sizeof(calls) ? sizeof(calls) - n : 0, "%s%s",
			      n ? ", " : "", app_syscalls[i] + strlen("__x64_sys_"));
	}
	s->rodata->app_track = true;
	if (ntp_probe__ksym_addrs("/proc/kallsyms", app_ksyms, addr, KS_N))
		memset(addr, 0, sizeof(addr));
	s->rodata->ksym_blkdev_end_io_async = addr[KS_END_IO_ASYNC];
	s->rodata->ksym_submit_bio_wait_endio = addr[KS_WAIT_ENDIO];
	s->rodata->ksym_aio_complete_rw = addr[KS_AIO];
	s->rodata->ksym_io_complete_rw = addr[KS_URING];
	s->rodata->ksym_io_complete_rw_iopoll = addr[KS_URING_POLL];
	uring = ntp_collector__tp_usable(core, "io_uring_complete", "*,*,...", k->vmlinux, "vmlinux",
					 NULL, 0);
	bpf_program__set_autoload(s->progs.app_cqe_raw, uring);

	if (n)
		ntp_hook__set(&h[P_APP_SUBMIT], "h_app_submit", "__x64_sys_*", "fentry",
			      "entry of the submitting thread's %s, read at nvme_setup_cmd", calls);
	else
		ntp_hook__set(&h[P_APP_SUBMIT], "h_app_submit", "none", "none",
			      "none of io_submit, io_uring_enter, pread64, pwrite64 in vmlinux BTF");
	if (core->fh[FH_COMPLETE_EXIT].want)
		ntp_hook__set(&h[P_APP_DONE], "h_app_done", "nvme_complete_rq", "fexit",
			      "the aio event posted, the pread/pwrite waiter woken (libaio %s, sync %s); "
			      "io_uring: its CQE (io_uring_complete%s)",
			      addr[KS_AIO] && addr[KS_END_IO_ASYNC] ? "told" : "not told",
			      addr[KS_WAIT_ENDIO] ? "told" : "not told",
			      uring && addr[KS_URING] ? "" : ": not on this kernel");
	else
		ntp_hook__set(&h[P_APP_DONE], "h_app_done", "none", "none", "%s; io_uring: its CQE "
			      "(io_uring_complete%s)", core->fh_why[FH_COMPLETE],
			      uring && addr[KS_URING] ? "" : ": not on this kernel");
	core->point_fh[P_APP_REAP] = FH_SYS_GETEVENTS;
	if (core->fh[FH_SYS_GETEVENTS].want)
		ntp_hook__set(&h[P_APP_REAP], "h_app_reap", "__x64_sys_io_getevents", "fexit",
			      "libaio: the io_getevents that handed the event over returned (its ring "
			      "slot); sync: the pread64/pwrite64 returned; io_uring: the first "
			      "io_uring_enter entry finding the CQ head past the CQE, or return "
			      "from waiting with the CQ tail past it");
	else
		ntp_hook__set(&h[P_APP_REAP], "h_app_reap", "__x64_sys_pread64", "fexit",
			      "sync: the pread64/pwrite64 returned; libaio: none (io_getevents not in "
			      "BTF); io_uring: the first io_uring_enter past the CQE");
	if (!core->fh[FH_SYS_GETEVENTS].want)
		core->point_fh[P_APP_REAP] = FH_SYS_PREAD;
}

/*
 * A second decision program where this kernel may preempt the first one
 * mid-run (bpf/host.bpf.c: decide_backup): its preemption model is full or
 * lazy, or cannot be read.  Voluntary or none: a program runs to its end.
 */
static void choose_backup(struct ntp_host_collector *c)
{
	char model[32];

	c->skel->rodata->decide_backup =
		ntp_probe__preempt_model("/sys/kernel/debug/sched/preempt", model, sizeof(model)) ||
		(strcmp(model, "voluntary") && strcmp(model, "none"));
}

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_collector *core, const struct ntp_kbtf *k)
{
	struct ntp_host_collector *c = host_of(core);
	struct ntp_host *s = c->skel;
	struct ntp_hook *h = core->hooks;
	char why[256];

	if (!ntp_collector__tp_usable(core, "nvme_setup_cmd", TP_SETUP_PROTO, k->mod[M_CORE],
				      "nvme_core", why, sizeof(why))) {
		ntp_error("no hook for the sampling decision: %s", why);
		return NTP_EXIT_UNSUPPORTED;
	}
	core->decision = "the nvme_setup_cmd tracepoint";
	choose_backup(c);
	c->done_tp = ntp_collector__tp_usable(core, "nvme_complete_rq", TP_DONE_PROTO, k->mod[M_CORE],
					      "nvme_core", c->done_tp_why, sizeof(c->done_tp_why));

	/* every hook unwanted until its transport's chooser wants it */
	/* fexit and its entry (bpf/ntp_attach.bpf.h: send_enter) */
	ntp_collector__fhook(core, FH_CMD_PDU, "nvme_tcp_try_send_cmd_pdu", PROTO_TCP_REQ_RET,
			     s->progs.cmd_pdu_sent, s->progs.cmd_pdu_ent, s->progs.cmd_pdu_ent_kp,
			     s->progs.cmd_pdu_sent_kp);
	ntp_collector__fhook(core, FH_DATA, "nvme_tcp_try_send_data", PROTO_TCP_REQ_RET,
			     s->progs.data_sent, s->progs.data_ent, s->progs.data_ent_kp,
			     s->progs.data_sent_kp);
	ntp_collector__fhook(core, FH_H2C, "nvme_tcp_setup_h2c_data_pdu", "nvme_tcp_request*,...",
			     s->progs.h2c_setup, NULL, s->progs.h2c_setup_kp, NULL);
	ntp_collector__fhook(core, FH_TRY_SEND, "nvme_tcp_try_send", "nvme_tcp_queue*->i4",
			     s->progs.try_send_entry, s->progs.try_send_exit,
			     s->progs.send_entry_kp, s->progs.send_exit_kp);
	ntp_collector__fhook(core, FH_RDMA_SEND, "nvme_rdma_post_send",
			     "nvme_rdma_queue*,nvme_rdma_qe*,ib_sge*,i4,ib_send_wr*->i4",
			     s->progs.rdma_post_send, s->progs.rdma_post_ent, s->progs.rdma_post_ent_kp,
			     s->progs.rdma_post_send_kp);
	ntp_collector__fhook(core, FH_RDMA_RECV, "nvme_rdma_recv_done", "ib_cq*,ib_wc*,...",
			     s->progs.rdma_recv_done, NULL, s->progs.rdma_recv_done_kp, NULL);
	ntp_collector__fhook(core, FH_REMOTE, "blk_mq_complete_request_remote", PROTO_RQ,
			     s->progs.complete_remote, NULL, s->progs.complete_rem_kp, NULL);
	ntp_collector__fhook(core, FH_COMPLETE, "nvme_complete_rq", PROTO_RQ,
			     s->progs.complete_rq, NULL, s->progs.complete_rq_kp, NULL);
	if (usable(c, FH_COMPLETE, k, M_CORE)) {
		core->fh[FH_COMPLETE].want = true;
		core->point_fh[P_DONE] = FH_COMPLETE;
		ntp_hook__set(&h[P_DONE], "h_done", "nvme_complete_rq", "fentry",
			      "completed to the block layer");
	} else if (c->done_tp) {
		s->rodata->done_at_tp = true;
		ntp_hook__set(&h[P_DONE], "h_done", "nvme_complete_rq", "tp_btf", "%s: its tracepoint, "
			      "the first thing nvme_complete_rq does", core->fh_why[FH_COMPLETE]);
	} else {
		ntp_error("no hook to end a command's record: %s; and %s", core->fh_why[FH_COMPLETE],
			  c->done_tp_why);
		return NTP_EXIT_UNSUPPORTED;
	}
	core->fabric = "its completions at nvme_complete_rq";
	choose_app(c, k);

	ntp_hook__set(&h[P_START], "h_start", "bio->bi_issue", "derived",
		      "read at nvme_setup_cmd; else rq->start_time_ns, else h_queue (flags of each record)");
	ntp_hook__set(&h[P_QUEUE], "h_queue", "nvme_setup_cmd", "tp_btf",
		      "the sampling decision: the first point with the wire command id");
	return core->transport == NTP_TRANSPORT_RDMA ? choose_rdma(c, k) : choose_tcp(c, k);
}

/*
 * The decision hook is a tracepoint in every mode; where kprobes cannot
 * stand in for a failed fentry attach, the completion's tracepoint too,
 * and in every mode where nvme_complete_rq cannot be hooked (done_at_tp).
 */
static void choose_tracepoints(struct ntp_collector *core, const struct ntp_kbtf *k)
{
	struct ntp_host_collector *c = host_of(core);
	struct ntp_host *s = c->skel;
	const bool done = s->rodata->done_at_tp;
	bool tp;

	(void)k;
	bpf_program__set_autoload(s->progs.setup_cmd, core->caps.tp_btf);
	bpf_program__set_autoload(s->progs.setup_cmd_raw, !core->caps.tp_btf);
	/* tp_btf only (bpf/host.bpf.c: decide_backup) */
	if (!core->caps.tp_btf)
		s->rodata->decide_backup = false;
	bpf_program__set_autoload(s->progs.setup_cmd_backup, s->rodata->decide_backup);
	/* the first program's skipped runs are the backup's to take: not losses */
	core->covered[0] = s->rodata->decide_backup ? s->progs.setup_cmd : NULL;
	if (s->rodata->decide_backup)
		ntp_hook__set(&core->hooks[P_QUEUE], "h_queue", "nvme_setup_cmd", "tp_btf",
			      "the sampling decision: the first point with the wire command id; this "
			      "kernel may preempt it mid-run, so a second program on the tracepoint "
			      "decides on the commands the first was skipped on");
	if (!core->caps.tp_btf) {
		core->hooks[P_QUEUE].flavour = "raw_tp";
		if (done)
			core->hooks[P_DONE].flavour = "raw_tp";
	}

	/*
	 * The completion's tracepoint: tracepoints-only mode where kprobes
	 * cannot stand in, every mode with done_at_tp, and kprobe mode's
	 * backstop (bpf/host.bpf.c: complete_rq_tp), attached with the kprobes
	 */
	const bool kp = core->loaded & NTP_RUN_KPROBE;
	__u32 cls = done ? NTP_RUN_SAMPLE : kp ? NTP_RUN_KPROBE : NTP_RUN_TP;

	tp = core->policy == NTP_ATTACH_AUTO && !kp && c->done_tp;
	s->rodata->fabric_at_tp = (tp || done || kp) && c->done_tp;
	bpf_program__set_autoload(s->progs.complete_rq_tp, s->rodata->fabric_at_tp && core->caps.tp_btf);
	bpf_program__set_autoload(s->progs.complete_rq_raw, s->rodata->fabric_at_tp && !core->caps.tp_btf);
	ntp_collector__tp_class(core, s->progs.complete_rq_tp, cls);
	ntp_collector__tp_class(core, s->progs.complete_rq_raw, cls);
	if (tp)
		core->loaded |= NTP_RUN_TP;
	if (kp && c->done_tp)
		core->kprobe_note[P_DONE] = "; where the kernel skipped it (another program held its "
					    "CPU), at the nvme_complete_rq tracepoint";
}

/* the bytes of a mapping of n slots of stride bytes: whole pages */
static size_t slots_len(size_t stride, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (stride * n + page - 1) & ~(page - 1);
}

/* the array m mapped into *v; false (after a -v line) when it cannot be */
static bool map_array(struct ntp_collector *core, struct bpf_map *m, struct ntp_slots_view *v)
{
	/* an array's elements are 8-byte aligned */
	size_t stride = (bpf_map__value_size(m) + 7) & ~(size_t)7;
	void *p;

	p = mmap(NULL, slots_len(stride, bpf_map__max_entries(m)), PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(m), 0);
	if (p == MAP_FAILED) {
		ntp_debug("%s: mapping %s: %s", core->name, bpf_map__name(m), strerror(errno));
		return false;
	}
	*v = (struct ntp_slots_view){ .base = p, .n = bpf_map__max_entries(m), .stride = stride };
	return true;
}

static void unmap_array(struct ntp_slots_view *v)
{
	if (v->base)
		munmap(v->base, slots_len(v->stride, v->n));
	v->base = NULL;
}

/* the per-request slots mapped for the sweep (bpf/ntp_slots.h); without, stale ones wait for reuse */
static void map_slots(struct ntp_collector *core, struct bpf_map *m)
{
	map_array(core, m, &core->slots);
}

/*
 * The application's slots mapped for the sweep (their parked entries), and
 * only then used by the BPF side: a record there must reach user space.
 */
static void map_app_slots(struct ntp_collector *core, struct ntp_host *s)
{
	int i, mapped = 0;

	for (i = 0; i < core->nparked; i++)
		if ((core->parked[i].map == s->maps.app_aio_slots ||
		     core->parked[i].map == s->maps.app_reap_slots) &&
		    map_array(core, core->parked[i].map, &core->parked[i].slots))
			mapped++;
	s->bss->app_slots_on = mapped == 2;
}

static int load(struct ntp_collector *core)
{
	struct ntp_host *s = host_of(core)->skel;
	int err;

	core->run_flavours = &s->bss->run_flavours;
	err = ntp_host__load(s);
	if (!err) {
		map_slots(core, s->maps.rq_slots);
		map_app_slots(core, s);
	}
	return err;
}

static void destroy(struct ntp_collector *core)
{
	int i;

	unmap_array(&core->slots);
	for (i = 0; i < core->nparked; i++)
		unmap_array(&core->parked[i].slots);
	ntp_host__destroy(host_of(core)->skel);
	host_of(core)->skel = NULL;
}

/* the skeleton, its settings, and what the core reaches through it */
static int open_skel(struct ntp_collector *core)
{
	struct ntp_host_collector *c = host_of(core);
	const struct ntp_collector_opts *o = core->opts;
	struct ntp_host *s;

	s = c->skel = ntp_host__open();
	if (!s) {
		ntp_error("opening the host BPF object: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	s->rodata->sample_limit = ntp_hash_limit(o->sample_one_in);
	s->rodata->transport = o->transport;
	s->rodata->hist_mode = o->hist_mode;
	s->rodata->hist_stream = o->hist_mode && o->hist_stream;
	if (o->filter)
		memcpy((void *)&s->rodata->filter, o->filter, sizeof(*o->filter));
	core->obj = s->obj;
	core->events = s->maps.events;
	core->counters = s->maps.counters;
	core->hists = s->maps.hists;
	core->queues = s->maps.queues;
	core->flight_floor = s->maps.flight_floor;
	if (ntp_collector__size_hists(core, o->hist_mode))
		return NTP_EXIT_FAILURE;
	core->seen_slots = s->bss->seen_slots;
	core->fabric_slots = s->bss->fabric_slots;
	/* struct inflight (bpf/host.bpf.c) begins with the event: its offsets are the event's */
	core->inflight = s->maps.inflight;
	core->inflight_ts_off = offsetof(struct ntp_host_event, h_queue);
	core->inflight_cid_off = offsetof(struct ntp_host_event, cid);
	core->rdma_cmds = o->transport == NTP_TRANSPORT_RDMA ? s->maps.rdma_cmds : NULL;
	core->nparked = 0;
	ntp_collector__add_tp(core, s->progs.complete_rq_tp, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.complete_rq_raw, NTP_RUN_TP);
	/* in this order: the backup after the first (the class is attached in order) */
	ntp_collector__add_tp(core, s->progs.setup_cmd, NTP_RUN_SAMPLE);
	ntp_collector__add_tp(core, s->progs.setup_cmd_raw, NTP_RUN_SAMPLE);
	ntp_collector__add_tp(core, s->progs.setup_cmd_backup, NTP_RUN_SAMPLE);
	ntp_collector__add_tp(core, s->progs.app_cqe_raw, NTP_RUN_SAMPLE);
	return 0;
}

static int deliver(struct ntp_collector *core, const void *data, size_t size)
{
	struct ntp_host_collector *c = host_of(core);
	const struct ntp_host_event *e = data;
	struct ntp_host_event copy;

	/* read in place when whole and aligned, as libbpf's ring keeps them (8 bytes) */
	if (size < sizeof(*e) || (uintptr_t)data % _Alignof(struct ntp_host_event)) {
		memset(&copy, 0, sizeof(copy));
		memcpy(&copy, data, size < sizeof(copy) ? size : sizeof(copy));
		e = &copy;
	}
	return e->kind == NTP_EV_HOST_IO ? c->fn(c->ctx, e) : 0;
}

static const struct ntp_collector_ops host_ops = {
	.open = open_skel,
	.choose_hooks = choose_hooks,
	.choose_tracepoints = choose_tracepoints,
	.load = load,
	.destroy = destroy,
	.deliver = deliver,
};

/* in tracepoints only, h_done keeps its tracepoint; other hooked rows get none */
static const struct ntp_tp_row tp_rows[P_N] = {
	[P_DONE] = { "nvme_complete_rq", "its tracepoint, at the start of nvme_complete_rq" },
	[P_APP_SUBMIT] = { NULL, NULL },
	[P_APP_DONE] = { NULL, NULL },
	[P_APP_REAP] = { NULL, NULL },
};

/* kprobe mode needs nvme_complete_rq's kprobe */
static const int required[] = { FH_COMPLETE, -1 };

int ntp_host__prepare(struct ntp_collector **cp, const struct ntp_collector_opts *o,
		      ntp_host_event_fn fn, void *ctx)
{
	const bool rdma = o->transport == NTP_TRANSPORT_RDMA;
	struct ntp_host_collector *c;
	struct ntp_collector *core;
	int err;

	*cp = NULL;
	c = ntp_collector__alloc(sizeof(*c));
	if (!c)
		return NTP_EXIT_FAILURE;
	c->fn = fn;
	c->ctx = ctx;
	c->no_app = o->no_app;

	core = &c->core;
	core->name = "host";
	core->ops = &host_ops;
	core->opts = o;
	core->policy = o->attach;
	core->transport = o->transport;
	core->mods[M_DRV] = rdma ? "nvme_rdma" : "nvme_tcp";
	core->mods[M_CORE] = "nvme_core";
	core->no_module = rdma ? "no NVMe/RDMA host here (modprobe nvme-rdma, then nvme connect -t rdma)"
			       : "no NVMe/TCP host here (modprobe nvme-tcp, then nvme connect)";
	core->required = required;
	core->nfh = FH_N;
	core->nhooks = P_N;
	core->tp_keep_unhooked = true;
	core->tp_rows = tp_rows;

	err = ntp_collector__prepare(core);
	if (!err)
		*cp = core;
	return err;
}
