// SPDX-License-Identifier: GPL-2.0
/*
 * The target collector's user-space half: choose the hooks this kernel offers
 * from its BTF, for the transport asked for (nvmet-tcp or nvmet-rdma: only
 * that driver's programs load), load, attach, and read records and counters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	FT_INIT,        /* nvmet_req_init(req, cq, sq, ops): the sampling decision */
	FT_INIT3,       /* nvmet_req_init(req, sq, ops), 7.3 */
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

/* the prototypes the programs read (lib/collect/kernel_probe.h) */
#define PROTO_REQ "nvmet_req*,..."
#define PROTO_CMD "nvmet_tcp_cmd*,..."
#define PROTO_WC "ib_cq*,ib_wc*,..."
#define TP_INIT "nvmet_req_init"
#define TP_INIT_PROTO "nvmet_req*,nvme_command*,..."
#define TP_CMPL "nvmet_req_complete"
#define TP_CMPL_PROTO "nvmet_req*,..."

struct ntp_target_collector {
	struct ntp_collector core;      /* first: the core's callbacks cast back */
	struct ntp_target *skel;
	ntp_target_event_fn fn;
	void *ctx;
	char submit_hooks[128];         /* the backends' execute functions found, for t_submit */
	/* the nvmet tracepoints: usable on this kernel, else why not */
	bool init_tp, cmpl_tp;
	char init_tp_why[256], cmpl_tp_why[256];
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

static const char *drv_name(const struct ntp_collector *c)
{
	return c->transport == NTP_TRANSPORT_RDMA ? "nvmet_rdma" : "nvmet_tcp";
}

static bool usable(struct ntp_collector *c, int i, const struct ntp_kbtf *k, bool drv)
{
	return ntp_collector__usable(c, i, drv ? drv_btf(c, k) : nvmet_btf(c, k),
				     drv ? drv_name(c) : "nvmet");
}

/* the decision: nvmet_req_init with the prototype this kernel has, else its tracepoint */
static int choose_recv(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_target_collector *t = target_of(c);
	struct ntp_hook *h = &c->hooks[P_RECV];
	static const char what[] = "the sampling decision: the capsule is parsed, its SQE in req->cmd";
	int i;

	for (i = FT_INIT; i <= FT_INIT3; i++) {
		if (!usable(c, i, k, false))
			continue;
		c->fh[i].want = true;
		c->point_fh[P_RECV] = i;
		c->decision = "nvmet_req_init";
		ntp_hook__set(h, "t_recv", "nvmet_req_init", "fentry", "%s%s", what,
			      i == FT_INIT3 ? "; nvmet_req_init(req, sq, ops) on this kernel" : "");
		return 0;
	}
	/* neither program fits: a refused program's why, else the newer prototype's */
	i = strstr(c->fh_why[FT_INIT], "failed to load") ? FT_INIT : FT_INIT3;
	if (!t->init_tp) {
		ntp_error("no hook for the sampling decision: %s; and %s", c->fh_why[i], t->init_tp_why);
		return NTP_EXIT_UNSUPPORTED;
	}
	t->skel->rodata->decide_at_tp = true;
	c->decision = "the nvmet_req_init tracepoint";
	ntp_hook__set(h, "t_recv", TP_INIT, "tp_btf", "%s: the sampling decision at its tracepoint, "
		      "once the command is parsed", c->fh_why[i]);
	return 0;
}

/* t_cmpl: nvmet_req_complete, else its tracepoint just after it */
static void choose_cmpl(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_target_collector *t = target_of(c);
	struct ntp_hook *h = &c->hooks[P_CMPL];

	if (usable(c, FT_CMPL, k, false)) {
		c->fh[FT_CMPL].want = true;
		c->point_fh[P_CMPL] = FT_CMPL;
		ntp_hook__set(h, "t_cmpl", "nvmet_req_complete", "fentry", "the backend is done");
	} else if (t->cmpl_tp) {
		t->skel->rodata->cmpl_at_tp = true;
		ntp_hook__set(h, "t_cmpl", TP_CMPL, "tp_btf", "%s: its tracepoint, in "
			      "__nvmet_req_complete just after it", c->fh_why[FT_CMPL]);
	} else {
		ntp_hook__set(h, "t_cmpl", "none", "none", "%s; and %s", c->fh_why[FT_CMPL],
			      t->cmpl_tp_why);
	}
}

/* t_submit: every backend's execute function this kernel has (passthru is not built everywhere) */
static void choose_submit(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	char *buf = target_of(c)->submit_hooks;
	const size_t size = sizeof(target_of(c)->submit_hooks);
	const char *missing = "";
	size_t len = 0;
	int i, n = 0;

	for (i = FT_BDEV; i <= FT_PASSTHRU; i++) {
		struct ntp_fhook *f = &c->fh[i];

		f->want = usable(c, i, k, false);
		if (!f->want) {
			missing = c->fh_why[i];
			continue;
		}
		if (c->point_fh[P_SUBMIT] < 0)
			c->point_fh[P_SUBMIT] = i;
		len += snprintf(buf + len, size - len, "%s%s", n ? "," : "", f->func);
		n++;
	}
	if (!n) {
		ntp_hook__set(&c->hooks[P_SUBMIT], "t_submit", "none", "none",
			      "no backend execute function can be hooked: %s, %s, %s",
			      c->fh_why[FT_BDEV], c->fh_why[FT_FILE], c->fh_why[FT_PASSTHRU]);
		return;
	}
	ntp_hook__set(&c->hooks[P_SUBMIT], "t_submit", buf, "fentry",
		      "the backend's req->execute: all write data received%s%s",
		      *missing ? "; " : "", missing);
}

/* no response hook: the completion's tracepoint ends each record (as in tracepoints-only mode) */
static int end_at_cmpl(struct ntp_collector *c, const char *why)
{
	struct ntp_target_collector *t = target_of(c);

	if (!t->cmpl_tp) {
		ntp_error("no hook to end a command's record: %s; and %s", why, t->cmpl_tp_why);
		return NTP_EXIT_UNSUPPORTED;
	}
	t->skel->rodata->end_at_cmpl_tp = true;
	ntp_hook__set(&c->hooks[P_SENT], "t_sent", TP_CMPL, "tp_btf",
		      "%s: the closest point, the nvmet_req_complete tracepoint: the response is "
		      "queued right after it; its send is not seen", why);
	return 0;
}

/* nvmet-tcp: the R2T and the response's send */
static int choose_tcp(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_hook *h = c->hooks;
	char why[600];

	if (usable(c, FT_QUEUE_RESP, k, true)) {
		c->fh[FT_QUEUE_RESP].want = true;
		c->point_fh[P_R2T] = FT_QUEUE_RESP;
		ntp_hook__set(&h[P_R2T], "t_r2t", "nvmet_tcp_queue_response", "fentry",
			      "R2T queued: the first call for a write whose data is not all received");
	} else {
		ntp_hook__set(&h[P_R2T], "t_r2t", "none", "none", "%s: a write's wait for its data "
			      "stays in the target's driver stage", c->fh_why[FT_QUEUE_RESP]);
	}

	if (usable(c, FT_RESP_TRY, k, true)) {
		c->fh[FT_RESP_TRY].want = true;
		c->point_fh[P_SENT] = FT_RESP_TRY;
		ntp_hook__set(&h[P_SENT], "t_sent", "nvmet_try_send_response", "fexit",
			      "returned 1: the response PDU is all in the socket");
	} else if (usable(c, FT_RESP_SETUP, k, true)) {
		c->fh[FT_RESP_SETUP].want = true;
		c->point_fh[P_SENT] = FT_RESP_SETUP;
		ntp_hook__set(&h[P_SENT], "t_sent", "nvmet_setup_response_pdu", "fentry",
			      "%s (inlined on this kernel): the closest hook, the response PDU built "
			      "just before it is sent", c->fh_why[FT_RESP_TRY]);
	} else {
		snprintf(why, sizeof(why), "%s; %s", c->fh_why[FT_RESP_TRY], c->fh_why[FT_RESP_SETUP]);
		return end_at_cmpl(c, why);
	}
	return 0;
}

/* nvmet-rdma: the RDMA READ of a write's data, and the response's post */
static int choose_rdma(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_hook *h = c->hooks;

	if (usable(c, FT_RDMA_EXEC, k, true) && usable(c, FT_RDMA_READ, k, true)) {
		c->fh[FT_RDMA_EXEC].want = c->fh[FT_RDMA_READ].want = true;
		c->point_fh[P_R2T] = FT_RDMA_EXEC;
		ntp_hook__set(&h[P_R2T], "t_r2t", "nvmet_rdma_execute_command,nvmet_rdma_read_data_done",
			      "fentry", "the RDMA READ of a write's data posted, kept once its "
			      "completion is seen; in-capsule writes have none");
	} else {
		ntp_hook__set(&h[P_R2T], "t_r2t", "none", "none", "%s%s: the RDMA READ of a write's "
			      "data stays in the target's driver stage", c->fh_why[FT_RDMA_EXEC],
			      c->fh_why[FT_RDMA_READ]);
	}
	c->fh[FT_RDMA_SEND].want = usable(c, FT_RDMA_SEND, k, true);
	if (!usable(c, FT_RDMA_RESP, k, true))
		return end_at_cmpl(c, c->fh_why[FT_RDMA_RESP]);
	c->fh[FT_RDMA_RESP].want = true;
	c->point_fh[P_SENT] = FT_RDMA_RESP;
	ntp_hook__set(&h[P_SENT], "t_sent", "nvmet_rdma_queue_response", "fentry",
		      "the response SEND (behind a read's RDMA WRITE) posted to the HCA; "
		      "not nvmet_rdma_send_done, which waits for the wire's acknowledgement");
	return 0;
}

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_target_collector *t = target_of(c);
	struct ntp_target *s = t->skel;
	int err;

