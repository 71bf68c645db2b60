// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching programs under a policy, from worker threads, with a watchdog
 * (lib/collect/attach_set.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/attach_set.h"

#define MAX_PROGS 48
#define MSEC_PER_SEC 1000L

enum item_state {
	ST_IDLE,        /* not started */
	ST_ATTACHING,   /* the worker is in the attach syscall */
	ST_ATTACHED,
	ST_FAILED,
	ST_DONE,        /* detached (or never attached), the worker has ended */
};

struct item {
	struct ntp_attach_set *set;
	struct bpf_program *prog;
	__u32 cls;
	enum item_state state;
	struct bpf_link *link;
	int err;                /* errno of a failed attach */
	bool detach;            /* told to detach */
	bool thread;            /* a worker was started */
	pthread_t tid;
};

struct ntp_attach_set {
	const char *name;
	pthread_mutex_t lock;
	pthread_cond_t cond;    /* any item's state changed, or detach was asked */
	int n;
	struct item items[MAX_PROGS];
};

static struct timespec deadline_in(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / MSEC_PER_SEC;
	t.tv_nsec += (ms % MSEC_PER_SEC) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

struct ntp_attach_set *ntp_attach_set__new(const char *name)
{
	struct ntp_attach_set *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s)
		return NULL;
	s->name = name;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	return s;
}

int ntp_attach_set__add(struct ntp_attach_set *s, struct bpf_program *p, __u32 cls)
{
	struct item *it;

	if (!p || !bpf_program__autoload(p))
		return 0;
	if (s->n == MAX_PROGS)
		return -E2BIG;
	it = &s->items[s->n++];
	it->set = s;
	it->prog = p;
	it->cls = cls;
	return 0;
}

/* attach, then hold the link until told to detach: the attach may never return in time */
static void *worker(void *arg)
{
	struct item *it = arg;
	struct ntp_attach_set *s = it->set;
	struct bpf_link *link;
	int err;

	errno = 0;
	link = bpf_program__attach(it->prog);
	err = link ? 0 : errno ? errno : EINVAL;

	pthread_mutex_lock(&s->lock);
	it->link = link;
	it->err = err;
	it->state = link ? ST_ATTACHED : ST_FAILED;
	pthread_cond_broadcast(&s->cond);
	while (!it->detach)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);

	/* the last detach of a function waits for an RCU-tasks grace period */
	bpf_link__destroy(link);

	pthread_mutex_lock(&s->lock);
	it->link = NULL;
	it->state = ST_DONE;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int start(struct item *it)
{
	int err;

	it->state = ST_ATTACHING;
	err = pthread_create(&it->tid, NULL, worker, it);
	if (err) {
		it->state = ST_FAILED;
		it->err = err;
		return err;
	}
	it->thread = true;
	return 0;
}

static int attaching(const struct ntp_attach_set *s, __u32 cls)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->items[i].cls == cls && s->items[i].state == ST_ATTACHING;
	return n;
}

/* the first failed item of cls, or NULL */
static struct item *failed(struct ntp_attach_set *s, __u32 cls)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].cls == cls && s->items[i].state == ST_FAILED)
			return &s->items[i];
	return NULL;
}

static struct item *first_attaching(struct ntp_attach_set *s, __u32 cls)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].cls == cls && s->items[i].state == ST_ATTACHING)
			return &s->items[i];
	return NULL;
}

/*
 * Start the workers of cls (only the first one when one_only), then wait until
 * all of them returned or timeout_ms passed (< 0: no limit).  Called and
 * returns with s->lock held.  0: every one attached; -ETIMEDOUT; or -errno of
 * the first failure.
 */
static int attach_class(struct ntp_attach_set *s, __u32 cls, bool one_only, long timeout_ms)
{
	struct timespec dl = deadline_in(timeout_ms < 0 ? 0 : timeout_ms);
	struct item *f;
	int i, err;

	for (i = 0; i < s->n; i++) {
		if (s->items[i].cls != cls || s->items[i].state != ST_IDLE)
			continue;
		err = start(&s->items[i]);
		if (err)
			return -err;
		if (one_only)
			break;
	}
	while (attaching(s, cls)) {
		if (timeout_ms < 0) {
			pthread_cond_wait(&s->cond, &s->lock);
			continue;
		}
		if (pthread_cond_timedwait(&s->cond, &s->lock, &dl) == ETIMEDOUT && attaching(s, cls))
			return -ETIMEDOUT;
	}
	f = failed(s, cls);
	return f ? -f->err : 0;
}

