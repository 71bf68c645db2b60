// SPDX-License-Identifier: GPL-2.0
/*
 * The target collector's user-space half: choose the hooks this kernel offers
 * from its BTF, for the transport asked for (nvmet-tcp or nvmet-rdma: only
 * that driver's programs load), load, attach, and read records and counters.
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
#include "target.skel.h"
#include "lib/attach_plan.h"
#include "lib/attach_set.h"
#include "lib/bpf_reader.h"
#include "lib/bpf_target.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/kernel_probe.h"

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
enum { P_RECV, P_R2T, P_SUBMIT, P_CMPL, P_SENT };

struct ntp_target_collector {
	struct ntp_target *skel;
	enum ntp_transport transport;
	struct ring_buffer *rb;
	struct ntp_attach_set *set;
	ntp_target_event_fn fn;
	void *ctx;
	int stop_code;
	enum ntp_attach_policy policy;
	struct ntp_attach_caps caps;
	__u32 loaded;                   /* NTP_RUN_* classes with programs */
	struct ntp_fhook fh[FT_N];
	int point_fh[NTP_TARGET_NHOOKS];        /* the function hook of each row (t_submit: the first) */
	char submit_hooks[128];         /* the backends' execute functions found, for hooks[2] */
	struct ntp_target_hook hooks[NTP_TARGET_NHOOKS];
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (ntp_err__verbosity() < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void set_hook(struct ntp_target_hook *h, const char *point, const char *hook,
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
	struct btf *vmlinux, *nvmet, *drv;      /* drv: nvmet_tcp or nvmet_rdma */
};

static void kbtf_free(struct kbtf *k)
{
	btf__free(k->drv);
	btf__free(k->nvmet);
	btf__free(k->vmlinux);
}

/*
 * The modules in the order their absence is reported: the most basic lack
 * first.  nvmet_rdma needs nvmet, so with RDMA the driver is checked first
 * and says what to load.
 */
static int kbtf_load(struct kbtf *k, enum ntp_transport t)
{
	const bool rdma = t == NTP_TRANSPORT_RDMA;
	const char *mods[2] = { "nvmet", "nvmet_tcp" };
	struct btf **dst[2] = { &k->nvmet, &k->drv };
	size_t i;

	if (rdma) {
		mods[0] = "nvmet_rdma";
		mods[1] = "nvmet";
		dst[0] = &k->drv;
		dst[1] = &k->nvmet;
	}
	k->vmlinux = btf__load_vmlinux_btf();
	if (!k->vmlinux) {
		ntp_error("cannot read the kernel's BTF: /sys/kernel/btf/vmlinux: %s", strerror(errno));
		return NTP_EXIT_UNSUPPORTED;
	}
	for (i = 0; i < 2; i++) {
		if (!ntp_probe__module_loaded(mods[i])) {
			if (rdma)
				ntp_error("module %s is not loaded: no NVMe/RDMA target here "
					  "(modprobe nvmet-rdma, then add an rdma port to nvmet)", mods[i]);
			else
				ntp_error("module %s is not loaded: no NVMe/TCP target on this machine "
					  "(modprobe nvmet-tcp, or record the host side)", mods[i]);
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

static bool has_func(const struct btf *btf, const char *func)
{
	return ntp_probe__btf_func_params(btf, func) >= 0;
}

static void fhook(struct ntp_fhook *h, const char *func, struct bpf_program *fe0,
		  struct bpf_program *fe1, struct bpf_program *kp0, struct bpf_program *kp1)
{
	h->func = func;
	h->fe[0] = fe0;
	h->fe[1] = fe1;
	h->kp[0] = kp0;
	h->kp[1] = kp1;
}

/* t_submit: every backend's execute function this kernel has (passthru is not built everywhere) */
static int choose_submit(struct ntp_target_collector *c, const struct kbtf *k)
{
	const char *missing = "";
	size_t len = 0;
	int i, n = 0;

	c->point_fh[P_SUBMIT] = -1;
	for (i = FT_BDEV; i <= FT_PASSTHRU; i++) {
		struct ntp_fhook *f = &c->fh[i];

		f->want = has_func(k->nvmet, f->func);
		if (!f->want) {
			missing = f->func;
			continue;
		}
		if (c->point_fh[P_SUBMIT] < 0)
			c->point_fh[P_SUBMIT] = i;
		len += snprintf(c->submit_hooks + len, sizeof(c->submit_hooks) - len, "%s%s",
				n ? "," : "", f->func);
		n++;
	}
	if (!n) {
		set_hook(&c->hooks[2], "t_submit", "none", "none",
			 "no backend execute function (nvmet_bdev_execute_rw, ...) in nvmet's BTF");
		return 0;
	}
	set_hook(&c->hooks[2], "t_submit", c->submit_hooks, "fentry",
		 "the backend's req->execute: all write data received%s%s%s",
		 *missing ? "; " : "", missing, *missing ? " is not built" : "");
	return 0;
}

/* nvmet-tcp: the R2T and the response's send */
static int choose_tcp(struct ntp_target_collector *c, const struct kbtf *k)
{
	struct ntp_target_hook *h = c->hooks;
	bool direct;

	if (!has_func(k->drv, "nvmet_tcp_queue_response")) {
		ntp_error("kernel lacks nvmet_tcp_queue_response in nvmet_tcp's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	c->fh[FT_QUEUE_RESP].want = true;
	c->point_fh[P_R2T] = FT_QUEUE_RESP;
	set_hook(&h[1], "t_r2t", "nvmet_tcp_queue_response", "fentry",
		 "R2T queued: the first call for a write whose data is not all received");

	direct = has_func(k->drv, "nvmet_try_send_response");
	if (!direct && !has_func(k->drv, "nvmet_setup_response_pdu")) {
		ntp_error("kernel lacks both nvmet_try_send_response and nvmet_setup_response_pdu "
			  "in nvmet_tcp's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	c->fh[FT_RESP_TRY].want = direct;
	c->fh[FT_RESP_SETUP].want = !direct;
	c->point_fh[P_SENT] = direct ? FT_RESP_TRY : FT_RESP_SETUP;
	if (direct)
		set_hook(&h[4], "t_sent", "nvmet_try_send_response", "fexit",
			 "returned 1: the response PDU is all in the socket");
	else
		set_hook(&h[4], "t_sent", "nvmet_setup_response_pdu", "fentry",
			 "nvmet_try_send_response is inlined on this kernel: the closest hook, "
			 "the response PDU built just before it is sent");
	return 0;
}

/* nvmet-rdma: the RDMA READ of a write's data, and the response's post */
static int choose_rdma(struct ntp_target_collector *c, const struct kbtf *k)
{
	static const int need[] = { FT_RDMA_EXEC, FT_RDMA_READ, FT_RDMA_RESP };
	struct ntp_target_hook *h = c->hooks;
	size_t i;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!has_func(k->drv, c->fh[need[i]].func)) {
			ntp_error("kernel lacks %s in nvmet_rdma's BTF", c->fh[need[i]].func);
			return NTP_EXIT_UNSUPPORTED;
		}
		c->fh[need[i]].want = true;
	}
	c->fh[FT_RDMA_SEND].want = has_func(k->drv, c->fh[FT_RDMA_SEND].func);
	c->point_fh[P_R2T] = FT_RDMA_EXEC;
	c->point_fh[P_SENT] = FT_RDMA_RESP;
	set_hook(&h[1], "t_r2t", "nvmet_rdma_execute_command,nvmet_rdma_read_data_done", "fentry",
		 "the RDMA READ of a write's data posted, kept once its completion is seen; "
		 "in-capsule writes have none");
	set_hook(&h[4], "t_sent", "nvmet_rdma_queue_response", "fentry",
		 "the response SEND (behind a read's RDMA WRITE) posted to the HCA; "
		 "not nvmet_rdma_send_done, which waits for the wire's acknowledgement");
	return 0;
}

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_target_collector *c, const struct kbtf *k)
{
	struct ntp_target *s = c->skel;
	struct ntp_target_hook *h = c->hooks;
	static const char *const required[] = { "nvmet_req_init", "nvmet_req_complete" };
	size_t i;

	fhook(&c->fh[FT_INIT], "nvmet_req_init", s->progs.req_init, NULL, s->progs.req_init_kp, NULL);
	fhook(&c->fh[FT_QUEUE_RESP], "nvmet_tcp_queue_response", s->progs.queue_response, NULL,
	      s->progs.queue_resp_kp, NULL);
	fhook(&c->fh[FT_BDEV], "nvmet_bdev_execute_rw", s->progs.bdev_execute_rw, NULL,
	      s->progs.bdev_exec_kp, NULL);
	fhook(&c->fh[FT_FILE], "nvmet_file_execute_rw", s->progs.file_execute_rw, NULL,
	      s->progs.file_exec_kp, NULL);
	fhook(&c->fh[FT_PASSTHRU], "nvmet_passthru_execute_cmd", s->progs.passthru_execute_cmd, NULL,
	      s->progs.passthru_exec_kp, NULL);
	fhook(&c->fh[FT_CMPL], "nvmet_req_complete", s->progs.req_complete, NULL,
	      s->progs.req_complete_kp, NULL);
	fhook(&c->fh[FT_RESP_TRY], "nvmet_try_send_response", s->progs.try_send_response, NULL,
	      s->progs.send_resp_ent_kp, s->progs.send_resp_kp);
	fhook(&c->fh[FT_RESP_SETUP], "nvmet_setup_response_pdu", s->progs.setup_response_pdu, NULL,
	      s->progs.setup_resp_kp, NULL);
	fhook(&c->fh[FT_RDMA_EXEC], "nvmet_rdma_execute_command", s->progs.rdma_exec_cmd, NULL,
	      s->progs.rdma_exec_kp, NULL);
	fhook(&c->fh[FT_RDMA_READ], "nvmet_rdma_read_data_done", s->progs.rdma_read_done, NULL,
	      s->progs.rdma_read_kp, NULL);
	fhook(&c->fh[FT_RDMA_RESP], "nvmet_rdma_queue_response", s->progs.rdma_queue_resp, NULL,
	      s->progs.rdma_resp_kp, NULL);
	fhook(&c->fh[FT_RDMA_SEND], "nvmet_rdma_send_done", NULL, NULL, s->progs.rdma_send_kp, NULL);
	c->point_fh[P_RECV] = FT_INIT;
	c->point_fh[P_CMPL] = FT_CMPL;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!has_func(k->nvmet, required[i])) {
			ntp_error("kernel lacks %s in nvmet's BTF", required[i]);
			return NTP_EXIT_UNSUPPORTED;
		}
	}

	c->fh[FT_INIT].want = c->fh[FT_CMPL].want = true;
	set_hook(&h[0], "t_recv", "nvmet_req_init", "fentry",
		 "the sampling decision: the capsule is parsed, its SQE in req->cmd");
	choose_submit(c, k);
	set_hook(&h[3], "t_cmpl", "nvmet_req_complete", "fentry", "the backend is done");
	return c->transport == NTP_TRANSPORT_RDMA ? choose_rdma(c, k) : choose_tcp(c, k);
}

/* the flavours this policy and kernel allow, and the programs to load for them */
static int choose_flavours(struct ntp_target_collector *c, const struct kbtf *k)
{
	/* of the transport's hooks, only those it wants count (ntp_attach__plan) */
	static const int required[] = { FT_INIT, FT_CMPL, FT_RESP_TRY, FT_RESP_SETUP, FT_RDMA_RESP, -1 };
	struct ntp_target *s = c->skel;
	bool tp, bs;

	ntp_attach__probe_caps(&c->caps, c->policy);
	c->loaded = ntp_attach__plan(c->fh, FT_N, required, &c->caps);

	/* tracepoints only, where kprobes cannot stand in for a failed fentry attach */
	tp = c->policy == NTP_ATTACH_AUTO && !(c->loaded & NTP_RUN_KPROBE) &&
	     ntp_probe__btf_typedef(k->nvmet, "btf_trace_nvmet_req_init") &&
	     ntp_probe__btf_typedef(k->nvmet, "btf_trace_nvmet_req_complete");
	bpf_program__set_autoload(s->progs.req_init_tp, tp && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.req_init_raw, tp && !c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.req_cmpl_tp, tp && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.req_cmpl_raw, tp && !c->caps.tp_btf);
	if (tp)
		c->loaded |= NTP_RUN_TP;

	/*
	 * RDMA with kprobes: the backstop for a response hook the kernel
	 * skipped (bpf/target_rdma.bpf.h), a kprobe on nvmet_rdma_send_done
	 * and the nvmet_req_complete tracepoint that times it, or neither
	 */
	bs = c->transport == NTP_TRANSPORT_RDMA && c->fh[FT_RDMA_SEND].ksym &&
	     ntp_probe__btf_typedef(k->nvmet, "btf_trace_nvmet_req_complete");
	bpf_program__set_autoload(s->progs.rdma_send_kp, bs);
	bpf_program__set_autoload(s->progs.rdma_cmpl_tp, bs && c->caps.tp_btf);
	bpf_program__set_autoload(s->progs.rdma_cmpl_raw, bs && !c->caps.tp_btf);

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

int ntp_target__prepare(struct ntp_target_collector **cp, const struct ntp_target_opts *o)
{
	struct ntp_target_collector *c;
	struct kbtf k = {};
	int err;

	*cp = NULL;
	libbpf_set_print(libbpf_log);
	c = calloc(1, sizeof(*c));
	if (!c) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	c->skel = ntp_target__open();
	if (!c->skel) {
		ntp_error("opening the target BPF object: %s", strerror(errno));
		free(c);
		return NTP_EXIT_FAILURE;
	}
	c->policy = o->attach;
	c->transport = o->transport;
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

	err = ntp_target__load(c->skel);
	if (err) {
		ntp_error("loading the target BPF programs: %s%s", strerror(-err),
			  ntp_err__verbosity() < 2 ? " (-v -v shows libbpf's log)" : "");
		err = NTP_EXIT_FAILURE;
		goto fail;
	}
	*cp = c;
	return 0;
fail:
	ntp_target__destroy(c->skel);
	free(c);
	return err;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct ntp_target_collector *c = ctx;
	struct ntp_target_event e = {};
	int code;

	/* copy: the record may sit unaligned in the ring */
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	if (e.kind != NTP_EV_TARGET_IO)
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
static void apply_flavours(const struct ntp_target_collector *c, struct ntp_target_hook *hooks, __u32 mode,
			   const char *why)
{
	static const char *const tps[NTP_TARGET_NHOOKS] = {
		[P_RECV] = "nvmet_req_init", [P_CMPL] = "nvmet_req_complete",
		[P_SENT] = "nvmet_req_complete",
	};
	static const char *const tp_why[NTP_TARGET_NHOOKS] = {
		[P_RECV] = "its tracepoint, once the command is parsed",
		[P_CMPL] = "its tracepoint",
		[P_SENT] = "the closest point, the nvmet_req_complete tracepoint: the response "
			   "is queued right after it; its send is not seen",
	};
	char base[sizeof(hooks[0].reason)];
	const char *cause;
	int i;

	if (mode == NTP_RUN_FENTRY && !*why)
		return;
	for (i = 0; i < NTP_TARGET_NHOOKS; i++) {
		struct ntp_target_hook *h = &hooks[i];
		const struct ntp_fhook *f = c->point_fh[i] >= 0 ? &c->fh[c->point_fh[i]] : NULL;

		if (mode == NTP_RUN_TP) {
			if (tps[i])
				set_hook(h, h->point, tps[i], c->caps.tp_btf ? "tp_btf" : "raw_tp",
					 "tracepoints only (%s): %s", why, tp_why[i]);
			else
				set_hook(h, h->point, "none", "none", "tracepoints only (%s): "
					 "no tracepoint for this point", why);
			continue;
		}
		if (!f)
			continue;
		snprintf(base, sizeof(base), "%s", h->reason);
		h->flavour = ntp_attach__flavour(f, mode);
		if (!strcmp(h->flavour, "none")) {
			set_hook(h, h->point, "none", "none", "%s has no kprobe (not in /proc/kallsyms)",
				 f->func);
			continue;
		}
		cause = c->policy == NTP_ATTACH_KPROBE ? "--kprobes" : why;
		set_hook(h, h->point, h->hook, h->flavour, "%s%s%s%s", cause, *cause ? ": " : "", base,
			 mode == NTP_RUN_KPROBE && i == P_SENT &&
			 bpf_program__autoload(c->skel->progs.rdma_send_kp) ?
			 "; where the kernel skipped it (nested kprobes), at nvmet_rdma_send_done, "
			 "timed at the nvmet_req_complete tracepoint" : "");
	}
}

int ntp_target__start(struct ntp_target_collector *c, ntp_target_event_fn fn, void *ctx)
{
	struct ntp_target *s = c->skel;
	struct ntp_attach_result res;
	int i, j, err;

	c->fn = fn;
	c->ctx = ctx;
	c->rb = ring_buffer__new(bpf_map__fd(s->maps.events), on_sample, c, NULL);
	if (!c->rb) {
		ntp_error("creating the ring buffer reader: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	c->set = ntp_attach_set__new("target");
	if (!c->set) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	/* the response side first, as the first fentry attach is the probe */
	for (i = FT_N - 1; i >= 0; i--) {
		for (j = 0; j < 2; j++) {
			ntp_attach_set__add(c->set, c->fh[i].fe[j], NTP_RUN_FENTRY);
			ntp_attach_set__add(c->set, c->fh[i].kp[j], NTP_RUN_KPROBE);
		}
	}
	ntp_attach_set__add(c->set, s->progs.req_cmpl_tp, NTP_RUN_TP);
	ntp_attach_set__add(c->set, s->progs.req_cmpl_raw, NTP_RUN_TP);
	ntp_attach_set__add(c->set, s->progs.req_init_tp, NTP_RUN_TP);
	ntp_attach_set__add(c->set, s->progs.req_init_raw, NTP_RUN_TP);
	ntp_attach_set__add(c->set, s->progs.rdma_cmpl_tp, NTP_RUN_KPROBE);
	ntp_attach_set__add(c->set, s->progs.rdma_cmpl_raw, NTP_RUN_KPROBE);

	err = ntp_attach_set__attach(c->set, c->policy, c->loaded, c->caps.no_fentry,
				     c->caps.no_kprobe, &s->bss->run_flavours, &res);
	if (err)
		return err;
	apply_flavours(c, c->hooks, res.mode, res.why);
	return 0;
}

int ntp_target__poll(struct ntp_target_collector *c, int timeout_ms, int *stop_code)
{
	return ntp_reader__poll(c->rb, timeout_ms, &c->stop_code, stop_code);
}

int ntp_target__read_counters(struct ntp_target_collector *c, uint64_t cnt[NTP_CNT_MAX])
{
	return ntp_reader__sum_counters(c->skel->maps.counters, cnt, NTP_CNT_MAX);
}

const struct ntp_target_hook *ntp_target__hooks(const struct ntp_target_collector *c)
{
	return c->hooks;
}

__u32 ntp_target__flavours(const struct ntp_target_collector *c)
{
	return c->loaded;
}

void ntp_target__plan(const struct ntp_target_collector *c, __u32 mode, const char *why,
		  struct ntp_target_hook out[NTP_TARGET_NHOOKS])
{
	memcpy(out, c->hooks, sizeof(c->hooks));
	apply_flavours(c, out, mode, why);
}

int ntp_target__programs(const struct ntp_target_collector *c)
{
	return c->set ? ntp_attach_set__programs(c->set) : 0;
}

void ntp_target__stop(struct ntp_target_collector *c)
{
	if (c && c->set)
		ntp_attach_set__detach(c->set, &c->skel->bss->run_flavours);
}

void ntp_target__free(struct ntp_target_collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	/* a worker still in the kernel uses the programs: then the object stays */
	if (!ntp_attach_set__free(c->set, &c->skel->bss->run_flavours))
		ntp_target__destroy(c->skel);
	free(c);
}