	ntp_collector__fhook(c, FT_INIT, "nvmet_req_init",
			     "nvmet_req*,nvmet_cq*,nvmet_sq*,nvmet_fabrics_ops*,...",
			     s->progs.req_init, NULL, s->progs.req_init_kp, NULL);
	ntp_collector__fhook(c, FT_INIT3, "nvmet_req_init", "nvmet_req*,nvmet_sq*,nvmet_fabrics_ops*,...",
			     s->progs.req_init3, NULL, s->progs.req_init3_kp, NULL);
	ntp_collector__fhook(c, FT_QUEUE_RESP, "nvmet_tcp_queue_response", PROTO_REQ,
			     s->progs.queue_response, NULL, s->progs.queue_resp_kp, NULL);
	ntp_collector__fhook(c, FT_BDEV, "nvmet_bdev_execute_rw", PROTO_REQ, s->progs.bdev_execute_rw,
			     NULL, s->progs.bdev_exec_kp, NULL);
	ntp_collector__fhook(c, FT_FILE, "nvmet_file_execute_rw", PROTO_REQ, s->progs.file_execute_rw,
			     NULL, s->progs.file_exec_kp, NULL);
	ntp_collector__fhook(c, FT_PASSTHRU, "nvmet_passthru_execute_cmd", PROTO_REQ,
			     s->progs.passthru_execute_cmd, NULL, s->progs.passthru_exec_kp, NULL);
	ntp_collector__fhook(c, FT_CMPL, "nvmet_req_complete", "nvmet_req*,i2,...",
			     s->progs.req_complete, NULL, s->progs.req_complete_kp, NULL);
	/* fexit: the return follows the parameters, whose number must be the same */
	ntp_collector__fhook(c, FT_RESP_TRY, "nvmet_try_send_response", "nvmet_tcp_cmd*,i1->i4",
			     s->progs.try_send_response, s->progs.send_resp_ent, s->progs.send_resp_ent_kp,
			     s->progs.send_resp_kp);
	ntp_collector__fhook(c, FT_RESP_SETUP, "nvmet_setup_response_pdu", PROTO_CMD,
			     s->progs.setup_response_pdu, NULL, s->progs.setup_resp_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_EXEC, "nvmet_rdma_execute_command", "nvmet_rdma_rsp*,...",
			     s->progs.rdma_exec_cmd, NULL, s->progs.rdma_exec_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_READ, "nvmet_rdma_read_data_done", PROTO_WC,
			     s->progs.rdma_read_done, NULL, s->progs.rdma_read_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_RESP, "nvmet_rdma_queue_response", PROTO_REQ,
			     s->progs.rdma_queue_resp, NULL, s->progs.rdma_resp_kp, NULL);
	ntp_collector__fhook(c, FT_RDMA_SEND, "nvmet_rdma_send_done", PROTO_WC, NULL, NULL,
			     s->progs.rdma_send_kp, NULL);