/* tell the workers of cls (all classes: 0) to detach; they do so in parallel */
static void release(struct ntp_attach_set *s, __u32 cls)
{
	int i;

	for (i = 0; i < s->n; i++) {
		struct item *it = &s->items[i];

		if (cls && it->cls != cls)
			continue;
		if (!it->thread) {
			it->state = ST_DONE;
			continue;
		}
		it->detach = true;
	}
	pthread_cond_broadcast(&s->cond);
}

static const char *prog_desc(const struct item *it)
{
	return bpf_program__section_name(it->prog);
}

static int exit_code(int err)
{
	return err == EPERM || err == EACCES ? NTP_EXIT_NOPERM : NTP_EXIT_FAILURE;
}

/* the policy's fentry attempt; 0, or why not (in why) and the error */
static int try_fentry(struct ntp_attach_set *s, bool wait, char *why, size_t len)
{
	long t = NTP_ATTACH_FENTRY_TIMEOUT_S * MSEC_PER_SEC;
	struct item *it;
	int err;

	/*
	 * One attach alone first: on 6.1 the first direct-call trampoline of the
	 * system is the one that waits for RCU-tasks, and its program is inert
	 * until run_flavours says otherwise.
	 */
	err = attach_class(s, NTP_RUN_FENTRY, true, t);
	if (!err)
		err = attach_class(s, NTP_RUN_FENTRY, false, t);
	if (err == -ETIMEDOUT && wait) {
		it = first_attaching(s, NTP_RUN_FENTRY);
		ntp_warn("%s: the fentry attach of %s has not returned in %d s: the kernel waits "
			 "for an RCU-tasks grace period, which a busy kernel thread (an io_uring "
			 "SQPOLL poller?) holds up; --fentry waits for it (--kprobes would not)",
			 s->name, it ? prog_desc(it) : "?", NTP_ATTACH_FENTRY_TIMEOUT_S);
		err = attach_class(s, NTP_RUN_FENTRY, false, -1);
	}
	if (err == -ETIMEDOUT) {
		it = first_attaching(s, NTP_RUN_FENTRY);
		snprintf(why, len, "the fentry attach of %s did not return within %d s "
			 "(an RCU-tasks grace period held up by a busy kernel thread?)",
			 it ? prog_desc(it) : "?", NTP_ATTACH_FENTRY_TIMEOUT_S);
	} else if (err) {
		it = failed(s, NTP_RUN_FENTRY);
		snprintf(why, len, "attaching %s failed: %s", it ? prog_desc(it) : "?", strerror(-err));
	}
	return err;
}

/* whether cls has items not started */
static bool idle(const struct ntp_attach_set *s, __u32 cls)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].cls == cls && s->items[i].state == ST_IDLE)
			return true;
	return false;
}

/*
 * Attach cls, all at once, or one after another in the order they were
 * added (in_order: a tracepoint's programs run in the order they were
 * attached); or say why not.
 */
static int attach_or_fail(struct ntp_attach_set *s, __u32 cls, bool in_order)
{
	long t = NTP_ATTACH_FENTRY_TIMEOUT_S * MSEC_PER_SEC;
	struct item *it;
	int err;

	do
		err = attach_class(s, cls, in_order, t);
	while (!err && in_order && idle(s, cls));

	if (!err)
		return 0;
	if (err == -ETIMEDOUT) {
		it = first_attaching(s, cls);
		ntp_error("%s: attaching %s: no answer from the kernel in %d s", s->name,
			  it ? prog_desc(it) : "?", NTP_ATTACH_FENTRY_TIMEOUT_S);
		return NTP_EXIT_FAILURE;
	}
	it = failed(s, cls);
	ntp_error("%s: attaching %s: %s", s->name, it ? prog_desc(it) : "?", strerror(-err));
	return exit_code(-err);
}

