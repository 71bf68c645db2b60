// SPDX-License-Identifier: GPL-2.0
/*
 * The target collector's user-space half: choose the hooks this kernel offers
 * from its BTF, for the transport asked for (nvmet-tcp or nvmet-rdma: only
 * that driver's programs load), load, attach, and read records and counters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>        /* __u64 for bpf/ntp_hash.h */

#include "bpf/ntp_hash.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/bpf_target.h"
#include "lib/collect/collector.h"
#include "lib/collect/kernel_probe.h"
#include "lib/core/filter.h"    /* before the skeleton: its rodata holds a struct ntp_filter */

#include "target.skel.h"

/* the kernel-function hooks, each an fentry/fexit program with kprobe twins */
enum {
	FT_INIT,        /* nvmet_req_init: the sampling decision */
	FT_QUEUE_RESP,  /* nvmet_tcp_queue_response */
	FT_BDEV,        /* nvmet_bdev_execute_rw */
	FT_FILE,        /* nvmet_file_execute_rw */
	FT_PASSTHRU,    /* nvmet_passthru_execute_cmd */
	FT_CMPL,        /* nvmet_req_complete */
	FT_RESP_TRY,    /* nvmet_try_send_response */
	FT_RESP_SETUP,  /* nvmet_setup_response_pdu (where the above is inlined) */
	FT_RDMA_EXEC,   /* nvmet_rdma_execute_command: a write's RDMA READ posted */
	FT_RDMA_READ,   /* nvmet_rdma_read_data_done: that READ completed */
	FT_RDMA_RESP,   /* nvmet_rdma_queue_response */
	FT_RDMA_SEND,   /* nvmet_rdma_send_done: kprobe mode's backstop for the above */
	FT_N,
};

/* hooks[] rows */
enum { P_RECV, P_R2T, P_SUBMIT, P_CMPL, P_SENT, P_N };

struct ntp_target_collector {
	struct ntp_collector core;      /* first: the core's callbacks cast back */
	struct ntp_target *skel;
	ntp_target_event_fn fn;
	void *ctx;
	char submit_hooks[128];         /* the backends' execute functions found, for t_submit */
};

static struct ntp_target_collector *target_of(struct ntp_collector *c)
{
	return (struct ntp_target_collector *)c;
}

/*
 * The modules' BTF (struct ntp_kbtf), in the order their absence is
 * reported: the most basic lack first.  nvmet_rdma needs nvmet, so with
 * RDMA the driver is checked first and says what to load.
 */
static const struct btf *nvmet_btf(const struct ntp_collector *c, const struct ntp_kbtf *k)
{
	return k->mod[c->transport == NTP_TRANSPORT_RDMA ? 1 : 0];
}

static const struct btf *drv_btf(const struct ntp_collector *c, const struct ntp_kbtf *k)
{
	return k->mod[c->transport == NTP_TRANSPORT_RDMA ? 0 : 1];
}

static bool has_func(const struct btf *btf, const char *func)
{
	return ntp_probe__btf_func_params(btf, func) >= 0;
}

/* t_submit: every backend's execute function this kernel has (passthru is not built everywhere) */
static int choose_submit(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	char *buf = target_of(c)->submit_hooks;
	const size_t size = sizeof(target_of(c)->submit_hooks);
	const char *missing = "";
	size_t len = 0;
	int i, n = 0;

	c->point_fh[P_SUBMIT] = -1;
	for (i = FT_BDEV; i <= FT_PASSTHRU; i++) {
		struct ntp_fhook *f = &c->fh[i];

		f->want = has_func(nvmet_btf(c, k), f->func);
		if (!f->want) {
			missing = f->func;
			continue;
		}
		if (c->point_fh[P_SUBMIT] < 0)
			c->point_fh[P_SUBMIT] = i;
		len += snprintf(buf + len, size - len, "%s%s", n ? "," : "", f->func);
		n++;
	}
	if (!n) {
		ntp_hook__set(&c->hooks[P_SUBMIT], "t_submit", "none", "none",
			      "no backend execute function (nvmet_bdev_execute_rw, ...) in nvmet's BTF");
		return 0;
	}
	ntp_hook__set(&c->hooks[P_SUBMIT], "t_submit", buf, "fentry",
		      "the backend's req->execute: all write data received%s%s%s",
		      *missing ? "; " : "", missing, *missing ? " is not built" : "");
	return 0;
}

