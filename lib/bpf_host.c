// SPDX-License-Identifier: GPL-2.0
/*
 * The host collector's user-space half: choose the hooks this kernel offers
 * from its BTF, for the transport recorded (-t: only that driver's programs
 * are loaded), load, attach, and read records and counters.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/filter.h"    /* before the skeleton: its rodata holds a struct ntp_filter */
#include "host.skel.h"
#include "lib/attach_plan.h"
#include "lib/attach_set.h"
#include "lib/bpf_reader.h"
#include "lib/bpf_host.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/kernel_probe.h"

enum send_mode {
	SEND_DIRECT,    /* fexit nvme_tcp_try_send_cmd_pdu / _data (6.12) */
	SEND_FALLBACK,  /* fentry+fexit nvme_tcp_try_send, per-queue state (6.1) */
	SEND_NONE,
};

/*
 * The kernel-function hooks, each an fentry/fexit program with kprobe twins,
 * in attach order reversed (ntp_host__start attaches the completion first).
 */
enum {
	FH_CMD_PDU,     /* nvme_tcp_try_send_cmd_pdu */
	FH_DATA,        /* nvme_tcp_try_send_data */
	FH_H2C,         /* nvme_tcp_setup_h2c_data_pdu */
	FH_TRY_SEND,    /* nvme_tcp_try_send (where the two above are inlined) */
	FH_RDMA_SEND,   /* nvme_rdma_post_send */
	FH_RDMA_RECV,   /* nvme_rdma_recv_done */
	FH_REMOTE,      /* blk_mq_complete_request_remote (TCP) */
	FH_COMPLETE,    /* nvme_complete_rq */
	FH_N,
};

/* hooks[] rows, and the function hook each one is on */
enum { P_START, P_QUEUE, P_CMD_SENT, P_R2T, P_DATA_SENT, P_RECV, P_DONE };