	t->init_tp = ntp_collector__tp_usable(c, TP_INIT, TP_INIT_PROTO, nvmet_btf(c, k), "nvmet",
					      t->init_tp_why, sizeof(t->init_tp_why));
	t->cmpl_tp = ntp_collector__tp_usable(c, TP_CMPL, TP_CMPL_PROTO, nvmet_btf(c, k), "nvmet",
					      t->cmpl_tp_why, sizeof(t->cmpl_tp_why));
	err = choose_recv(c, k);
	if (err)
		return err;
	choose_submit(c, k);
	choose_cmpl(c, k);
	return c->transport == NTP_TRANSPORT_RDMA ? choose_rdma(c, k) : choose_tcp(c, k);
}

/* the tracepoint programs: the cross-check's count, and the fallbacks that use them */
static void choose_tracepoints(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	struct ntp_target_collector *t = target_of(c);
	struct ntp_target *s = t->skel;
	const bool btf = c->caps.tp_btf;
	const bool decide = s->rodata->decide_at_tp;
	bool tp, bs;

	(void)k;
	/* tracepoints only, where kprobes cannot stand in for a failed fentry attach */
	tp = c->policy == NTP_ATTACH_AUTO && !(c->loaded & NTP_RUN_KPROBE) && t->init_tp && t->cmpl_tp;
	bpf_program__set_autoload(s->progs.req_init_tp, (tp || decide) && btf);
	bpf_program__set_autoload(s->progs.req_init_raw, (tp || decide) && !btf);
	if (tp)
		c->loaded |= NTP_RUN_TP;
	/* the decision at the tracepoint in every mode: attached with the others' last */
	ntp_collector__tp_class(c, s->progs.req_init_tp, decide ? NTP_RUN_SAMPLE : NTP_RUN_TP);
	ntp_collector__tp_class(c, s->progs.req_init_raw, decide ? NTP_RUN_SAMPLE : NTP_RUN_TP);
	if (decide || !btf) {
		const char *f = btf ? "tp_btf" : "raw_tp";

		if (decide)
			c->hooks[P_RECV].flavour = f;
		if (s->rodata->cmpl_at_tp)
			c->hooks[P_CMPL].flavour = f;
		if (s->rodata->end_at_cmpl_tp)
			c->hooks[P_SENT].flavour = f;
	}

	/*
	 * One program on nvmet_req_complete in every mode (bpf/target.bpf.c:
	 * cmpl_tp): the cross-check's count, tracepoints-only mode's end,
	 * kprobe mode's backstop for a skipped nvmet_req_complete kprobe; with
	 * RDMA also a kprobe on nvmet_rdma_send_done emits a record whose
	 * response hook was skipped too (bpf/target_rdma.bpf.h).
	 */
	bpf_program__set_autoload(s->progs.cmpl_tp, t->cmpl_tp && btf);
	bpf_program__set_autoload(s->progs.cmpl_raw, t->cmpl_tp && !btf);
	c->fabric = t->cmpl_tp ? "the nvmet_req_complete tracepoint" : NULL;
	bs = c->transport == NTP_TRANSPORT_RDMA && c->fh[FT_RDMA_SEND].want &&
	     c->fh[FT_RDMA_SEND].ksym && t->cmpl_tp;
	bpf_program__set_autoload(s->progs.rdma_send_kp, bs);
	c->kprobe_note[P_CMPL] = t->cmpl_tp && c->point_fh[P_CMPL] >= 0 ?
				 "; where the kernel skipped it (nested kprobes), the "
				 "nvmet_req_complete tracepoint's time" : NULL;
	c->kprobe_note[P_SENT] = bs && c->point_fh[P_SENT] == FT_RDMA_RESP ?
				 "; where the kernel skipped it (nested kprobes), at "
				 "nvmet_rdma_send_done, timed at the nvmet_req_complete tracepoint" : NULL;
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
	target_of(c)->skel = NULL;
}