/* nvmet-tcp: the R2T and the response's send */
static int choose_tcp(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_hook *h = c->hooks;
	bool direct;

	if (!has_func(drv_btf(c, k), "nvmet_tcp_queue_response")) {
		ntp_error("kernel lacks nvmet_tcp_queue_response in nvmet_tcp's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	c->fh[FT_QUEUE_RESP].want = true;
	c->point_fh[P_R2T] = FT_QUEUE_RESP;
	ntp_hook__set(&h[P_R2T], "t_r2t", "nvmet_tcp_queue_response", "fentry",
		      "R2T queued: the first call for a write whose data is not all received");

	direct = has_func(drv_btf(c, k), "nvmet_try_send_response");
	if (!direct && !has_func(drv_btf(c, k), "nvmet_setup_response_pdu")) {
		ntp_error("kernel lacks both nvmet_try_send_response and nvmet_setup_response_pdu "
			  "in nvmet_tcp's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	c->fh[FT_RESP_TRY].want = direct;
	c->fh[FT_RESP_SETUP].want = !direct;
	c->point_fh[P_SENT] = direct ? FT_RESP_TRY : FT_RESP_SETUP;
	if (direct)
		ntp_hook__set(&h[P_SENT], "t_sent", "nvmet_try_send_response", "fexit",
			      "returned 1: the response PDU is all in the socket");
	else
		ntp_hook__set(&h[P_SENT], "t_sent", "nvmet_setup_response_pdu", "fentry",
			      "nvmet_try_send_response is inlined on this kernel: the closest hook, "
			      "the response PDU built just before it is sent");
	return 0;
}

/* nvmet-rdma: the RDMA READ of a write's data, and the response's post */
static int choose_rdma(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	static const int need[] = { FT_RDMA_EXEC, FT_RDMA_READ, FT_RDMA_RESP };
	struct ntp_hook *h = c->hooks;
	size_t i;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!has_func(drv_btf(c, k), c->fh[need[i]].func)) {
			ntp_error("kernel lacks %s in nvmet_rdma's BTF", c->fh[need[i]].func);
			return NTP_EXIT_UNSUPPORTED;
		}
		c->fh[need[i]].want = true;
	}
	c->fh[FT_RDMA_SEND].want = has_func(drv_btf(c, k), c->fh[FT_RDMA_SEND].func);
	c->point_fh[P_R2T] = FT_RDMA_EXEC;
	c->point_fh[P_SENT] = FT_RDMA_RESP;
	ntp_hook__set(&h[P_R2T], "t_r2t", "nvmet_rdma_execute_command,nvmet_rdma_read_data_done", "fentry",
		      "the RDMA READ of a write's data posted, kept once its completion is seen; "
		      "in-capsule writes have none");
	ntp_hook__set(&h[P_SENT], "t_sent", "nvmet_rdma_queue_response", "fentry",
		      "the response SEND (behind a read's RDMA WRITE) posted to the HCA; "
		      "not nvmet_rdma_send_done, which waits for the wire's acknowledgement");
	return 0;
}

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_target *s = target_of(c)->skel;
	struct ntp_hook *h = c->hooks;
	static const char *const required[] = { "nvmet_req_init", "nvmet_req_complete" };
	size_t i;

	ntp_collector__fhook(c, FT_INIT, "nvmet_req_init", s->progs.req_init, NULL,
			     s->progs.req_init_kp, NULL);
	ntp_collector__fhook(c, FT_QUEUE_RESP, "nvmet_tcp_queue_response", s->progs.queue_response, NULL,
			     s->progs.queue_resp_kp, NULL);
	ntp_collector__fhook(c, FT_BDEV, "nvmet_bdev_execute_rw", s->progs.bdev_execute_rw, NULL,
			     s->progs.bdev_exec_kp, NULL);
	ntp_collector__fhook(c, FT_FILE, "nvmet_file_execute_rw", s->progs.file_execute_rw, NULL,
			     s->progs.file_exec_kp, NULL);
	ntp_collector__fhook(c, FT_PASSTHRU, "nvmet_passthru_execute_cmd",
			     s->progs.passthru_execute_cmd, NULL, s->progs.passthru_exec_kp, NULL);
	ntp_collector__fhook(c, FT_CMPL, "nvmet_req_complete", s->progs.req_complete, NULL,
			     s->progs.req_complete_kp, NULL);
	ntp_collector__fhook(c, FT_RESP_TRY, "nvmet_try_send_response", s->progs.try_send_response,
			     NULL, s->progs.send_resp_ent_kp, s->progs.send_resp_kp);
	ntp_collector__fhook(c, FT_RESP_SETUP, "nvmet_setup_response_pdu",
			     s->progs.setup_response_pdu, NULL, s->progs.setup_resp_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_EXEC, "nvmet_rdma_execute_command", s->progs.rdma_exec_cmd,
			     NULL, s->progs.rdma_exec_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_READ, "nvmet_rdma_read_data_done", s->progs.rdma_read_done,
			     NULL, s->progs.rdma_read_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_RESP, "nvmet_rdma_queue_response", s->progs.rdma_queue_resp,
			     NULL, s->progs.rdma_resp_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_SEND, "nvmet_rdma_send_done", NULL, NULL,
			     s->progs.rdma_send_kp, NULL);
	c->point_fh[P_RECV] = FT_INIT;
	c->point_fh[P_CMPL] = FT_CMPL;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!has_func(nvmet_btf(c, k), required[i])) {
			ntp_error("kernel lacks %s in nvmet's BTF", required[i]);
			return NTP_EXIT_UNSUPPORTED;
		}
	}

	c->fh[FT_INIT].want = c->fh[FT_CMPL].want = true;
	ntp_hook__set(&h[P_RECV], "t_recv", "nvmet_req_init", "fentry",
		      "the sampling decision: the capsule is parsed, its SQE in req->cmd");
	choose_submit(c, k);
	ntp_hook__set(&h[P_CMPL], "t_cmpl", "nvmet_req_complete", "fentry", "the backend is done");
	return c->transport == NTP_TRANSPORT_RDMA ? choose_rdma(c, k) : choose_tcp(c, k);
}