static int attach_locked(struct ntp_attach_set *s, enum ntp_attach_policy policy, __u32 loaded,
			 const char *no_fentry, const char *no_kprobe, struct ntp_attach_result *res)
{
	char why[sizeof(res->why)] = "";
	int err;

	switch (policy) {
	case NTP_ATTACH_FENTRY:
		if (!(loaded & NTP_RUN_FENTRY)) {
			ntp_error("%s: --fentry: %s", s->name, no_fentry ? no_fentry : "no fentry programs");
			return NTP_EXIT_UNSUPPORTED;
		}
		err = try_fentry(s, true, why, sizeof(why));
		if (err) {
			ntp_error("%s: --fentry: %s", s->name, why);
			return exit_code(-err);
		}
		res->mode = NTP_RUN_FENTRY;
		return 0;
	case NTP_ATTACH_KPROBE:
		if (!(loaded & NTP_RUN_KPROBE)) {
			ntp_error("%s: --kprobes: %s", s->name, no_kprobe ? no_kprobe : "no kprobe programs");
			return NTP_EXIT_UNSUPPORTED;
		}
		err = attach_or_fail(s, NTP_RUN_KPROBE, false);
		if (!err)
			res->mode = NTP_RUN_KPROBE;
		return err;
	case NTP_ATTACH_AUTO:
		break;
	}

	if (loaded & NTP_RUN_FENTRY) {
		if (!try_fentry(s, false, why, sizeof(why))) {
			res->mode = NTP_RUN_FENTRY;
			return 0;
		}
		/* the fentry links made are inert: let them go (a stuck one goes when it returns) */
		release(s, NTP_RUN_FENTRY);
	} else {
		snprintf(why, sizeof(why), "%s", no_fentry ? no_fentry : "no fentry programs");
	}
	if (loaded & NTP_RUN_KPROBE) {
		ntp_warn("%s: %s: using kprobes", s->name, why);
		err = attach_or_fail(s, NTP_RUN_KPROBE, false);
		if (!err)
			res->mode = NTP_RUN_KPROBE;
		snprintf(res->why, sizeof(res->why), "%s", why);
		return err;
	}
	if (loaded & NTP_RUN_TP) {
		ntp_warn("%s: %s, and %s: using tracepoints only, with fewer stages", s->name, why,
			 no_kprobe ? no_kprobe : "no kprobe programs");
		err = attach_or_fail(s, NTP_RUN_TP, false);
		if (!err)
			res->mode = NTP_RUN_TP;
		snprintf(res->why, sizeof(res->why), "%s; %s", why,
			 no_kprobe ? no_kprobe : "no kprobe programs");
		return err;
	}
	ntp_error("%s: %s, and %s", s->name, why, no_kprobe ? no_kprobe : "no kprobe programs");
	return NTP_EXIT_UNSUPPORTED;
}

int ntp_attach_set__attach(struct ntp_attach_set *s, enum ntp_attach_policy policy, __u32 loaded,
			   const char *no_fentry, const char *no_kprobe,
			   volatile __u32 *run_flavours, struct ntp_attach_result *res)
{
	double t0 = now_s();
	int err;

	memset(res, 0, sizeof(*res));
	*run_flavours = 0;      /* every program inert until the flavour is settled */
	pthread_mutex_lock(&s->lock);
	err = attach_locked(s, policy, loaded, no_fentry, no_kprobe, res);
	if (!err) {
		/* turn the chosen flavour on before the decision hook, so no sample misses its end */
		*run_flavours = res->mode;
		__sync_synchronize();
		err = attach_or_fail(s, NTP_RUN_SAMPLE, true);
	}
	pthread_mutex_unlock(&s->lock);
	if (!err)
		*run_flavours = res->mode | NTP_RUN_SAMPLE;
	res->seconds = now_s() - t0;
	return err;
}

/*
 * struct bpf_link_info up to its perf_event.kprobe member (linux/bpf.h of
 * 6.7 and later; the headers of the build machine may be older): the
 * kernel copies what fits.
 */
