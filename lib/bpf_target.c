// SPDX-License-Identifier: GPL-2.0
/*
 * The target collector's user-space half: choose the hooks this kernel offers
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

#include "target.skel.h"
#include "lib/bpf_target.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/kernel_probe.h"

struct ntp_target_collector {
	struct ntp_target *skel;
	struct ring_buffer *rb;
	ntp_target_event_fn fn;
	void *ctx;
	int stop_code;
	int nprogs;
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
	struct btf *vmlinux, *nvmet, *tcp;
};

static void kbtf_free(struct kbtf *k)
{
	btf__free(k->tcp);
	btf__free(k->nvmet);
	btf__free(k->vmlinux);
}

static int kbtf_load(struct kbtf *k)
{
	static const char *const mods[] = { "nvmet", "nvmet_tcp" };
	struct btf **dst[] = { &k->nvmet, &k->tcp };
	size_t i;

	k->vmlinux = btf__load_vmlinux_btf();
	if (!k->vmlinux) {
		ntp_error("cannot read the kernel's BTF: /sys/kernel/btf/vmlinux: %s", strerror(errno));
		return NTP_EXIT_UNSUPPORTED;
	}
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		if (!ntp_probe__module_loaded(mods[i])) {
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

/* t_submit: every backend's execute function this kernel has (passthru is not built everywhere) */
static int choose_submit(struct ntp_target_collector *c, const struct kbtf *k)
{
	struct ntp_target *s = c->skel;
	struct {
		struct bpf_program *p;
		const char *func;
	} backends[] = {
		{ s->progs.bdev_execute_rw, "nvmet_bdev_execute_rw" },
		{ s->progs.file_execute_rw, "nvmet_file_execute_rw" },
		{ s->progs.passthru_execute_cmd, "nvmet_passthru_execute_cmd" },
	};
	const char *missing = "";
	size_t i, len = 0;
	int n = 0;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		bool have = has_func(k->nvmet, backends[i].func);

		bpf_program__set_autoload(backends[i].p, have);
		if (!have) {
			missing = backends[i].func;
			continue;
		}
		len += snprintf(c->submit_hooks + len, sizeof(c->submit_hooks) - len, "%s%s",
				n ? "," : "", backends[i].func);
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

/* pick the programs this kernel can run, and say why, per stage boundary */
static int choose_hooks(struct ntp_target_collector *c, const struct kbtf *k)
{
	struct ntp_target *s = c->skel;
	struct ntp_target_hook *h = c->hooks;
	const struct {
		const struct btf *btf;
		const char *mod, *func;
	} required[] = {
		{ k->nvmet, "nvmet", "nvmet_req_init" },
		{ k->nvmet, "nvmet", "nvmet_req_complete" },
		{ k->tcp, "nvmet_tcp", "nvmet_tcp_queue_response" },
	};
	bool direct;
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!has_func(required[i].btf, required[i].func)) {
			ntp_error("kernel lacks %s in %s's BTF", required[i].func, required[i].mod);
			return NTP_EXIT_UNSUPPORTED;
		}
	}

	set_hook(&h[0], "t_recv", "nvmet_req_init", "fentry",
		 "the sampling decision: the capsule is parsed, its SQE in req->cmd");
	set_hook(&h[1], "t_r2t", "nvmet_tcp_queue_response", "fentry",
		 "R2T queued: the first call for a write whose data is not all received");
	choose_submit(c, k);
	set_hook(&h[3], "t_cmpl", "nvmet_req_complete", "fentry", "the backend is done");

	direct = has_func(k->tcp, "nvmet_try_send_response");
	if (!direct && !has_func(k->tcp, "nvmet_setup_response_pdu")) {
		ntp_error("kernel lacks both nvmet_try_send_response and nvmet_setup_response_pdu "
			  "in nvmet_tcp's BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	bpf_program__set_autoload(s->progs.try_send_response, direct);
	bpf_program__set_autoload(s->progs.setup_response_pdu, !direct);
	if (direct)
		set_hook(&h[4], "t_sent", "nvmet_try_send_response", "fexit",
			 "returned 1: the response PDU is all in the socket");
	else
		set_hook(&h[4], "t_sent", "nvmet_setup_response_pdu", "fentry",
			 "nvmet_try_send_response is inlined on this kernel: the closest hook, "
			 "the response PDU built just before it is sent");
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
	c->skel->rodata->sample_one_in = o->sample_one_in;

	err = kbtf_load(&k);
	if (!err)
		err = choose_hooks(c, &k);
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

/* attach one program into the skeleton's link slot, so ntp_target__detach() finds it */
static int attach_one(struct ntp_target_collector *c, struct bpf_program *p, struct bpf_link **slot)
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

int ntp_target__start(struct ntp_target_collector *c, ntp_target_event_fn fn, void *ctx)
{
	struct ntp_target *s = c->skel;
	struct {
		struct bpf_program *p;
		struct bpf_link **l;
	} order[] = {
		/* the response side first, so no sampled command misses its end */
		{ s->progs.try_send_response, &s->links.try_send_response },
		{ s->progs.setup_response_pdu, &s->links.setup_response_pdu },
		{ s->progs.req_complete, &s->links.req_complete },
		{ s->progs.bdev_execute_rw, &s->links.bdev_execute_rw },
		{ s->progs.file_execute_rw, &s->links.file_execute_rw },
		{ s->progs.passthru_execute_cmd, &s->links.passthru_execute_cmd },
		{ s->progs.queue_response, &s->links.queue_response },
		{ s->progs.req_init, &s->links.req_init },
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
			ntp_target__detach(s);
			return err;
		}
	}
	return 0;
}

int ntp_target__poll(struct ntp_target_collector *c, int timeout_ms, int *stop_code)
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

int ntp_target__read_counters(struct ntp_target_collector *c, uint64_t cnt[NTP_CNT_MAX])
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

const struct ntp_target_hook *ntp_target__hooks(const struct ntp_target_collector *c)
{
	return c->hooks;
}

int ntp_target__programs(const struct ntp_target_collector *c)
{
	return c->nprogs;
}

void ntp_target__stop(struct ntp_target_collector *c)
{
	if (c)
		ntp_target__detach(c->skel);
}

void ntp_target__free(struct ntp_target_collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	ntp_target__destroy(c->skel);
	free(c);
}
