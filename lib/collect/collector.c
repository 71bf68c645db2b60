// SPDX-License-Identifier: GPL-2.0
/* The collectors' common core (lib/collect/collector.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/attach_set.h"
#include "lib/collect/bpf_reader.h"
#include "lib/collect/collector.h"
#include "lib/collect/inflight_expire.h"
#include "bpf/ntp_slots.h"
#include "lib/collect/kernel_probe.h"

/*
 * The program libbpf last said it could not load ("prog 'NAME': failed to
 * load"), for prepare to know which hook the kernel refused.
 */
static char refused_prog[64];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char refused[] = "libbpf: prog '%s': failed to load";

	if (level == LIBBPF_WARN && !strncmp(fmt, refused, sizeof(refused) - 1)) {
		va_list aq;

		va_copy(aq, ap);
		snprintf(refused_prog, sizeof(refused_prog), "%s", va_arg(aq, const char *));
		va_end(aq);
	}
	if (ntp_err__verbosity() < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void *ntp_collector__alloc(size_t size)
{
	void *c;

	libbpf_set_print(libbpf_log);
	c = calloc(1, size);
	if (!c)
		ntp_error("out of memory");
	return c;
}

int ntp_collector__size_hists(struct ntp_collector *core, bool hist_mode)
{
	if (hist_mode || (!bpf_map__set_max_entries(core->hists, 1) &&
			  !bpf_map__set_max_entries(core->queues, 1)))
		return 0;
	ntp_error("sizing the histograms' maps: %s", strerror(errno));
	return -1;
}

void ntp_hook__set(struct ntp_hook *h, const char *point, const char *hook, const char *flavour,
		   const char *fmt, ...)
{
	va_list ap;

	h->point = point;
	h->hook = hook;
	h->flavour = flavour;
	va_start(ap, fmt);
	vsnprintf(h->reason, sizeof(h->reason), fmt, ap);
	va_end(ap);
}

void ntp_collector__fhook(struct ntp_collector *c, int i, const char *func, const char *proto,
			  struct bpf_program *fe0, struct bpf_program *fe1, struct bpf_program *kp0,
			  struct bpf_program *kp1)
{
	struct ntp_fhook *h = &c->fh[i];

	h->func = func;
	h->proto = proto;
	h->want = false;
	h->fe[0] = fe0;
	h->fe[1] = fe1;
	h->kp[0] = kp0;
	h->kp[1] = kp1;
}

void ntp_collector__add_tp(struct ntp_collector *c, struct bpf_program *p, __u32 cls)
{
	if (c->ntps >= NTP_COLLECTOR_MAX_TPS)
		return;         /* a collector with more must raise the limit: its tests show it */
	c->tps[c->ntps].prog = p;
	c->tps[c->ntps].cls = cls;
	c->ntps++;
}

void ntp_collector__tp_class(struct ntp_collector *c, struct bpf_program *p, __u32 cls)
{
	int i;

	for (i = 0; i < c->ntps; i++)
		if (c->tps[i].prog == p)
			c->tps[i].cls = cls;
}

static bool in_list(const char *list, const char *name);

/* why the kernel refused a program of hook before, or NULL */
static const char *refused_why(const struct ntp_collector *c, const char *hook)
{
	int i;

	for (i = 0; i < c->nfailed; i++)
		if (!strcmp(c->failed[i].hook, hook))
			return c->failed[i].why;
	return NULL;
}

/* "(a*, b*) -> i4" from a prototype's words, for people */
static void proto_text(const char *proto, char *buf, size_t len)
{
	const char *ret = strstr(proto, "->");
	size_t n = ret ? (size_t)(ret - proto) : strlen(proto);
	size_t i, used = 0;

	if (len < 4)
		return;
	buf[used++] = '(';
	for (i = 0; i < n && used + 3 < len; i++) {
		buf[used++] = proto[i];
		if (proto[i] == ',')
			buf[used++] = ' ';
	}
	buf[used++] = ')';
	buf[used] = '\0';
	if (ret)
		snprintf(buf + used, len - used, " -> %s", ret + 2);
}

static bool proto_usable(const char *name, const char *want, const char *have, int err,
			 const char *mod, const char *refused, char *why, size_t len)
{
	char h[160], w[160];

	if (refused) {
		snprintf(why, len, "%s", refused);
		return false;
	}
	if (err) {
		snprintf(why, len, "%s is not in %s's BTF", name, mod);
		return false;
	}
	if (want && !ntp_probe__proto_fits(want, have)) {
		proto_text(have, h, sizeof(h));
		proto_text(want, w, sizeof(w));
		snprintf(why, len, "%s on this kernel is %s, not the %s its program reads", name, h, w);
		return false;
	}
	return true;
}

bool ntp_collector__usable(struct ntp_collector *c, int i, const struct btf *btf, const char *mod)
{
	const struct ntp_fhook *f = &c->fh[i];
	char have[256] = "";
	int err = ntp_probe__btf_func_proto(btf, f->func, have, sizeof(have));
	const char *wrong = getenv("NTPROF_WRONG_PROTO");

	c->fh_why[i][0] = '\0';
	/* the testing aid: a program for another prototype than this kernel's, none for its own */
	if (!err && wrong && in_list(wrong, f->func) && !refused_why(c, f->func)) {
		if (!f->proto || !ntp_probe__proto_fits(f->proto, have))
			return true;
		snprintf(c->fh_why[i], sizeof(c->fh_why[i]), "%s: its program for this kernel's "
			 "prototype is left out (NTPROF_WRONG_PROTO)", f->func);
		return false;
	}
	return proto_usable(f->func, f->proto, have, err, mod, refused_why(c, f->func), c->fh_why[i],
			    sizeof(c->fh_why[i]));
}

bool ntp_collector__tp_usable(const struct ntp_collector *c, const char *tp, const char *proto,
			      const struct btf *btf, const char *mod, char *why, size_t len)
{
	char have[256] = "", name[80], key[80];
	int err = ntp_probe__btf_tp_proto(btf, tp, have, sizeof(have));

	snprintf(name, sizeof(name), "the %s tracepoint", tp);
	snprintf(key, sizeof(key), "tp/%s", tp);
	if (len)
		why[0] = '\0';
	return proto_usable(name, proto, have, err, mod, refused_why(c, key), why, len);
}

static void kbtf_free(struct ntp_kbtf *k)
{
	btf__free(k->mod[1]);
	btf__free(k->mod[0]);
	btf__free(k->vmlinux);
}

/* the modules in c->mods' order: the first one missing is the one reported */
static int kbtf_load(struct ntp_kbtf *k, const struct ntp_collector *c)
{
	size_t i;

	k->vmlinux = btf__load_vmlinux_btf();
	if (!k->vmlinux) {
		ntp_error("cannot read the kernel's BTF: /sys/kernel/btf/vmlinux: %s", strerror(errno));
		return NTP_EXIT_UNSUPPORTED;
	}
	for (i = 0; i < 2; i++) {
		const char *mod = c->mods[i];

		if (!ntp_probe__module_loaded(mod)) {
			ntp_error("module %s is not loaded: %s", mod, c->no_module);
			return NTP_EXIT_UNSUPPORTED;
		}
		if (!ntp_probe__module_btf(mod)) {
			ntp_error("kernel has no BTF for module %s: /sys/kernel/btf/%s is missing "
				  "(needs CONFIG_DEBUG_INFO_BTF_MODULES: Linux 5.11 and later)", mod, mod);
			return NTP_EXIT_UNSUPPORTED;
		}
		k->mod[i] = btf__load_module_btf(mod, k->vmlinux);
		if (!k->mod[i]) {
			ntp_error("cannot read the BTF of module %s: /sys/kernel/btf/%s: %s", mod, mod,
				  strerror(errno));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	return 0;
}

/* the flavours this policy and kernel allow, and the programs to load for them */
static int choose_flavours(struct ntp_collector *c, const struct ntp_kbtf *k)
{
	ntp_attach__probe_caps(&c->caps, c->policy);
	c->loaded = ntp_attach__plan(c->fh, c->nfh, c->required, &c->caps);
	c->ops->choose_tracepoints(c, k);

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

/* name is in the comma-separated list */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = list; p && (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* the hook of a program: its section's name after the slash (fentry/nvmet_req_init) */
static const char *prog_hook(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p), *slash = strchr(sec, '/');

	return slash ? slash + 1 : sec;
}

/* a tracepoint program (tp_btf/, raw_tp/), not a function hook's */
static bool prog_is_tp(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	return !strncmp(sec, "tp_btf/", 7) || !strncmp(sec, "raw_tp/", 7);
}

/* the key of a program's hook in failed[]: a function's name, or "tp/" and a tracepoint's */
static void hook_key(const struct bpf_program *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", prog_is_tp(p) ? "tp/" : "", prog_hook(p));
}

/*
 * NTPROF_FAIL_LOAD: every program to load on the hooks it names (a kernel
 * function: all its fentry, fexit, kprobe and kretprobe programs; or one
 * section, FLAVOUR/NAME, tp_btf/NAME for a tracepoint) gets a program flag
 * no kernel knows, so that the kernel refuses it (EINVAL).
 */
#define NTP_FAIL_LOAD_FLAG (1U << 31)

static void fail_on_purpose(struct ntp_collector *c)
{
	const char *env = getenv("NTPROF_FAIL_LOAD");
	struct bpf_program *p;

	if (!env || !*env)
		return;
	bpf_object__for_each_program(p, c->obj) {
		if (!bpf_program__autoload(p))
			continue;
		if ((!prog_is_tp(p) && in_list(env, prog_hook(p))) ||
		    in_list(env, bpf_program__section_name(p)))
			bpf_program__set_flags(p, bpf_program__flags(p) | NTP_FAIL_LOAD_FLAG);
	}
}

/* the flavour of a program, from its section: fentry, kprobe, tp_btf, ... */
static void prog_flavour(const struct bpf_program *p, char *buf, size_t len)
{
	const char *sec = bpf_program__section_name(p), *slash = strchr(sec, '/');
	size_t n = slash ? (size_t)(slash - sec) : strlen(sec);

	snprintf(buf, len, "%.*s", (int)n, sec);
}

/*
 * The load failed with err: when libbpf named the program and it belongs to
 * a hook not set aside yet, set the hook aside (true), to load again without it.
 */
static bool set_aside(struct ntp_collector *c, int err)
{
	struct ntp_failed_hook *f;
	struct bpf_program *p;
	char flavour[16], key[sizeof(f->hook)];

	p = *refused_prog ? bpf_object__find_program_by_name(c->obj, refused_prog) : NULL;
	if (!p)
		return false;
	hook_key(p, key, sizeof(key));
	if (c->nfailed == NTP_COLLECTOR_MAX_FAILED || refused_why(c, key))
		return false;
	f = &c->failed[c->nfailed++];
	snprintf(f->hook, sizeof(f->hook), "%s", key);
	prog_flavour(p, flavour, sizeof(flavour));
	snprintf(f->why, sizeof(f->why), "%s%s: its %s program failed to load: %s%s",
		 prog_is_tp(p) ? "the tracepoint " : "", prog_hook(p), flavour, strerror(-err),
		 bpf_program__flags(p) & NTP_FAIL_LOAD_FLAG ? " (NTPROF_FAIL_LOAD)" : "");
	ntp_warn("%s: %s; loading the %s programs again without it", c->name, f->why, c->name);
	return true;
}

/* one try: 0, -EAGAIN when a hook was set aside (try again), or an NTP_EXIT_* code */
static int prepare_once(struct ntp_collector *c)
{
	struct ntp_kbtf k = {};
	int i, err;

	for (i = 0; i < NTP_COLLECTOR_MAX_HOOKS; i++)
		c->point_fh[i] = -1;
	c->decision = c->fabric = NULL;
	err = kbtf_load(&k, c);
	if (!err) {
		c->kprobe_missed_told = ntp_probe__btf_member(k.vmlinux, "bpf_link_info",
							      "perf_event.kprobe.missed");
		err = c->ops->choose_hooks(c, &k);
	}
	if (!err)
		err = choose_flavours(c, &k);
	kbtf_free(&k);
	if (err)
		return err;
	fail_on_purpose(c);
	refused_prog[0] = '\0';
	err = c->ops->load(c);
	if (!err)
		return 0;
	if (set_aside(c, err))
		return -EAGAIN;
	ntp_error("loading the %s BPF programs: %s%s%s%s", c->name, strerror(-err),
		  *refused_prog ? ": program " : "", refused_prog,
		  ntp_err__verbosity() < 2 ? " (-v shows libbpf's log)" : "");
	return NTP_EXIT_FAILURE;
}

/* after the hooks were set aside: what each point they served has now */
static void tell_fallbacks(const struct ntp_collector *c)
{
	int i, j;

	for (i = 0; i < c->nfailed; i++)
		for (j = 0; j < c->nhooks; j++)
			if (c->hooks[j].point && strstr(c->hooks[j].reason, c->failed[i].why))
				ntp_warn("%s: %s now: %s (%s)", c->name, c->hooks[j].point,
					 c->hooks[j].hook, c->hooks[j].flavour);
}

int ntp_collector__prepare(struct ntp_collector *c)
{
	int tries, err;

	err = c->ops->open(c);
	for (tries = 0; !err; tries++) {
		err = prepare_once(c);
		if (err != -EAGAIN)
			break;
		c->ops->destroy(c);
		c->ntps = 0;
		err = c->ops->open(c);
	}
	if (err) {
		c->ops->destroy(c);
		free(c);
		return err;
	}
	if (tries)
		tell_fallbacks(c);
	return 0;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct ntp_collector *c = ctx;
	int code = c->ops->deliver(c, data, size);

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
static void apply_flavours(const struct ntp_collector *c, struct ntp_hook *hooks, __u32 mode,
			   const char *why)
{
	char base[sizeof(hooks[0].reason)];
	const char *cause, *note;
	int i;

	if (mode == NTP_RUN_FENTRY && !*why)
		return;
	for (i = 0; i < c->nhooks; i++) {
		struct ntp_hook *h = &hooks[i];
		const struct ntp_fhook *f = c->point_fh[i] >= 0 ? &c->fh[c->point_fh[i]] : NULL;

		/* a derived point, or one this kernel has no hook for */
		if (!f && (mode != NTP_RUN_TP || c->tp_keep_unhooked))
			continue;
		if (mode == NTP_RUN_TP) {
			const struct ntp_tp_row *t = &c->tp_rows[i];

			if (t->hook)
				ntp_hook__set(h, h->point, t->hook, c->caps.tp_btf ? "tp_btf" : "raw_tp",
					      "tracepoints only (%s): %s", why, t->why);
			else
				ntp_hook__set(h, h->point, "none", "none", "tracepoints only (%s): "
					      "no tracepoint for this point", why);
			continue;
		}
		snprintf(base, sizeof(base), "%s", h->reason);
		h->flavour = ntp_attach__flavour(f, mode);
		if (!strcmp(h->flavour, "none")) {
			ntp_hook__set(h, h->point, "none", "none", "%s has no kprobe (not in /proc/kallsyms)",
				      f->func);
			continue;
		}
		cause = c->policy == NTP_ATTACH_KPROBE ? "--kprobes" : why;
		note = mode == NTP_RUN_KPROBE && c->kprobe_note[i] ? c->kprobe_note[i] : "";
		ntp_hook__set(h, h->point, h->hook, h->flavour, "%s%s%s%s", cause, *cause ? ": " : "",
			      base, note);
	}
}

int ntp_collector__start(struct ntp_collector *c)
{
	struct ntp_attach_result res;
	int i, j, err;

	c->rb = ring_buffer__new(bpf_map__fd(c->events), on_sample, c, NULL);
	if (!c->rb) {
		ntp_error("creating the ring buffer reader: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	c->set = ntp_attach_set__new(c->name);
	if (!c->set) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	/* the last function hook (a completion side) first, as the first fentry attach is the probe */
	for (i = c->nfh - 1; i >= 0; i--) {
		for (j = 0; j < 2; j++) {
			ntp_attach_set__add(c->set, c->fh[i].fe[j], NTP_RUN_FENTRY);
			ntp_attach_set__add(c->set, c->fh[i].kp[j], NTP_RUN_KPROBE);
		}
	}
	for (i = 0; i < c->ntps; i++)
		ntp_attach_set__add(c->set, c->tps[i].prog, c->tps[i].cls);

	err = ntp_attach_set__attach(c->set, c->policy, c->loaded, c->caps.no_fentry,
				     c->caps.no_kprobe, c->run_flavours, &res);
	if (err)
		return err;
	apply_flavours(c, c->hooks, res.mode, res.why);
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void deliver_parked(const void *value, size_t size, void *arg)
{
	struct ntp_collector *c = arg;
	int err = c->ops->deliver(c, value, size);

	c->parked_written++;
	if (err && !c->parked_err)
		c->parked_err = err;
}

/* the records of c's parked maps older than limit_ns (or all: NTP_INFLIGHT_ALL) out */
static void take_parked(struct ntp_collector *c, uint64_t now, uint64_t limit_ns)
{
	int i;

	for (i = 0; i < c->nparked; i++) {
		const struct ntp_parked *p = &c->parked[i];
		long n;

		if (p->slots.base)
			n = ntp_inflight__take_slots(&p->slots, p->rec_off,
						     bpf_map__value_size(p->map) - p->rec_off, p->ts_off,
						     now, limit_ns, p->record ? deliver_parked : NULL, c);
		else if (bpf_map__type(p->map) == BPF_MAP_TYPE_ARRAY)
			continue;       /* not mapped: its BPF side keeps nothing there */
		else
			n = ntp_inflight__take(bpf_map__fd(p->map), bpf_map__key_size(p->map),
					       bpf_map__value_size(p->map), p->ts_off, now, limit_ns,
					       p->record ? deliver_parked : NULL, c);

		if (n < 0)
			ntp_debug("%s: sweep of map %s: %s", c->name, bpf_map__name(p->map),
				  strerror((int)-n));
		else if (n > 0 && p->live)
			__atomic_fetch_sub(p->live, (__u32)n, __ATOMIC_SEQ_CST);
	}
}

/*
 * Drop the entries of commands that never completed.  rdma_cmds has no
 * timestamp of its own, but its entry lives within the request's inflight
 * entry (added after it, removed before it), so one whose request is no
 * longer in inflight with that command id is stale: that also catches the
 * entries a reuse of the request orphaned, which no age would tell.
 * And write the parked records that waited too long.
 */
static void sweep(struct ntp_collector *c)
{
	uint64_t now = monotonic_ns();
	long n;

	if (!c->inflight || now < c->sweep_next_ns)
		return;
	c->sweep_next_ns = now + NTP_INFLIGHT_SWEEP_NS;
	n = ntp_inflight__expire(bpf_map__fd(c->inflight), bpf_map__value_size(c->inflight),
				 c->inflight_ts_off, now, NTP_INFLIGHT_EXPIRE_NS);
	if (n > 0)
		c->expired += n;
	else if (n < 0)
		ntp_debug("%s: in-flight map sweep: %s", c->name, strerror(-n));
	n = ntp_inflight__expire_slots(&c->slots, sizeof(struct ntp_rq_slot_head) + c->inflight_ts_off,
				       now, NTP_INFLIGHT_EXPIRE_NS);
	if (n > 0)
		c->expired += n;
	else if (n < 0)
		ntp_debug("%s: in-flight slot sweep: %s", c->name, strerror(-n));
	take_parked(c, now, NTP_PARKED_EXPIRE_NS);
	if (!c->rdma_cmds)
		return;
	n = ntp_inflight__expire_orphans(bpf_map__fd(c->rdma_cmds), bpf_map__fd(c->inflight),
					 bpf_map__value_size(c->inflight), c->inflight_cid_off, &c->slots);
	if (n < 0)
		ntp_debug("%s: RDMA command map sweep: %s", c->name, strerror(-n));
	else if (n > 0)
		ntp_debug("%s: %ld stale RDMA command entries dropped", c->name, n);
}

int ntp_collector__poll(struct ntp_collector *c, int timeout_ms, int *stop_code)
{
	int n = ntp_reader__poll(c->rb, timeout_ms, &c->stop_code, stop_code);
	int saved = errno;

	sweep(c);
	if (n >= 0 && c->parked_err) {
		*stop_code = c->parked_err;
		n = -1;
	}
	errno = saved;
	return n;
}

int ntp_collector__flush_parked(struct ntp_collector *c)
{
	if (!c)
		return 0;
	take_parked(c, monotonic_ns(), NTP_INFLIGHT_ALL);
	if (c->parked_written)
		ntp_debug("%s: %llu records written by user space without the application's stamps "
			  "they waited for", c->name, (unsigned long long)c->parked_written);
	return c->parked_err;
}

uint64_t ntp_collector__expired(const struct ntp_collector *c)
{
	return c->expired;
}

int ntp_collector__read_counters(struct ntp_collector *c, uint64_t cnt[NTP_CNT_MAX])
{
	int err = ntp_reader__sum_counters(c->counters, cnt, NTP_CNT_MAX);
	unsigned int i;

	/* each slot is one aligned 8-byte word the programs add to atomically: a load is exact */
	for (i = 0; c->seen_slots && i < NTP_SEEN_SLOTS; i++)
		cnt[NTP_CNT_SEEN] += c->seen_slots[i].n;
	for (i = 0; c->fabric_slots && i < NTP_SEEN_SLOTS; i++)
		cnt[NTP_CNT_FABRIC] += c->fabric_slots[i].n;
	return err;
}

int ntp_collector__set_flight_floor(struct ntp_collector *c, uint64_t floor)
{
	uint32_t zero = 0;

	return bpf_map_update_elem(bpf_map__fd(c->flight_floor), &zero, &floor, BPF_ANY) ? -errno : 0;
}

bool ntp_collector__blind(const struct ntp_collector *c, const uint64_t cnt[NTP_CNT_MAX], char *msg,
			  size_t len)
{
	const uint64_t seen = cnt[NTP_CNT_SEEN], ref = cnt[NTP_CNT_FABRIC];

	if (!c->fabric || ref < NTP_CROSSCHECK_MIN || seen * 2 >= ref)
		return false;
	snprintf(msg, len, "%s: the decision (%s) saw %llu of the %llu I/O commands %s counted: "
		 "this kernel's hooks do not fit what ntprof reads (ntprof check -r %s says what "
		 "each hook gets); the recording is kept", c->name, c->decision ? c->decision : "?",
		 (unsigned long long)seen, (unsigned long long)ref, c->fabric, c->name);
	return true;
}

void ntp_collector__plan(const struct ntp_collector *c, __u32 mode, const char *why,
			 struct ntp_hook *out)
{
	memcpy(out, c->hooks, c->nhooks * sizeof(c->hooks[0]));
	apply_flavours(c, out, mode, why);
}

int ntp_collector__programs(const struct ntp_collector *c)
{
	return c->set ? ntp_attach_set__programs(c->set) : 0;
}

/* one program's statistics into the sums, each program once (ids seen in ids[]) */
static void add_prog_stats(struct bpf_program *p, __u32 *ids, size_t *nids, size_t max,
			   uint64_t *runs, uint64_t *run_ns)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	size_t i;
	int fd;

	fd = p ? bpf_program__fd(p) : -1;
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	for (i = 0; i < *nids; i++)
		if (ids[i] == info.id)
			return;
	if (*nids < max)
		ids[(*nids)++] = info.id;
	*runs += info.run_cnt;
	*run_ns += info.run_time_ns;
}

void ntp_collector__bpf_stats(const struct ntp_collector *c, uint64_t *runs, uint64_t *run_ns)
{
	__u32 ids[NTP_COLLECTOR_MAX_FH * 4 + NTP_COLLECTOR_MAX_TPS];
	size_t nids = 0, max = sizeof(ids) / sizeof(ids[0]);
	int i, j;

	for (i = 0; i < c->nfh; i++)
		for (j = 0; j < 2; j++) {
			add_prog_stats(c->fh[i].fe[j], ids, &nids, max, runs, run_ns);
			add_prog_stats(c->fh[i].kp[j], ids, &nids, max, runs, run_ns);
		}
	for (i = 0; i < c->ntps; i++)
		add_prog_stats(c->tps[i].prog, ids, &nids, max, runs, run_ns);
}

/* the recursion misses of c's attached programs, but the covered ones', into prog_missed */
static void read_prog_missed(struct ntp_collector *c)
{
	__u32 ids[NTP_COLLECTOR_MAX_FH * 4 + NTP_COLLECTOR_MAX_TPS];
	size_t nids = 0, k;
	struct bpf_program *p;

	c->prog_missed = 0;
	bpf_object__for_each_program(p, c->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0 || p == c->covered[0] || p == c->covered[1] ||
		    bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		for (k = 0; k < nids && ids[k] != info.id; k++)
			;
		if (k < nids)
			continue;
		if (nids < sizeof(ids) / sizeof(ids[0]))
			ids[nids++] = info.id;
		c->prog_missed += info.recursion_misses;
	}
}

void ntp_collector__stop(struct ntp_collector *c)
{
	__u64 missed;

	if (!c || !c->set)
		return;
	read_prog_missed(c);
	/* before the links go; once: a second stop finds none */
	if (ntp_attach_set__kprobe_missed(c->set, &missed) > 0) {
		c->kprobe_links = true;
		c->kprobe_missed = missed;
	}
	ntp_attach_set__detach(c->set, c->run_flavours);
}

void ntp_collector__free(struct ntp_collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	/* a worker still in the kernel uses the programs: then the object stays */
	if (!ntp_attach_set__free(c->set, c->run_flavours))
		c->ops->destroy(c);
	free(c);
}