struct link_info_kprobe {
	__u32 type;             /* BPF_LINK_TYPE_* */
	__u32 id;
	__u32 prog_id;
	__u32 pad0;
	__u32 perf_type;        /* enum bpf_perf_event_type */
	__u32 pad1;
	__u64 func_name;        /* in: a buffer for the name, none here */
	__u32 name_len;
	__u32 offset;
	__u64 addr;
	__u64 missed;
};

#define LINK_TYPE_PERF_EVENT 7          /* BPF_LINK_TYPE_PERF_EVENT */
#define PERF_EVENT_KPROBE 3             /* BPF_PERF_EVENT_KPROBE */
#define PERF_EVENT_KRETPROBE 4

int ntp_attach_set__kprobe_missed(struct ntp_attach_set *s, __u64 *missed)
{
	int i, n = 0, err = 0;

	*missed = 0;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n; i++) {
		struct item *it = &s->items[i];
		struct link_info_kprobe info;
		__u32 len = sizeof(info);

		const char *sec = bpf_program__section_name(it->prog);

		if (it->cls != NTP_RUN_KPROBE || it->state != ST_ATTACHED || !it->link || it->detach ||
		    (strncmp(sec, "kprobe/", 7) && strncmp(sec, "kretprobe/", 10)))
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_link__fd(it->link), &info, &len)) {
			err = -errno;
			continue;
		}
		n++;
		/* before 6.6 a perf link tells nothing more than its type */
		if (info.type == LINK_TYPE_PERF_EVENT &&
		    (info.perf_type == PERF_EVENT_KPROBE || info.perf_type == PERF_EVENT_KRETPROBE))
			*missed += info.missed;
	}
	pthread_mutex_unlock(&s->lock);
	return n ? n : err;
}

int ntp_attach_set__programs(const struct ntp_attach_set *s)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->items[i].state == ST_ATTACHED && !s->items[i].detach;
	return n;
}

/* wait up to ms for every worker to end; returns how many have not */
static int wait_done(struct ntp_attach_set *s, long ms)
{
	struct timespec dl = deadline_in(ms);
	int i, left;

	for (;;) {
		left = 0;
		for (i = 0; i < s->n; i++)
			left += s->items[i].state != ST_DONE;
		if (!left || pthread_cond_timedwait(&s->cond, &s->lock, &dl) == ETIMEDOUT)
			break;
	}
	if (left) {
		left = 0;
		for (i = 0; i < s->n; i++)
			left += s->items[i].state != ST_DONE;
	}
	return left;
}

int ntp_attach_set__detach(struct ntp_attach_set *s, volatile __u32 *run_flavours)
{
	int left;

	if (!s)
		return 0;
	*run_flavours &= ~(__u32)NTP_RUN_SAMPLE;
	pthread_mutex_lock(&s->lock);
	release(s, 0);
	left = wait_done(s, NTP_ATTACH_FENTRY_TIMEOUT_S * MSEC_PER_SEC);
	pthread_mutex_unlock(&s->lock);
	return left;
}

bool ntp_attach_set__free(struct ntp_attach_set *s, volatile __u32 *run_flavours)
{
	int i, left;

	if (!s)
		return false;
	left = ntp_attach_set__detach(s, run_flavours);
	if (left) {
		/*
		 * A worker is still in the kernel: leave it the set.  The kernel
		 * finishes the attach or detach when the busy thread sleeps, and
		 * this process cannot end before (its exit waits for the thread).
		 */
		*run_flavours = 0;
		ntp_warn("%s: %d program%s still waiting in the kernel for an RCU-tasks grace period "
			 "(a busy kernel thread?); they stay inert, and ntprof ends once the kernel "
			 "lets them go", s->name, left, left == 1 ? " is" : "s are");
		for (i = 0; i < s->n; i++)
			if (s->items[i].thread)
				pthread_detach(s->items[i].tid);
		return true;
	}
	for (i = 0; i < s->n; i++)
		if (s->items[i].thread)
			pthread_join(s->items[i].tid, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return false;
}
