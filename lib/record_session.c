// SPDX-License-Identifier: GPL-2.0
/*
 * One recording session: the host collector, the target collector or both
 * in one process (-r both polls the two ring buffers in turn), the writer,
 * the live lines and the workload.  See lib/record.h.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "bpf/ntp_hash.h"
#include "lib/bpf_host.h"
#include "lib/bpf_target.h"
#include "lib/db.h"
#include "lib/err.h"
#include "lib/filter.h"
#include "lib/exit.h"
#include "lib/live.h"
#include "lib/record.h"
#include "lib/version.h"

#define NSEC_PER_SEC 1000000000ULL
#define POLL_MS 100
/* -r both: the host ring waits this long, then the target ring is emptied */
#define POLL_BOTH_MS 10
#define FLUSH_NS NSEC_PER_SEC
/* how long the workload may take to exit after record signals it */
#define CHILD_GRACE_S 5.0

struct side {
	const char *name;               /* "host" / "target" */
	uint64_t prev[NTP_CNT_MAX];     /* the counters at the last intervals row */
};

struct session {
	const struct ntp_record_opts *o;
	struct ntp_writer *w;
	struct ntp_host_collector *hc;
	struct ntp_target_collector *tc;
	struct side host, target;
	struct ntp_live *live;
	struct ntp_live_match *match;   /* -r both with live lines */
	struct ntp_record_child child;
	uint64_t start_ns, last_flush_ns, last_tick_ns;
	/* -r both --session: the namespace's backend on this machine's target, or
	 * (when configfs does not tell) the cntlid of each of its controllers */
	char tgt_device[NTP_DISK_NAME_LEN];
	uint16_t cntlids[NTP_FILTER_MAX_CTRLS];
	unsigned int ncntlids;
	int live_err;                   /* the live lines failed once: said, not again */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* SIGCHLD only has to break the ring buffer's epoll_wait */
static void on_child(int sig)
{
	(void)sig;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: the signal must break the ring buffer's epoll_wait */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

const char *ntp_record__role_name(unsigned int role)
{
	switch (role) {
	case NTP_RECORD_HOST:
		return "host";
	case NTP_RECORD_TARGET:
		return "target";
	case NTP_RECORD_BOTH:
		return "both";
	}
	return "?";
}

static void read_line_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* ---- events ----------------------------------------------------------------- */

static void live_failed(struct session *s, int err)
{
	if (s->live_err)
		return;
	s->live_err = err;
	ntp_warn("live lines stop: %s", strerror(-err));
}

/*
 * The filters again in user space: the collectors apply them where their
 * BPF programs can, this makes sure of it for every kernel and hook.
 */
static bool keep_host(const struct session *s, const struct ntp_host_event *e)
{
	return !s->o->filter || ntp_filter__match_host(s->o->filter, e);
}

/*
 * The target does not know the host's namespace names.  On one machine (-r
 * both) the namespace's subsystem and nsid lead through nvmet's configfs to
 * the backend the target records; failing that, the namespace's
 * controllers tell their cntlid: (cntlid, nsid) is the namespace unless two
 * subsystems exported here share both numbers.
 */
static bool keep_target(const struct session *s, const struct ntp_target_event *e)
{
	const struct ntp_filter *f = s->o->filter;
	unsigned int i;

	if (!f)
		return true;
	if (!ntp_filter__match_target(f, e))
		return false;
	if (!(f->flags & NTP_FILTER_NS) || s->o->role != NTP_RECORD_BOTH)
		return true;
	if (s->tgt_device[0])
		return !strncmp(e->device, s->tgt_device, sizeof(e->device));
	if (e->nsid != f->nsid)
		return false;
	for (i = 0; i < s->ncntlids; i++)
		if (s->cntlids[i] == e->cntlid)
			return true;
	return false;
}

static int on_host_event(void *ctx, const struct ntp_host_event *e)
{
	struct session *s = ctx;
	int err;

	if (!keep_host(s, e))
		return 0;
	if (s->match)
		ntp_live_match__add_host(s->match, e);
	else if (s->live && !s->live_err) {
		err = ntp_live__add_host(s->live, e);
		if (err)
			live_failed(s, err);
	}
	return ntp_writer__add_host_io(s->w, e);
}

static int on_target_event(void *ctx, const struct ntp_target_event *e)
{
	struct session *s = ctx;
	int err;

	if (!keep_target(s, e))
		return 0;
	if (s->match)
		ntp_live_match__add_target(s->match, e);
	else if (s->live && !s->live_err) {
		err = ntp_live__add_target(s->live, e);
		if (err)
			live_failed(s, err);
	}
	return ntp_writer__add_target_io(s->w, e);
}

static int read_counters(struct session *s, struct side *sd, uint64_t cnt[NTP_CNT_MAX])
{
	int err = sd == &s->host ? ntp_host__read_counters(s->hc, cnt) :
		  ntp_target__read_counters(s->tc, cnt);

	if (err) {
		ntp_error("reading the %s collector's counters: %s", sd->name, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* one intervals row per side with the counters' growth since the last, then commit */
static int write_intervals(struct session *s, uint64_t now)
{
	struct side *sides[2] = { s->hc ? &s->host : NULL, s->tc ? &s->target : NULL };
	uint64_t cnt[NTP_CNT_MAX];
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++) {
		struct side *sd = sides[i];
		struct ntp_interval iv = { .t_ns = now };

		if (!sd)
			continue;
		err = read_counters(s, sd, cnt);
		if (err)
			break;
		iv.side = sd->name;
		iv.seen = cnt[NTP_CNT_SEEN] - sd->prev[NTP_CNT_SEEN];
		iv.sampled = cnt[NTP_CNT_SAMPLED] - sd->prev[NTP_CNT_SAMPLED];
		iv.lost_ringbuf = cnt[NTP_CNT_LOST_RINGBUF] - sd->prev[NTP_CNT_LOST_RINGBUF];
		iv.lost_map = cnt[NTP_CNT_LOST_MAP] - sd->prev[NTP_CNT_LOST_MAP];
		memcpy(sd->prev, cnt, sizeof(cnt));
		err = ntp_writer__add_interval(s->w, &iv);
	}
	if (!err)
		err = ntp_writer__flush(s->w);
	s->last_flush_ns = now;
	return err;
}

static void live_tick(struct session *s, uint64_t now)
{
	int n;

	if (!s->live || s->live_err)
		return;
	if (s->match)
		ntp_live_match__expire(s->match, now);
	n = ntp_live__tick(s->live, stdout, (double)(now - s->start_ns) / NSEC_PER_SEC,
			   (double)(now - s->last_tick_ns) / NSEC_PER_SEC);
	if (n < 0)
		live_failed(s, n);
	s->last_tick_ns = now;
}

/* ---- meta and hooks ---------------------------------------------------------- */

/* the filters in force, as meta filter_session, filter_io_type, filter_sizes */
static int write_filter_meta(struct session *s)
{
	const struct ntp_filter *f = s->o->filter;
	char sizes[NTP_FILTER_MAX_SIZES * 12] = "";
	size_t len = 0;
	unsigned int i;
	int err = 0;

	if (!f)
		return 0;
	if ((f->flags & NTP_FILTER_NS) && s->o->filter_session)
		err = ntp_writer__set_meta_text(s->w, "filter_session", s->o->filter_session);
	if (!err && (f->flags & NTP_FILTER_OPCODE))
		err = ntp_writer__set_meta_text(s->w, "filter_io_type", f->opcode == 2 ? "read" : "write");
	if (!err && (f->flags & NTP_FILTER_SIZE)) {
		for (i = 0; i < f->nsizes && i < NTP_FILTER_MAX_SIZES; i++)
			len += snprintf(sizes + len, sizeof(sizes) - len, "%s%u", i ? "," : "", f->sizes[i]);
		err = ntp_writer__set_meta_text(s->w, "filter_sizes", sizes);
	}
	return err;
}

static int write_start_meta(struct session *s, uint64_t start_real_ns)
{
	const struct ntp_record_opts *o = s->o;
	struct ntp_writer *w = s->w;
	char host[256] = "", boot_id[64];
	struct utsname u;
	int err = 0;

	if (uname(&u))
		u.release[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	read_line_file("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));

	err = err ?: ntp_writer__set_meta_text(w, "role", ntp_record__role_name(o->role));
	err = err ?: ntp_writer__set_meta_text(w, "transport", ntp_transport__name(o->transport));
	err = err ?: ntp_writer__set_meta_int(w, "sample_one_in", (int64_t)o->sample_one_in);
	err = err ?: ntp_writer__set_meta_int(w, "hash_version", NTP_HASH_VERSION);
	err = err ?: ntp_writer__set_meta_text(w, "kernel_release", u.release);
	err = err ?: ntp_writer__set_meta_text(w, "hostname", host);
	err = err ?: ntp_writer__set_meta_text(w, "boot_id", boot_id);
	err = err ?: ntp_writer__set_meta_int(w, "start_realtime_ns", (int64_t)start_real_ns);
	err = err ?: ntp_writer__set_meta_int(w, "start_ns", (int64_t)s->start_ns);
	err = err ?: ntp_writer__set_meta_text(w, "command_line", o->cmdline ? o->cmdline : "ntprof record");
	err = err ?: ntp_writer__set_meta_text(w, "ntprof_version", ntp_version_string);
	return err ?: write_filter_meta(s);
}

static int write_hooks(struct session *s)
{
	int i, err = 0;

	if (s->hc) {
		const struct ntp_host_hook *h = ntp_host__hooks(s->hc);

		for (i = 0; i < NTP_HOST_NHOOKS && !err; i++)
			err = ntp_writer__add_hook(s->w, "host", h[i].point, h[i].hook,
						   h[i].flavour, h[i].reason);
	}
	if (s->tc) {
		const struct ntp_target_hook *h = ntp_target__hooks(s->tc);

		for (i = 0; i < NTP_TARGET_NHOOKS && !err; i++)
			err = ntp_writer__add_hook(s->w, "target", h[i].point, h[i].hook,
						   h[i].flavour, h[i].reason);
	}
	return err;
}

/* ---- the loop ------------------------------------------------------------------ */

/* hand every ready record of both rings over; waits up to timeout_ms first */
static int poll_once(struct session *s, int timeout_ms)
{
	int n = 0, code = 0;
	const char *side = "host";

	if (s->hc && s->tc) {
		n = ntp_host__poll(s->hc, timeout_ms < POLL_BOTH_MS ? timeout_ms : POLL_BOTH_MS, &code);
		if (n >= 0) {
			side = "target";
			n = ntp_target__poll(s->tc, 0, &code);
		}
	} else if (s->hc) {
		n = ntp_host__poll(s->hc, timeout_ms, &code);
	} else {
		side = "target";
		n = ntp_target__poll(s->tc, timeout_ms, &code);
	}
	if (n >= 0)
		return 0;
	if (code)
		return code;
	ntp_error("reading the %s ring buffer: %s", side, strerror(errno));
	return NTP_EXIT_FAILURE;
}

/* poll until a signal, -d, the workload's exit or an error; 0 or NTP_EXIT_* */
static int record_loop(struct session *s, const char **reason)
{
	const struct ntp_record_opts *o = s->o;
	uint64_t end_ns = o->duration_s > 0 ?
			  s->start_ns + (uint64_t)(o->duration_s * NSEC_PER_SEC) : UINT64_MAX;
	uint64_t tick_ns = (uint64_t)(o->interval_s * NSEC_PER_SEC);
	uint64_t now, wait_ns;
	int err;

	for (;;) {
		now = clock_ns(CLOCK_MONOTONIC);
		if (stop_signal) {
			*reason = stop_signal == SIGINT ? "sigint" : "sigterm";
			return 0;
		}
		if (now >= end_ns) {
			*reason = "duration";
			return 0;
		}
		if (ntp_record_child__exited(&s->child)) {
			*reason = "workload";
			return 0;
		}
		if (now - s->last_flush_ns >= FLUSH_NS) {
			err = write_intervals(s, now);
			if (err) {
				*reason = "error";
				return err;
			}
		}
		if (s->live && now - s->last_tick_ns >= tick_ns)
			live_tick(s, now);
		wait_ns = POLL_MS * 1000000ULL;
		if (end_ns - now < wait_ns)
			wait_ns = end_ns - now;
		if (s->live && s->last_tick_ns + tick_ns - now < wait_ns)
			wait_ns = s->last_tick_ns + tick_ns - now;
		err = poll_once(s, (int)((wait_ns + 999999) / 1000000));
		if (err) {
			*reason = "error";
			return err;
		}
	}
}

/* after detaching: hand over every record still in the rings */
static int drain(struct session *s)
{
	int n, code, err = 0;

	if (s->hc) {
		do {
			n = ntp_host__poll(s->hc, 0, &code);
		} while (n > 0);
		if (n < 0)
			err = code ? code : -1;
	}
	if (!err && s->tc) {
		do {
			n = ntp_target__poll(s->tc, 0, &code);
		} while (n > 0);
		if (n < 0)
			err = code ? code : -1;
	}
	if (err == -1) {
		ntp_error("reading the ring buffer: %s", strerror(errno));
		err = NTP_EXIT_FAILURE;
	}
	return err;
}

/* ---- setup and teardown ------------------------------------------------------------ */

/* -r both --session: the backend nvmet serves the namespace from, when this machine's target does */
static void session_target_device(struct session *s)
{
	const struct ntp_filter *f = s->o->filter;
	char path[PATH_MAX], nqn[256], dev[PATH_MAX], real[PATH_MAX];
	const char *base;
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/%s/device/subsysnqn", s->o->filter_session);
	read_line_file(path, nqn, sizeof(nqn));
	if (!nqn[0] || strchr(nqn, '/'))
		return;
	snprintf(path, sizeof(path), "/sys/kernel/config/nvmet/subsystems/%s/namespaces/%u/device_path",
		 nqn, f->nsid);
	read_line_file(path, dev, sizeof(dev));
	/* the target records a disk's name (follow /dev/disk/by-id links to it), a file's as given */
	if (dev[0] && !stat(dev, &st) && S_ISBLK(st.st_mode) && realpath(dev, real))
		snprintf(dev, sizeof(dev), "%s", real);
	base = strrchr(dev, '/');
	base = base ? base + 1 : dev;
	if (!*base)
		return;
	/* as the BPF side stores it: at most NTP_DISK_NAME_LEN - 1 bytes */
	snprintf(s->tgt_device, sizeof(s->tgt_device), "%.*s", NTP_DISK_NAME_LEN - 1, base);
	ntp_debug("--session %s: target records of backend %s", s->o->filter_session, s->tgt_device);
}

/* -r both --session: the cntlids of the namespace's controllers, from sysfs */
static int session_cntlids(struct session *s)
{
	const struct ntp_filter *f = s->o->filter;
	char path[64], buf[32];
	unsigned int i, v;

	session_target_device(s);
	if (s->tgt_device[0])
		return 0;
	ntp_warn("--session %s: no nvmet namespace here serves it: keeping the target's records "
		 "by controller and namespace id", s->o->filter_session);

	for (i = 0; i < f->nctrls && i < NTP_FILTER_MAX_CTRLS; i++) {
		snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/cntlid", f->ctrls[i]);
		read_line_file(path, buf, sizeof(buf));
		if (sscanf(buf, "%u", &v) != 1 || v > UINT16_MAX) {
			ntp_error("--session %s: cannot read the controller id of nvme%u: %s",
				  s->o->filter_session, f->ctrls[i], path);
			return NTP_EXIT_FAILURE;
		}
		s->cntlids[s->ncntlids++] = (uint16_t)v;
	}
	return 0;
}

static int prepare(struct session *s)
{
	const struct ntp_record_opts *o = s->o;
	int err;

	if (o->role == NTP_RECORD_BOTH && o->filter && (o->filter->flags & NTP_FILTER_NS)) {
		err = session_cntlids(s);
		if (err)
			return err;
	}

	if (o->role & NTP_RECORD_HOST) {
		struct ntp_host_opts ho = { .transport = o->transport, .sample_one_in = o->sample_one_in,
					    .attach = o->attach, .filter = o->filter };

		err = ntp_host__prepare(&s->hc, &ho);
		if (err)
			return err;
	}
	if (o->role & NTP_RECORD_TARGET) {
		struct ntp_target_opts to = { .transport = o->transport,
					      .sample_one_in = o->sample_one_in, .attach = o->attach,
					      .filter = o->filter };

		err = ntp_target__prepare(&s->tc, &to);
		if (err)
			return err;
	}
	if (!o->live)
		return 0;
	if (o->role == NTP_RECORD_BOTH) {
		s->live = ntp_live__new(NTP_LIVE_JOINED, o->sample_one_in);
		if (s->live)
			s->match = ntp_live_match__new(NTP_LIVE_MATCH_CAPACITY, NTP_LIVE_MATCH_HOLD_NS,
						       ntp_live__on_pair, s->live);
	} else {
		s->live = ntp_live__new(o->role == NTP_RECORD_HOST ? NTP_LIVE_HOST : NTP_LIVE_TARGET,
					o->sample_one_in);
	}
	if (!s->live || (o->role == NTP_RECORD_BOTH && !s->match)) {
		ntp_error("preparing the live lines: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

static int start(struct session *s)
{
	int err = 0;

	if (s->hc)
		err = ntp_host__start(s->hc, on_host_event, s);
	if (!err && s->tc)
		err = ntp_target__start(s->tc, on_target_event, s);
	return err;
}

static void stop(struct session *s)
{
	if (s->hc)
		ntp_host__stop(s->hc);
	if (s->tc)
		ntp_target__stop(s->tc);
}

static int programs(const struct session *s)
{
	return (s->hc ? ntp_host__programs(s->hc) : 0) + (s->tc ? ntp_target__programs(s->tc) : 0);
}

static const char *what(unsigned int role)
{
	switch (role) {
	case NTP_RECORD_HOST:
		return "host";
	case NTP_RECORD_TARGET:
		return "target";
	}
	return "host and target";
}

static void summary(const struct session *s, uint64_t stop_ns)
{
	const struct side *sides[2] = { s->hc ? &s->host : NULL, s->tc ? &s->target : NULL };
	const uint64_t rows[2] = { ntp_writer__rows(s->w), ntp_writer__target_rows(s->w) };
	int i;

	for (i = 0; i < 2; i++) {
		const uint64_t *c;

		if (!sides[i])
			continue;
		c = sides[i]->prev;
		ntp_info("%s: %llu commands recorded; %llu sampled of %llu seen (lost: %llu ring buffer, "
			 "%llu map) in %.1f s", sides[i]->name, (unsigned long long)rows[i],
			 (unsigned long long)c[NTP_CNT_SAMPLED], (unsigned long long)c[NTP_CNT_SEEN],
			 (unsigned long long)c[NTP_CNT_LOST_RINGBUF], (unsigned long long)c[NTP_CNT_LOST_MAP],
			 (double)(stop_ns - s->start_ns) / NSEC_PER_SEC);
	}
	if (s->match) {
		struct ntp_live_match_stats ms;

		ntp_live_match__stats(s->match, &ms);
		ntp_debug("live matcher: %llu pairs, %llu host and %llu target events unmatched "
			  "(%llu evicted)", (unsigned long long)ms.matched,
			  (unsigned long long)ms.host_unmatched, (unsigned long long)ms.target_unmatched,
			  (unsigned long long)ms.evicted);
	}
}

static int child_signal(const char *reason)
{
	if (!strcmp(reason, "sigint"))
		return SIGINT;
	return SIGTERM;
}

int ntp_record__run(const struct ntp_record_opts *o, const char *path)
{
	struct session s = { .o = o, .host = { .name = "host" }, .target = { .name = "target" } };
	const char *reason = "error";
	uint64_t t0, stop_ns;
	int err, err2;

	install_signals();
	err = prepare(&s);
	if (err)
		goto out;
	/*
	 * Attach before the writer opens (and moves an existing FILE to
	 * FILE.old): a refused attach leaves the user's files alone.  Records
	 * wait in the ring buffers until the first poll.
	 */
	t0 = clock_ns(CLOCK_MONOTONIC);
	err = start(&s);
	if (err)
		goto out;
	s.start_ns = clock_ns(CLOCK_MONOTONIC);
	err = ntp_writer__open(&s.w, path);
	if (err)
		goto out;
	ntp_info("recording NVMe/%s %s commands, 1 in %u; %d programs attached in %.2f s; %s",
		 ntp_transport__label(o->transport), what(o->role), o->sample_one_in, programs(&s),
		 (double)(s.start_ns - t0) / NSEC_PER_SEC,
		 o->workload ? "stops when the command exits" :
		 o->duration_s > 0 ? "stops after -d or Ctrl-C" : "Ctrl-C stops");
	err = write_hooks(&s);
	if (!err)
		err = write_start_meta(&s, clock_ns(CLOCK_REALTIME));
	if (!err)
		err = ntp_writer__flush(s.w);
	if (err)
		goto out;
	s.last_flush_ns = s.last_tick_ns = s.start_ns;

	if (o->workload) {
		err = ntp_record_child__start(&s.child, o->workload);
		if (err) {
			reason = "error";
			stop_ns = clock_ns(CLOCK_MONOTONIC);
			goto finish;
		}
	}
	err = record_loop(&s, &reason);
finish:
	/* the end is when we stopped asking, not after detaching (which may wait for RCU) */
	stop_ns = clock_ns(CLOCK_MONOTONIC);
	/* the workload goes first, so that it does not outlive us */
	ntp_record_child__stop(&s.child, child_signal(reason), CHILD_GRACE_S);
	stop(&s);
	if (!err)
		err = drain(&s);
	if (err)
		reason = "error";
	/* even after an error: keep what can still be written (a full disk may refuse it) */
	err2 = write_intervals(&s, stop_ns);
	err2 = err2 ?: ntp_writer__set_meta_int(s.w, "stop_ns", (int64_t)stop_ns);
	err2 = err2 ?: ntp_writer__set_meta_int(s.w, "duration_ns", (int64_t)(stop_ns - s.start_ns));
	err2 = err2 ?: ntp_writer__set_meta_text(s.w, "stop_reason", reason);
	err = err ?: err2;
	if (s.live) {
		if (s.match)
			ntp_live_match__expire(s.match, UINT64_MAX);
		live_tick(&s, stop_ns);
	}
	summary(&s, stop_ns);
	ntp_record_child__report(&s.child);
out:
	if (s.child.pid && !s.child.reaped)
		ntp_record_child__stop(&s.child, SIGTERM, CHILD_GRACE_S);
	stop(&s);
	if (s.w) {
		err2 = ntp_writer__close(s.w);
		err = err ?: err2;
	}
	ntp_live_match__free(s.match);
	ntp_live__free(s.live);
	ntp_host__free(s.hc);
	ntp_target__free(s.tc);
	return err;
}
