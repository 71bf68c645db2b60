// SPDX-License-Identifier: GPL-2.0
/*
 * The host collector's user-space half: choose the hooks this kernel offers
 * from its BTF, load, attach, and read records and counters.
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

#include "host.skel.h"
#include "lib/bpf_host.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/kernel_probe.h"

enum send_mode {
	SEND_DIRECT,    /* fexit nvme_tcp_try_send_cmd_pdu / _data (6.12) */
	SEND_FALLBACK,  /* fentry+fexit nvme_tcp_try_send, per-queue state (6.1) */
	SEND_NONE,
};

struct ntp_host_collector {
	struct ntp_host *skel;
	struct ring_buffer *rb;
	ntp_host_event_fn fn;
	void *ctx;
	int stop_code;
	int nprogs;
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
	struct btf *vmlinux, *core, *tcp;
};

static void kbtf_free(struct kbtf *k)
{
	btf__free(k->tcp);
	btf__free(k->core);
	btf__free(k->vmlinux);
}

static int kbtf_load(struct kbtf *k)
{
	static const char *const mods[] = { "nvme_core", "nvme_tcp" };
	struct btf **dst[] = { &k->core, &k->tcp };
	size_t i;

	k->vmlinux = btf__load_vmlinux_btf();
	if (!k->vmlinux) {
		ntp_error("cannot read the kernel's BTF: /sys/kernel/btf/vmlinux: %s", strerror(errno));
		return NTP_EXIT_UNSUPPORTED;
	}
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		*dst[i] = btf__load_module_btf(mods[i], k->vmlinux);
		if (!*dst[i]) {
			ntp_error("kernel has no BTF for module %s: /sys/kernel/btf/%s: %s "
				  "(needs CONFIG_DEBUG_INFO_BTF_MODULES)", mods[i], mods[i], strerror(errno));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	return 0;
}

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_host_collector *c, const struct kbtf *k)
{
	struct ntp_host *s = c->skel;
	struct ntp_host_hook *h = c->hooks;
	enum send_mode mode;
	int n;

	if (!ntp_probe__btf_typedef(k->core, "btf_trace_nvme_setup_cmd")) {
		ntp_error("kernel lacks the nvme_setup_cmd tracepoint in nvme_core's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	if (ntp_probe__btf_func_params(k->core, "nvme_complete_rq") < 0) {
		ntp_error("kernel lacks nvme_complete_rq in nvme_core's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	if (ntp_probe__btf_func_params(k->vmlinux, "blk_mq_complete_request_remote") < 0) {
		ntp_error("kernel lacks blk_mq_complete_request_remote in its BTF");
		return NTP_EXIT_UNSUPPORTED;
	}

	set_hook(&h[0], "h_start", "bio->bi_issue", "derived",
		 "read at nvme_setup_cmd; else rq->start_time_ns, else h_queue (flags of each record)");
	set_hook(&h[1], "h_queue", "nvme_setup_cmd", "tp_btf",
		 "the sampling decision: the first point with the wire command id");

	if (ntp_probe__btf_func_params(k->tcp, "nvme_tcp_try_send_cmd_pdu") >= 0 &&
	    ntp_probe__btf_func_params(k->tcp, "nvme_tcp_try_send_data") >= 0)
		mode = SEND_DIRECT;
	else if (ntp_probe__btf_func_params(k->tcp, "nvme_tcp_try_send") >= 0)
		mode = SEND_FALLBACK;
	else
		mode = SEND_NONE;

	bpf_program__set_autoload(s->progs.cmd_pdu_sent, mode == SEND_DIRECT);
	bpf_program__set_autoload(s->progs.data_sent, mode == SEND_DIRECT);
	bpf_program__set_autoload(s->progs.try_send_entry, mode == SEND_FALLBACK);
	bpf_program__set_autoload(s->progs.try_send_exit, mode == SEND_FALLBACK);
	switch (mode) {
	case SEND_DIRECT:
		set_hook(&h[2], "h_cmd_sent", "nvme_tcp_try_send_cmd_pdu", "fexit",
			 "returned 1: the command PDU is all in the socket");
		set_hook(&h[4], "h_data_sent", "nvme_tcp_try_send_data", "fexit",
			 "returned 1: the data of a PDU is all in the socket; the last one counts");
		break;
	case SEND_FALLBACK:
		set_hook(&h[2], "h_cmd_sent", "nvme_tcp_try_send", "fexit",
			 "nvme_tcp_try_send_cmd_pdu is inlined on this kernel: fentry+fexit "
			 "nvme_tcp_try_send, per-queue send state");
		set_hook(&h[4], "h_data_sent", "nvme_tcp_try_send", "fexit",
			 "nvme_tcp_try_send_data is inlined on this kernel: fentry+fexit "
			 "nvme_tcp_try_send, per-queue send state");
		break;
	case SEND_NONE:
		set_hook(&h[2], "h_cmd_sent", "none", "none",
			 "neither nvme_tcp_try_send_cmd_pdu nor nvme_tcp_try_send in nvme_tcp's BTF");
		set_hook(&h[4], "h_data_sent", "none", "none",
			 "neither nvme_tcp_try_send_data nor nvme_tcp_try_send in nvme_tcp's BTF");
		break;
	}

	n = ntp_probe__btf_func_params(k->tcp, "nvme_tcp_setup_h2c_data_pdu");
	bpf_program__set_autoload(s->progs.h2c_setup, n >= 0);
	if (n < 0) {
		set_hook(&h[3], "h_r2t", "none", "none",
			 "nvme_tcp_setup_h2c_data_pdu is not in nvme_tcp's BTF");
	} else {
		s->rodata->h2c_setup_is_r2t = n == 2;
		set_hook(&h[3], "h_r2t", "nvme_tcp_setup_h2c_data_pdu", "fentry", "%s",
			 n == 2 ? "called for R2Ts only on this kernel"
				: "an R2T when pdu_len is 0 at entry");
	}

	set_hook(&h[5], "h_recv", "blk_mq_complete_request_remote", "fentry",
		 "the response PDU is parsed");
	set_hook(&h[6], "h_done", "nvme_complete_rq", "fentry", "completed to the block layer");
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
	c->skel = ntp_host__open();
	if (!c->skel) {
		ntp_error("opening the host BPF object: %s", strerror(errno));
		free(c);
		return NTP_EXIT_FAILURE;
	}
	c->skel->rodata->sample_one_in = o->sample_one_in;

	err = kbtf_load(&k);
	if (!err)
		err = choose_hooks(c, &k);
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

/* attach one program into the skeleton's link slot, so ntp_host__detach() finds it */
static int attach_one(struct ntp_host_collector *c, struct bpf_program *p, struct bpf_link **slot)
{
	if (!bpf_program__autoload(p))
		return 0;
	*slot = bpf_program__attach(p);
	if (!*slot) {
		int err = errno;

		ntp_error("attaching %s (%s): %s", bpf_program__name(p),
			  bpf_program__section_name(p), strerror(err));
		return err == EPERM || err == EACCES ? NTP_EXIT_NOPERM : NTP_EXIT_FAILURE;
	}
	c->nprogs++;
	return 0;
}

int ntp_host__start(struct ntp_host_collector *c, ntp_host_event_fn fn, void *ctx)
{
	struct ntp_host *s = c->skel;
	struct {
		struct bpf_program *p;
		struct bpf_link **l;
	} order[] = {
		/* completion side first, so no sampled command misses its end */
		{ s->progs.complete_rq, &s->links.complete_rq },
		{ s->progs.complete_remote, &s->links.complete_remote },
		{ s->progs.h2c_setup, &s->links.h2c_setup },
		{ s->progs.data_sent, &s->links.data_sent },
		{ s->progs.cmd_pdu_sent, &s->links.cmd_pdu_sent },
		{ s->progs.try_send_exit, &s->links.try_send_exit },
		{ s->progs.try_send_entry, &s->links.try_send_entry },
		{ s->progs.setup_cmd, &s->links.setup_cmd },
	};
	size_t i;
	int err;

	c->fn = fn;
	c->ctx = ctx;
	c->rb = ring_buffer__new(bpf_map__fd(s->maps.events), on_sample, c, NULL);
	if (!c->rb) {
		ntp_error("creating the ring buffer reader: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		err = attach_one(c, order[i].p, order[i].l);
		if (err) {
			ntp_host__detach(s);
			return err;
		}
	}
	return 0;
}

int ntp_host__poll(struct ntp_host_collector *c, int timeout_ms, int *stop_code)
{
	int n;

	*stop_code = 0;
	n = ring_buffer__poll(c->rb, timeout_ms);
	if (n == -ECANCELED) {
		*stop_code = c->stop_code;
		return -1;
	}
	if (n == -EINTR)
		return 0;
	if (n < 0) {
		errno = -n;
		return -1;
	}
	return n;
}

int ntp_host__read_counters(struct ntp_host_collector *c, uint64_t cnt[NTP_CNT_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;
	__u32 key;
	int i, err = 0;

	if (ncpu <= 0)
		return -1;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -1;
	for (key = 0; key < NTP_CNT_MAX; key++) {
		cnt[key] = 0;
		if (bpf_map__lookup_elem(c->skel->maps.counters, &key, sizeof(key), v,
					 ncpu * sizeof(*v), 0)) {
			err = -1;
			continue;
		}
		for (i = 0; i < ncpu; i++)
			cnt[key] += v[i];
	}
	free(v);
	return err;
}

const struct ntp_host_hook *ntp_host__hooks(const struct ntp_host_collector *c)
{
	return c->hooks;
}

int ntp_host__programs(const struct ntp_host_collector *c)
{
	return c->nprogs;
}

void ntp_host__stop(struct ntp_host_collector *c)
{
	if (c)
		ntp_host__detach(c->skel);
}

void ntp_host__free(struct ntp_host_collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	ntp_host__destroy(c->skel);
	free(c);
}