static int deliver(struct ntp_collector *core, const void *data, size_t size)
{
	struct ntp_target_collector *c = target_of(core);
	const struct ntp_target_event *e = data;
	struct ntp_target_event copy;

	/* read in place when whole and aligned, as libbpf's ring keeps them (8 bytes) */
	if (size < sizeof(*e) || (uintptr_t)data % _Alignof(struct ntp_target_event)) {
		memset(&copy, 0, sizeof(copy));
		memcpy(&copy, data, size < sizeof(copy) ? size : sizeof(copy));
		e = &copy;
	}
	return e->kind == NTP_EV_TARGET_IO ? c->fn(c->ctx, e) : 0;
}

/* the skeleton, its settings, and what the core reaches through it */
static int open_skel(struct ntp_collector *core)
{
	struct ntp_target_collector *c = target_of(core);
	const struct ntp_collector_opts *o = core->opts;
	struct ntp_target *s;

	s = c->skel = ntp_target__open();
	if (!s) {
		ntp_error("opening the target BPF object: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	s->rodata->sample_limit = ntp_hash_limit(o->sample_one_in);
	s->rodata->hist_mode = o->hist_mode;
	s->rodata->hist_stream = o->hist_mode && o->hist_stream;
	s->rodata->transport = o->transport;
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
	/* struct inflight (bpf/target.bpf.c) begins with the event: its offsets are the event's */
	core->inflight = s->maps.inflight;
	core->inflight_ts_off = offsetof(struct ntp_target_event, t_recv);
	ntp_collector__add_tp(core, s->progs.req_init_tp, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.req_init_raw, NTP_RUN_TP);
	ntp_collector__add_tp(core, s->progs.cmpl_tp, NTP_RUN_SAMPLE);
	ntp_collector__add_tp(core, s->progs.cmpl_raw, NTP_RUN_SAMPLE);
	return 0;
}

static const struct ntp_collector_ops target_ops = {
	.open = open_skel,
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
static const int required[] = { FT_INIT, FT_INIT3, FT_CMPL, FT_RESP_TRY, FT_RESP_SETUP, FT_RDMA_RESP,
				-1 };

int ntp_target__prepare(struct ntp_collector **cp, const struct ntp_collector_opts *o,
		        ntp_target_event_fn fn, void *ctx)
{
	const bool rdma = o->transport == NTP_TRANSPORT_RDMA;
	struct ntp_target_collector *c;
	struct ntp_collector *core;
	int err;

	*cp = NULL;
	c = ntp_collector__alloc(sizeof(*c));
	if (!c)
		return NTP_EXIT_FAILURE;
	c->fn = fn;
	c->ctx = ctx;

	core = &c->core;
	core->name = "target";
	core->ops = &target_ops;
	core->opts = o;
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

	err = ntp_collector__prepare(core);
	if (!err)
		*cp = core;
	return err;
}