/* the tracepoint programs: tracepoints-only mode, and kprobe mode's backstops */
static void choose_tracepoints(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_target *s = target_of(c)->skel;
	const struct btf *nvmet = nvmet_btf(c, k);
	bool tp, bs;

	/* tracepoints only, where kprobes cannot stand in for a failed fentry attach */
	tp = c->policy == NTP_ATTACH_AUTO && !(c->loaded & NTP_RUN_KPROBE) &&
	     ntp_probe__btf_typedef(nvmet, "btf_trace_nvmet_req_init") &&
	     ntp_probe__btf_typedef(nvmet, "btf_trace_nvmet_req_complete");
	bpf_program__set_autoload(s->progs.req_init_tp, tp && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.req_init_raw, tp && !c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.req_cmpl_tp, tp && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.req_cmpl_raw, tp && !c->caps.tp_btf);
	if (tp)
		c->loaded |= NTP_RUN_TP;

	/*
	 * Kprobe mode's backstops (bpf/target.bpf.c: cmpl_tp): the
	 * nvmet_req_complete tracepoint times a completion whose kprobe the
	 * kernel skipped; with RDMA also a kprobe on nvmet_rdma_send_done
	 * emits a record whose response hook was skipped too
	 * (bpf/target_rdma.bpf.h).  Attached only with the kprobes.
	 */
	tp = ntp_probe__btf_typedef(nvmet, "btf_trace_nvmet_req_complete");
	bs = c->transport == NTP_TRANSPORT_RDMA && c->fh[FT_RDMA_SEND].ksym && tp;
	bpf_program__set_autoload(s->progs.cmpl_tp, tp && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.cmpl_raw, tp && !c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.rdma_send_kp, bs);
	c->kprobe_note[P_CMPL] = tp ? "; where the kernel skipped it (nested kprobes), the "
				      "nvmet_req_complete tracepoint's time" : NULL;
	c->kprobe_note[P_SENT] = bs ? "; where the kernel skipped it (nested kprobes), at "
				      "nvmet_rdma_send_done, timed at the nvmet_req_complete tracepoint"
				    : NULL;
}