struct ntp_host_collector {
	struct ntp_host *skel;
	struct ring_buffer *rb;
	struct ntp_attach_set *set;
	ntp_host_event_fn fn;
	void *ctx;
	int stop_code;
	enum ntp_attach_policy policy;
	struct ntp_attach_caps caps;
	enum ntp_transport transport;
	__u32 loaded;                   /* NTP_RUN_* classes with programs */
	enum send_mode send;
	struct ntp_fhook fh[FH_N];
	int point_fh[NTP_HOST_NHOOKS];  /* the function hook of each row, or -1 */
	struct ntp_host_hook hooks[NTP_HOST_NHOOKS];
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (ntp_err__verbosity() < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void set_hook(struct ntp_host_hook *h, const char *point, const char *hook,
		     const char *flavour, const char *fmt, ...)
{
	va_list ap;

	h->point = point;
	h->hook = hook;
	h->flavour = flavour;
	va_start(ap, fmt);
	vsnprintf(h->reason, sizeof(h->reason), fmt, ap);
	va_end(ap);
}

/* the module BTFs the collector relocates against and attaches to */
struct kbtf {
	struct btf *vmlinux, *core;
	struct btf *drv;        /* the transport's: nvme_tcp or nvme_rdma */
};

static void kbtf_free(struct kbtf *k)
{
	btf__free(k->drv);
	btf__free(k->core);
	btf__free(k->vmlinux);
}

static int kbtf_load(struct kbtf *k, enum ntp_transport t)
{
	const char *const mods[] = { t == NTP_TRANSPORT_RDMA ? "nvme_rdma" : "nvme_tcp", "nvme_core" };
	struct btf **dst[] = { &k->drv, &k->core };
	size_t i;

	k->vmlinux = btf__load_vmlinux_btf();
	if (!k->vmlinux) {
		ntp_error("cannot read the kernel's BTF: /sys/kernel/btf/vmlinux: %s", strerror(errno));
		return NTP_EXIT_UNSUPPORTED;
	}
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		if (!ntp_probe__module_loaded(mods[i])) {
			if (t == NTP_TRANSPORT_RDMA)
				ntp_error("module %s is not loaded: no NVMe/RDMA host here "
					  "(modprobe nvme-rdma, then nvme connect -t rdma)", mods[i]);
			else
				ntp_error("module %s is not loaded: no NVMe/TCP host here "
					  "(modprobe nvme-tcp, then nvme connect)", mods[i]);
			return NTP_EXIT_UNSUPPORTED;
		}
		*dst[i] = btf__load_module_btf(mods[i], k->vmlinux);
		if (!*dst[i]) {
			ntp_error("kernel has no BTF for module %s: /sys/kernel/btf/%s: %s "
				  "(needs CONFIG_DEBUG_INFO_BTF_MODULES)", mods[i], mods[i], strerror(errno));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	return 0;
}

static void fhook(struct ntp_fhook *h, const char *func, struct bpf_program *fe0,
		  struct bpf_program *fe1, struct bpf_program *kp0, struct bpf_program *kp1)
{
	h->func = func;
	h->want = false;
	h->fe[0] = fe0;
	h->fe[1] = fe1;
	h->kp[0] = kp0;
	h->kp[1] = kp1;
}

/* NVMe/TCP's send, R2T and receive hooks, from nvme_tcp's BTF */
static int choose_tcp(struct ntp_host_collector *c, const struct kbtf *k)
{
	struct ntp_host *s = c->skel;
	struct ntp_host_hook *h = c->hooks;
	int n;

	if (ntp_probe__btf_func_params(k->vmlinux, "blk_mq_complete_request_remote") < 0) {
		ntp_error("kernel lacks blk_mq_complete_request_remote in its BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	if (ntp_probe__btf_func_params(k->drv, "nvme_tcp_try_send_cmd_pdu") >= 0 &&
	    ntp_probe__btf_func_params(k->drv, "nvme_tcp_try_send_data") >= 0)
		c->send = SEND_DIRECT;
	else if (ntp_probe__btf_func_params(k->drv, "nvme_tcp_try_send") >= 0)
		c->send = SEND_FALLBACK;
	else
		c->send = SEND_NONE;
	n = ntp_probe__btf_func_params(k->drv, "nvme_tcp_setup_h2c_data_pdu");

	c->fh[FH_CMD_PDU].want = c->send == SEND_DIRECT;
	c->fh[FH_DATA].want = c->send == SEND_DIRECT;
	c->fh[FH_H2C].want = n >= 0;
	c->fh[FH_TRY_SEND].want = c->send == SEND_FALLBACK;
	c->fh[FH_REMOTE].want = true;
	c->point_fh[P_CMD_SENT] = c->send == SEND_DIRECT ? FH_CMD_PDU : FH_TRY_SEND;
	c->point_fh[P_DATA_SENT] = c->send == SEND_DIRECT ? FH_DATA : FH_TRY_SEND;
	c->point_fh[P_R2T] = FH_H2C;
	c->point_fh[P_RECV] = FH_REMOTE;

	switch (c->send) {
	case SEND_DIRECT:
		set_hook(&h[P_CMD_SENT], "h_cmd_sent", "nvme_tcp_try_send_cmd_pdu", "fexit",
			 "returned 1: the command PDU is all in the socket");
		set_hook(&h[P_DATA_SENT], "h_data_sent", "nvme_tcp_try_send_data", "fexit",
			 "returned 1: the data of a PDU is all in the socket; the last one counts");
		break;
	case SEND_FALLBACK:
		set_hook(&h[P_CMD_SENT], "h_cmd_sent", "nvme_tcp_try_send", "fexit",
			 "nvme_tcp_try_send_cmd_pdu is inlined on this kernel: fentry+fexit "
			 "nvme_tcp_try_send, per-queue send state");
		set_hook(&h[P_DATA_SENT], "h_data_sent", "nvme_tcp_try_send", "fexit",
			 "nvme_tcp_try_send_data is inlined on this kernel: fentry+fexit "
			 "nvme_tcp_try_send, per-queue send state");
		break;
	case SEND_NONE:
		set_hook(&h[P_CMD_SENT], "h_cmd_sent", "none", "none",
			 "neither nvme_tcp_try_send_cmd_pdu nor nvme_tcp_try_send in nvme_tcp's BTF");
		set_hook(&h[P_DATA_SENT], "h_data_sent", "none", "none",
			 "neither nvme_tcp_try_send_data nor nvme_tcp_try_send in nvme_tcp's BTF");
		c->point_fh[P_CMD_SENT] = c->point_fh[P_DATA_SENT] = -1;
		break;
	}

	if (n < 0) {
		set_hook(&h[P_R2T], "h_r2t", "none", "none",
			 "nvme_tcp_setup_h2c_data_pdu is not in nvme_tcp's BTF");
		c->point_fh[P_R2T] = -1;
	} else {
		s->rodata->h2c_setup_is_r2t = n == 2;
		set_hook(&h[P_R2T], "h_r2t", "nvme_tcp_setup_h2c_data_pdu", "fentry", "%s",
			 n == 2 ? "called for R2Ts only on this kernel"
				: "an R2T when pdu_len is 0 at entry");
	}
	set_hook(&h[P_RECV], "h_recv", "blk_mq_complete_request_remote", "fentry",
		 "the response PDU is parsed");
	return 0;
}

/* NVMe/RDMA's capsule send and receive hooks (bpf/host_rdma.bpf.h), from nvme_rdma's BTF */
static int choose_rdma(struct ntp_host_collector *c, const struct kbtf *k)
{
	static const char *const funcs[] = { "nvme_rdma_post_send", "nvme_rdma_recv_done" };
	static const char *const types[] = { "nvme_rdma_request", "nvme_rdma_qe" };
	static const char no_pull[] = "NVMe/RDMA: the target pulls write data with RDMA READ; "
				      "the host sees no event";
	struct ntp_host_hook *h = c->hooks;
	size_t i;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (ntp_probe__btf_func_params(k->drv, funcs[i]) < 0) {
			ntp_error("kernel lacks %s in nvme_rdma's BTF (inlined?)", funcs[i]);
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (btf__find_by_name_kind(k->drv, types[i], BTF_KIND_STRUCT) < 0) {
			ntp_error("kernel lacks struct %s in nvme_rdma's BTF", types[i]);
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	c->fh[FH_RDMA_SEND].want = true;
	c->fh[FH_RDMA_RECV].want = true;
	c->point_fh[P_CMD_SENT] = FH_RDMA_SEND;
	c->point_fh[P_RECV] = FH_RDMA_RECV;
	set_hook(&h[P_CMD_SENT], "h_cmd_sent", "nvme_rdma_post_send", "fexit",
		 "returned 0: the command capsule is on the send queue, the doorbell rung");
	set_hook(&h[P_R2T], "h_r2t", "none", "none", "%s", no_pull);
	set_hook(&h[P_DATA_SENT], "h_data_sent", "none", "none", "%s", no_pull);
	set_hook(&h[P_RECV], "h_recv", "nvme_rdma_recv_done", "fentry",
		 "the response capsule's receive completion, matched by (queue, command id); "
		 "not blk_mq_complete_request_remote, which waits for the send completion too");
	return 0;
}

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_host_collector *c, const struct kbtf *k)
{
	struct ntp_host *s = c->skel;
	struct ntp_host_hook *h = c->hooks;
	int i;

	if (!ntp_probe__btf_typedef(k->core, "btf_trace_nvme_setup_cmd")) {
		ntp_error("kernel lacks the nvme_setup_cmd tracepoint in nvme_core's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	if (ntp_probe__btf_func_params(k->core, "nvme_complete_rq") < 0) {
		ntp_error("kernel lacks nvme_complete_rq in nvme_core's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}

	/* every hook unwanted until its transport's chooser wants it */
	fhook(&c->fh[FH_CMD_PDU], "nvme_tcp_try_send_cmd_pdu",
	      s->progs.cmd_pdu_sent, NULL, s->progs.cmd_pdu_ent_kp, s->progs.cmd_pdu_sent_kp);
	fhook(&c->fh[FH_DATA], "nvme_tcp_try_send_data",
	      s->progs.data_sent, NULL, s->progs.data_ent_kp, s->progs.data_sent_kp);
	fhook(&c->fh[FH_H2C], "nvme_tcp_setup_h2c_data_pdu",
	      s->progs.h2c_setup, NULL, s->progs.h2c_setup_kp, NULL);
	fhook(&c->fh[FH_TRY_SEND], "nvme_tcp_try_send",
	      s->progs.try_send_entry, s->progs.try_send_exit,
	      s->progs.send_entry_kp, s->progs.send_exit_kp);
	fhook(&c->fh[FH_RDMA_SEND], "nvme_rdma_post_send",
	      s->progs.rdma_post_send, NULL, s->progs.rdma_post_ent_kp, s->progs.rdma_post_send_kp);
	fhook(&c->fh[FH_RDMA_RECV], "nvme_rdma_recv_done",
	      s->progs.rdma_recv_done, NULL, s->progs.rdma_recv_done_kp, NULL);
	fhook(&c->fh[FH_REMOTE], "blk_mq_complete_request_remote",
	      s->progs.complete_remote, NULL, s->progs.complete_rem_kp, NULL);
	fhook(&c->fh[FH_COMPLETE], "nvme_complete_rq",
	      s->progs.complete_rq, NULL, s->progs.complete_rq_kp, NULL);
	c->fh[FH_COMPLETE].want = true;
	for (i = 0; i < NTP_HOST_NHOOKS; i++)
		c->point_fh[i] = -1;
	c->point_fh[P_DONE] = FH_COMPLETE;

	set_hook(&h[P_START], "h_start", "bio->bi_issue", "derived",
		 "read at nvme_setup_cmd; else rq->start_time_ns, else h_queue (flags of each record)");
	set_hook(&h[P_QUEUE], "h_queue", "nvme_setup_cmd", "tp_btf",
		 "the sampling decision: the first point with the wire command id");
	set_hook(&h[P_DONE], "h_done", "nvme_complete_rq", "fentry", "completed to the block layer");
	return c->transport == NTP_TRANSPORT_RDMA ? choose_rdma(c, k) : choose_tcp(c, k);
}

/* the flavours this policy and kernel allow, and the programs to load for them */
static int choose_flavours(struct ntp_host_collector *c, const struct kbtf *k)
{
	static const int required[] = { FH_COMPLETE, -1 };
	struct ntp_host *s = c->skel;
	bool tp;

	ntp_attach__probe_caps(&c->caps, c->policy);
	c->loaded = ntp_attach__plan(c->fh, FH_N, required, &c->caps);

	/* the decision hook is a tracepoint in every mode */
	bpf_program__set_autoload(s->progs.setup_cmd, c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.setup_cmd_raw, !c->caps.tp_btf);
	if (!c->caps.tp_btf)
		c->hooks[P_QUEUE].flavour = "raw_tp";

	/* tracepoints only, where kprobes cannot stand in for a failed fentry attach */
	tp = c->policy == NTP_ATTACH_AUTO && !(c->loaded & NTP_RUN_KPROBE) &&
	     ntp_probe__btf_typedef(k->core, "btf_trace_nvme_complete_rq");
	bpf_program__set_autoload(s->progs.complete_rq_tp, tp && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.complete_rq_raw, tp && !c->caps.tp_btf);
	if (tp)
		c->loaded |= NTP_RUN_TP;

	if (c->policy == NTP_ATTACH_FENTRY && !(c->loaded & NTP_RUN_FENTRY)) {
		ntp_error("--fentry: %s", c->caps.no_fentry);
		return NTP_EXIT_UNSUPPORTED;
	}
	if (c->policy == NTP_ATTACH_KPROBE && !(c->loaded & NTP_RUN_KPROBE)) {
		ntp_error("--kprobes: %s", c->caps.no_kprobe);
		return NTP_EXIT_UNSUPPORTED;
	}
	if (!c->loaded) {
		ntp_error("%s, and %s", c->caps.no_fentry, c->caps.no_kprobe);
		return NTP_EXIT_UNSUPPORTED;
	}
	return 0;
}

int ntp_host__prepare(struct ntp_host_collector **cp, const struct ntp_host_opts *o)
{
	struct ntp_host_collector *c;
	struct kbtf k = {};
	int err;

	*cp = NULL;
	libbpf_set_print(libbpf_log);
	c = calloc(1, sizeof(*c));
	if (!c) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	c->policy = o->attach;
	c->transport = o->transport;
	c->skel = ntp_host__open();
	if (!c->skel) {
		ntp_error("opening the host BPF object: %s", strerror(errno));
		free(c);
		return NTP_EXIT_FAILURE;
	}
	c->skel->rodata->sample_one_in = o->sample_one_in;
	c->skel->rodata->transport = o->transport;
	if (o->filter)
		memcpy((void *)&c->skel->rodata->filter, o->filter, sizeof(*o->filter));

	err = kbtf_load(&k, o->transport);
	if (!err)
		err = choose_hooks(c, &k);
	if (!err)
		err = choose_flavours(c, &k);
	kbtf_free(&k);
	if (err)
		goto fail;

	err = ntp_host__load(c->skel);
	if (err) {
		ntp_error("loading the host BPF programs: %s%s", strerror(-err),
			  ntp_err__verbosity() < 2 ? " (-v -v shows libbpf's log)" : "");
		err = NTP_EXIT_FAILURE;
		goto fail;
	}
	*cp = c;
	return 0;
fail:
	ntp_host__destroy(c->skel);
	free(c);
	return err;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct ntp_host_collector *c = ctx;
	struct ntp_host_event e = {};
	int code;

	/* copy: the record may sit unaligned in the ring */
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	if (e.kind != NTP_EV_HOST_IO)
		return 0;
	code = c->fn(c->ctx, &e);
	if (code) {
		c->stop_code = code;
		return -ECANCELED;
	}
	return 0;
}

/*
 * The hooks table for mode (NTP_RUN_*): the flavour each row gets, and why
 * (why: the cause of a fallback, "" for none).
 */
static void apply_flavours(const struct ntp_host_collector *c, struct ntp_host_hook *hooks, __u32 mode,
			   const char *why)
{
	char base[sizeof(hooks[0].reason)];
	const char *cause;
	int i;

	for (i = 0; i < NTP_HOST_NHOOKS; i++) {
		struct ntp_host_hook *h = &hooks[i];
		const struct ntp_fhook *f = c->point_fh[i] >= 0 ? &c->fh[c->point_fh[i]] : NULL;

		if (i == P_QUEUE || (mode == NTP_RUN_FENTRY && !*why))
			continue;
		if (!f)
			continue;       /* h_start (derived), or a point this kernel has no hook for */
		snprintf(base, sizeof(base), "%s", h->reason);
		if (mode == NTP_RUN_TP) {
			if (i == P_DONE) {
				h->flavour = c->caps.tp_btf ? "tp_btf" : "raw_tp";
				set_hook(h, h->point, "nvme_complete_rq", h->flavour,
					 "tracepoints only (%s): its tracepoint, at the start of "
					 "nvme_complete_rq", why);
			} else {
				set_hook(h, h->point, "none", "none", "tracepoints only (%s): "
					 "no tracepoint for this point", why);
			}
			continue;
		}
		h->flavour = ntp_attach__flavour(f, mode);
		if (!strcmp(h->flavour, "none")) {
			set_hook(h, h->point, "none", "none", "%s has no kprobe (not in /proc/kallsyms)",
				 f->func);
			continue;
		}
		cause = c->policy == NTP_ATTACH_KPROBE ? "--kprobes" : why;
		set_hook(h, h->point, h->hook, h->flavour, "%s%s%s", cause, *cause ? ": " : "", base);
	}
}

int ntp_host__start(struct ntp_host_collector *c, ntp_host_event_fn fn, void *ctx)
{
	struct ntp_host *s = c->skel;
	struct ntp_attach_result res;
	int i, j, err;

	c->fn = fn;
	c->ctx = ctx;
	c->rb = ring_buffer__new(bpf_map__fd(s->maps.events), on_sample, c, NULL);
	if (!c->rb) {
		ntp_error("creating the ring buffer reader: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	c->set = ntp_attach_set__new("host");
	if (!c->set) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	/* the completion side first, as the first fentry attach is the probe */
	for (i = FH_N - 1; i >= 0; i--) {
		for (j = 0; j < 2; j++) {
			ntp_attach_set__add(c->set, c->fh[i].fe[j], NTP_RUN_FENTRY);
			ntp_attach_set__add(c->set, c->fh[i].kp[j], NTP_RUN_KPROBE);
		}
	}
	ntp_attach_set__add(c->set, s->progs.complete_rq_tp, NTP_RUN_TP);
	ntp_attach_set__add(c->set, s->progs.complete_rq_raw, NTP_RUN_TP);
	ntp_attach_set__add(c->set, s->progs.setup_cmd, NTP_RUN_SAMPLE);
	ntp_attach_set__add(c->set, s->progs.setup_cmd_raw, NTP_RUN_SAMPLE);

	err = ntp_attach_set__attach(c->set, c->policy, c->loaded, c->caps.no_fentry,
				     c->caps.no_kprobe, &s->bss->run_flavours, &res);
	if (err)
		return err;
	apply_flavours(c, c->hooks, res.mode, res.why);
	return 0;
}

int ntp_host__poll(struct ntp_host_collector *c, int timeout_ms, int *stop_code)
{
	return ntp_reader__poll(c->rb, timeout_ms, &c->stop_code, stop_code);
}

int ntp_host__read_counters(struct ntp_host_collector *c, uint64_t cnt[NTP_CNT_MAX])
{
	return ntp_reader__sum_counters(c->skel->maps.counters, cnt, NTP_CNT_MAX);
}

const struct ntp_host_hook *ntp_host__hooks(const struct ntp_host_collector *c)
{
	return c->hooks;
}

__u32 ntp_host__flavours(const struct ntp_host_collector *c)
{
	return c->loaded;
}

void ntp_host__plan(const struct ntp_host_collector *c, __u32 mode, const char *why,
		  struct ntp_host_hook out[NTP_HOST_NHOOKS])
{
	memcpy(out, c->hooks, sizeof(c->hooks));
	apply_flavours(c, out, mode, why);
}

int ntp_host__programs(const struct ntp_host_collector *c)
{
	return c->set ? ntp_attach_set__programs(c->set) : 0;
}

void ntp_host__stop(struct ntp_host_collector *c)
{
	if (c && c->set)
		ntp_attach_set__detach(c->set, &c->skel->bss->run_flavours);
}

void ntp_host__free(struct ntp_host_collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	/* a worker still in the kernel uses the programs: then the object stays */
	if (!ntp_attach_set__free(c->set, &c->skel->bss->run_flavours))
		ntp_host__destroy(c->skel);
	free(c);
}