static int load(struct ntp_collector *c)
{
	struct ntp_target *s = target_of(c)->skel;

	c->run_flavours = &s->bss->run_flavours;
	return ntp_target__load(s);
}

static void destroy(struct ntp_collector *c)
{
	ntp_target__destroy(target_of(c)->skel);
}

static int deliver(struct ntp_collector *core, const void *data, size_t size)
{
	struct ntp_target_collector *c = target_of(core);
	struct ntp_target_event e = {};

	/* copy: the record may sit unaligned in the ring */
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	return e.kind == NTP_EV_TARGET_IO ? c->fn(c->ctx, &e) : 0;
}

static const struct ntp_collector_ops target_ops = {
	.choose_hooks = choose_hooks,
	.choose_tracepoints = choose_tracepoints,
	.load = load,
	.destroy = destroy,
	.deliver = deliver,
};

/* in tracepoints only, every row: its tracepoint or none */
static const struct ntp_tp_row tp_rows[P_N] = {
	[P_RECV] = { "nvmet_req_init", "its tracepoint, once the command is parsed" },
	[P_CMPL] = { "nvmet_req_complete", "its tracepoint" },
	[P_SENT] = { "nvmet_req_complete", "the closest point, the nvmet_req_complete tracepoint: "
		     "the response is queued right after it; its send is not seen" },
};

/* kprobe mode: of the transport's hooks, only those it wants count (ntp_attach__plan) */
static const int required[] = { FT_INIT, FT_CMPL, FT_RESP_TRY, FT_RESP_SETUP, FT_RDMA_RESP, -1 };

int ntp_target__prepare(struct ntp_collector **cp, const struct ntp_collector_opts *o,
		        ntp_target_event_fn fn, void *ctx)
{
	const bool rdma = o->transport == NTP_TRANSPORT_RDMA;
	struct ntp_target_collector *c;
	struct ntp_collector *core;
	struct ntp_target *s;
	int err;

	*cp = NULL;
	c = ntp_collector__alloc(sizeof(*c));
	if (!c)
		return NTP_EXIT_FAILURE;
	c->fn = fn;
	c->ctx = ctx;
	s = c->skel = ntp_target__open();
	if (!s) {
		ntp_error("opening the target BPF object: %s", strerror(errno));
		free(c);
		return NTP_EXIT_FAILURE;
	}
	s->rodata->sample_limit = ntp_hash_limit(o->sample_one_in);
	s->rodata->transport = o->transport;
	if (o->filter)
		memcpy((void *)&s->rodata->filter, o->filter, sizeof(*o->filter));

	core = &c->core;
	core->name = "target";
	core->ops = &target_ops;
	core->policy = o->attach;
	core->transport = o->transport;
	core->mods[0] = rdma ? "nvmet_rdma" : "nvmet";         /* nvmet_btf(), drv_btf() */
	core->mods[1] = rdma ? "nvmet" : "nvmet_tcp";
	core->no_module = rdma ? "no NVMe/RDMA target here "
				 "(modprobe nvmet-rdma, then add an rdma port to nvmet)"
			       : "no NVMe/TCP target on this machine "
				 "(modprobe nvmet-tcp, or record the host side)";
	core->required = required;
	core->nfh = FT_N;
	core->nhooks = P_N;
	core->tp_rows = tp_rows;
	core->events = s->maps.events;
	core->counters = s->maps.counters;
	/* struct inflight (bpf/target.bpf.c) begins with the event: its offsets are the event's */
	core->inflight = s->maps.inflight;
	core->inflight_ts_off = offsetof(struct ntp_target_event, t_recv);
	ntp_collector__add_tp(core, s->progs.req_cmpl_tp, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.req_cmpl_raw, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.req_init_tp, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.req_init_raw, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.cmpl_tp, NTP_RUN_KPROBE);
	ntp_collector__add_tp(core, s->progs.cmpl_raw, NTP_RUN_KPROBE);

	err = ntp_collector__prepare(core);
	if (!err)
		*cp = core;
	return err;
}
