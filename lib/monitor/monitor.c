// SPDX-License-Identifier: GPL-2.0
/*
 * The monitor's session (lib/monitor/monitor.h): prepare the collectors in
 * histogram mode, attach, then one loop that answers scrapes and lets the
 * collectors sweep their in-flight maps, until a signal or -d.  With the
 * flight recorder the loop also takes the sampled commands the ring buffer
 * brings into the window, evaluates the trigger each second, and writes a
 * snapshot when one is asked for: in a child process, so that the monitor
 * goes on serving and counting while it is written (one at a time; a
 * request meanwhile waits for it).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/bpf_host.h"
#include "lib/collect/bpf_target.h"
#include "lib/collect/collector.h"
#include "lib/core/stage_table.h"
#include "lib/monitor/mon_expo.h"
#include "lib/monitor/mon_flight.h"
#include "lib/monitor/mon_flight_file.h"
#include "lib/monitor/mon_http.h"
#include "lib/monitor/mon_priv.h"
#include "lib/monitor/mon_queue.h"
#include "lib/monitor/mon_snapshot.h"
#include "lib/monitor/mon_table.h"
#include "lib/monitor/mon_trigger.h"
#include "lib/monitor/monitor.h"

#define POLL_MS 100
/* how long a scraper may take to send its request */
#define REQUEST_TIMEOUT_MS 1000
/* the trigger's interval */
#define TRIGGER_NS 1000000000ULL
/* the host's queues read into the gauges' window (lib/monitor/mon_queue.h) */
#define QUEUE_TICK_NS 1000000000ULL

struct monitor {
	const struct ntp_monitor_opts *o;
	struct ntp_collector *c[2];     /* by enum ntp_mon_role; NULL when not that role */
	struct ntp_mon_table table;
	int stats_fd;                   /* bpf_enable_stats() during the cost window, or -1 */
	uint64_t start_ns;              /* the attach */
	struct ntp_mon_side cost[2];    /* by role: the cost window's figures */
	uint64_t scrapes;
	/* the host's per-queue readings, a second apart, for the gauges */
	struct ntp_mon_queues queues;
	uint64_t qnext_ns;
	/* the flight recorder (--flight) */
	struct ntp_flight flight;
	struct ntp_flight_file ffile;   /* the window on disk, synced each tick */
	bool flying;
	uint64_t flight_since_ns;       /* the oldest the window can hold: the attach, or before */
	bool ffile_warned;
	char pending[128];              /* the next snapshot's file name; "": none asked for */
	char pending_why[256];          /* and what asked for it (meta flight_snapshot) */
	pid_t writer;                   /* the child writing a snapshot, or 0 */
	char writing[128];              /* its file name */
	unsigned int snapshots;
	/* the trigger: the stage's histogram as last read, cumulative */
	struct ntp_mon_table ttable;
	struct ntp_trigger_hist tprev, tcur;
	uint64_t tnext_ns, tholdoff_ns;
	uint64_t fnext_ns;              /* the flight's next tick of the counters */
	uint64_t floor[2];              /* by role: the floor last written to the kernel */
	bool floor_warned;
};

static volatile sig_atomic_t stop_signal, snapshot_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_usr2(int sig)
{
	(void)sig;
	snapshot_signal = 1;
}

/* without the flight recorder no record crosses the ring buffer; one that did is dropped */
static int host_record(void *ctx, const struct ntp_host_event *e)
{
	struct monitor *m = ctx;

	if (m->flying)
		ntp_flight__add_host(&m->flight, e);
	return 0;
}

static int target_record(void *ctx, const struct ntp_target_event *e)
{
	struct monitor *m = ctx;

	if (m->flying)
		ntp_flight__add_target(&m->flight, e);
	return 0;
}

/* the page of one scrape: every series read now */
static int snapshot_page(struct monitor *m, char **page, size_t *len)
{
	struct ntp_mon_snapshot s = { .table = &m->table, .sample_one_in = m->o->sample_one_in };
	uint64_t cnt[NTP_CNT_MAX];
	FILE *f;
	int i, err;

	ntp_mon_table__reset(&m->table);
	for (i = 0; i < 2; i++) {
		struct ntp_mon_side *sd = &s.side[s.nsides];
		size_t before = m->table.n;

		if (!m->c[i])
			continue;
		err = ntp_mon_table__read(&m->table, m->c[i]->hists, (enum ntp_mon_role)i);
		if (err) {
			ntp_error("reading the %s histograms: %s", m->c[i]->name, strerror(-err));
			return -1;
		}
		if (ntp_collector__read_counters(m->c[i], cnt)) {
			ntp_error("reading the %s counters: %s", m->c[i]->name, strerror(errno));
			return -1;
		}
		sd->role = (enum ntp_mon_role)i;
		sd->seen = cnt[NTP_CNT_SEEN];
		sd->sampled = cnt[NTP_CNT_SAMPLED];
		sd->lost_ringbuf = cnt[NTP_CNT_LOST_RINGBUF];
		sd->lost_map = cnt[NTP_CNT_LOST_MAP];
		sd->lost_hist = cnt[NTP_CNT_LOST_HIST];
		sd->flight_filtered = cnt[NTP_CNT_FLIGHT_FILTERED];
		sd->series = m->table.n - before;
		sd->have_cost = m->cost[i].have_cost;
		sd->cost_runs = m->cost[i].cost_runs;
		sd->cost_run_ns = m->cost[i].cost_run_ns;
		sd->cost_commands = m->cost[i].cost_commands;
		s.nsides++;
	}
	if (m->c[NTP_MON_ROLE_HOST]) {
		err = ntp_mon_queues__scrape(&m->queues, m->c[NTP_MON_ROLE_HOST]->queues);
		if (err) {
			ntp_error("reading the host's queues: %s", strerror(-err));
			return -1;
		}
		s.queues = &m->queues.gauges;
	}
	ntp_mon_table__sort(&m->table);
	f = open_memstream(page, len);
	if (!f) {
		ntp_error("the metrics page: %s", strerror(errno));
		return -1;
	}
	err = ntp_mon_expo__write(f, &s);
	if (fclose(f) || err) {
		ntp_error("the metrics page: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static const char index_page[] =
	"ntprof monitor: the metrics are at /metrics (ntprof-monitor(1))\n";

static int text_reply(struct ntp_http_reply *out, int status, const char *allow, const char *text)
{
	out->status = status;
	out->allow = allow;
	out->content_type = "text/plain; charset=utf-8";
	out->body = strdup(text);
	out->len = out->body ? strlen(out->body) : 0;
	return out->body ? 0 : -1;
}

/*
 * A snapshot asked for (why): its file name, chosen now, unless one is
 * waiting already, which this request joins, its why added to the first's
 */
static void ask_snapshot(struct monitor *m, const char *why)
{
	size_t n = strlen(m->pending_why);
	struct timespec t;
	struct tm tm;
	char stamp[32];

	if (m->pending[0]) {
		if (!strstr(m->pending_why, why))
			snprintf(m->pending_why + n, sizeof(m->pending_why) - n, "; %s", why);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &t);
	gmtime_r(&t.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(m->pending, sizeof(m->pending), "flight-%s.%03ldZ-%u.ntp", stamp,
		 t.tv_nsec / 1000000, ++m->snapshots);
	snprintf(m->pending_why, sizeof(m->pending_why), "%s", why);
}

/* POST /snapshot: a snapshot asked for; 202 and the file it will be published as */
static int snapshot_request(struct monitor *m, const struct ntp_http_req *r,
			    struct ntp_http_reply *out)
{
	char text[PATH_MAX + 160];

	if (strcmp(r->method, "POST"))
		return text_reply(out, 405, "POST", "a snapshot is asked for with POST /snapshot\n");
	if (!m->flying)
		return text_reply(out, 404, NULL, "no flight recorder: monitor runs without --flight\n");
	ask_snapshot(m, "POST /snapshot");
	snprintf(text, sizeof(text), "%s/%s\n", m->o->flight_dir, m->pending);
	return text_reply(out, 202, NULL, text);
}

static int handle(void *ctx, const struct ntp_http_req *r, struct ntp_http_reply *out)
{
	struct monitor *m = ctx;

	if (!strcmp(r->path, "/snapshot"))
		return snapshot_request(m, r, out);
	if (!strcmp(r->method, "POST") && (!strcmp(r->path, "/metrics") || !strcmp(r->path, "/")))
		return text_reply(out, 405, "GET, HEAD", "this page is read with GET\n");
	if (!strcmp(r->path, "/metrics")) {
		m->scrapes++;
		out->status = 200;
		out->content_type = "text/plain; version=0.0.4; charset=utf-8";
		return snapshot_page(m, &out->body, &out->len);
	}
	out->status = strcmp(r->path, "/") ? 404 : 200;
	out->content_type = "text/plain; charset=utf-8";
	out->body = strdup(out->status == 200 ? index_page : "not found: the metrics are at /metrics\n");
	out->len = out->body ? strlen(out->body) : 0;
	return out->body ? 0 : -1;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/*
 * The end of the cost window: each side's programs' runs and time, over the
 * commands it saw, and the statistics off again.  Before it: nothing.
 */
static void cost_tick(struct monitor *m, uint64_t now)
{
	uint64_t cnt[NTP_CNT_MAX], seen = 0;
	int i;

	if (m->stats_fd < 0 || now - m->start_ns < NTP_COST_WINDOW_NS)
		return;
	for (i = 0; i < 2; i++)
		if (m->c[i] && !ntp_collector__read_counters(m->c[i], cnt) && cnt[NTP_CNT_SEEN] > seen)
			seen = cnt[NTP_CNT_SEEN];
	if (seen < NTP_COST_COMMANDS)
		return;
	for (i = 0; i < 2; i++) {
		if (!m->c[i] || ntp_collector__read_counters(m->c[i], cnt))
			continue;
		ntp_collector__bpf_stats(m->c[i], &m->cost[i].cost_runs, &m->cost[i].cost_run_ns);
		m->cost[i].cost_commands = cnt[NTP_CNT_SEEN];
		m->cost[i].have_cost = true;
	}
	close(m->stats_fd);
	m->stats_fd = -1;
}

static uint64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* the child that wrote the last snapshot, if it is done (wait: until it is) */
static void reap_writer(struct monitor *m, bool wait)
{
	int status;
	pid_t p;

	if (!m->writer)
		return;
	do
		p = waitpid(m->writer, &status, wait ? 0 : WNOHANG);
	while (wait && p < 0 && errno == EINTR);
	if (p == 0 || (p < 0 && errno == EINTR))
		return;
	if (p < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		ntp_warn("flight snapshot %s/%s was not written", m->o->flight_dir, m->writing);
	else
		fprintf(stderr, "ntprof monitor: flight snapshot %s/%s written\n", m->o->flight_dir,
			m->writing);
	m->writer = 0;
}

/* each side's counters now, into the flight's ticks */
static void flight_tick(struct monitor *m, uint64_t now)
{
	struct ntp_flight_tick t = { .t_ns = now };
	uint64_t cnt[NTP_CNT_MAX];
	int i, err;

	for (i = 0; i < 2; i++) {
		if (!m->c[i] || ntp_collector__read_counters(m->c[i], cnt))
			continue;
		t.seen[i] = cnt[NTP_CNT_SEEN];
		t.sampled[i] = cnt[NTP_CNT_SAMPLED];
		t.lost_ringbuf[i] = cnt[NTP_CNT_LOST_RINGBUF];
		t.lost_map[i] = cnt[NTP_CNT_LOST_MAP];
		(i ? &m->flight.target : &m->flight.host)->filtered = cnt[NTP_CNT_FLIGHT_FILTERED];
	}
	ntp_flight__tick(&m->flight, &t);
	m->fnext_ns = now + TRIGGER_NS;
	ntp_flight__trim(&m->flight, now);
	err = ntp_flight_file__sync(&m->ffile, &m->flight);
	if (err && !m->ffile_warned) {
		ntp_warn("the flight recorder's window file %s: %s (said once)", m->ffile.path,
			 strerror(-err));
		m->ffile_warned = true;
	}
}

/*
 * Each side's floor to its collector when it changed: the kernel keeps the
 * commands the window would drop off the ring buffer (bpf/ntp_mon.h)
 */
static void flight_floor(struct monitor *m)
{
	int i, err;

	for (i = 0; i < 2; i++) {
		uint64_t f = ntp_flight__floor(&m->flight, i);

		if (!m->c[i] || f == m->floor[i])
			continue;
		err = ntp_collector__set_flight_floor(m->c[i], f);
		if (!err) {
			m->floor[i] = f;
		} else if (!m->floor_warned) {
			ntp_warn("the flight recorder's floor: %s (said once; every command crosses)",
				 strerror(-err));
			m->floor_warned = true;
		}
	}
}

/*
 * The snapshot asked for, written by a child from the window as it is now;
 * the child writes what the monitor's own records hold at the fork.
 */
static void start_snapshot(struct monitor *m)
{
	const struct ntp_monitor_opts *o = m->o;
	struct ntp_snapshot_meta sm = {
		.role = o->role == (NTP_MONITOR_HOST | NTP_MONITOR_TARGET) ? "both" :
			o->role & NTP_MONITOR_HOST ? "host" : "target",
		.transport = o->transport, .sample_one_in = o->sample_one_in,
		.command_line = o->command_line, .filter = o->filter,
		.filter_session = o->filter_session, .reason = m->pending_why,
		.host = m->c[NTP_MON_ROLE_HOST], .target = m->c[NTP_MON_ROLE_TARGET],
	};
	uint64_t now = now_ns();
	int code = 0, i;
	pid_t p;

	if (!m->pending[0] || m->writer)
		return;
	/* what the ring buffer holds now into the window first */
	for (i = 0; i < 2; i++)
		if (m->c[i])
			ntp_collector__poll(m->c[i], 0, &code);
	flight_tick(m, now);
	ntp_flight__trim(&m->flight, now);
	sm.stop_ns = now;
	sm.start_ns = now - m->flight_since_ns < o->flight_window_ns ? m->flight_since_ns :
		      now - o->flight_window_ns;
	sm.start_realtime_ns = realtime_ns() - (now - sm.start_ns);
	fflush(stderr);
	p = fork();
	if (p < 0) {
		ntp_warn("flight snapshot %s/%s: cannot start its writer: %s", o->flight_dir, m->pending,
			 strerror(errno));
		m->pending[0] = '\0';
		return;
	}
	if (p == 0) {
		/* the port is the monitor's alone: a restart binds it while this still writes */
		close(o->listen_fd);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		_exit(ntp_snapshot__write(&m->flight, &sm, o->flight_dir, m->pending) ? 1 : 0);
	}
	fprintf(stderr, "ntprof monitor: flight snapshot %s/%s: %zu host and %zu target commands of "
		"the last %.3g s (%s)\n", o->flight_dir, m->pending, m->flight.host.held, m->flight.target.held,
		(double)(now - sm.start_ns) / 1e9, m->pending_why);
	m->writer = p;
	memcpy(m->writing, m->pending, sizeof(m->writing));
	m->pending[0] = '\0';
}

/* the trigger's stage, every series summed, cumulative as the kernel counts it, into h */
static int trigger_read(struct monitor *m, struct ntp_trigger_hist *h)
{
	const struct ntp_trigger *t = m->o->trigger;
	int role = ntp_trigger__role(t), err, b;
	size_t i;

	memset(h, 0, sizeof(*h));
	ntp_mon_table__reset(&m->ttable);
	err = ntp_mon_table__read(&m->ttable, m->c[role]->hists, (enum ntp_mon_role)role);
	if (err)
		return err;
	for (i = 0; i < m->ttable.n; i++) {
		const struct ntp_mon_series *se = &m->ttable.s[i];

		if (se->key.stage != t->stage)
			continue;
		h->sum += (int64_t)se->h.sum;
		for (b = 0; b < NTP_MON_NBUCKETS; b++) {
			h->bucket[b] += se->h.bucket[b];
			h->n += se->h.bucket[b];
		}
	}
	return 0;
}

/*
 * Each second: the trigger on the second's commands of its stage; when it
 * holds, a snapshot, and none again for one window, so that one incident
 * makes one file
 */
static void trigger_tick(struct monitor *m, uint64_t now)
{
	const struct ntp_trigger *t = m->o->trigger;
	struct ntp_trigger_hist *d = &m->tcur;
	char why[128];
	double v;
	int b, err;

	if (!t || now < m->tnext_ns)
		return;
	m->tnext_ns = now + TRIGGER_NS;
	err = trigger_read(m, d);
	if (err) {
		ntp_warn("the trigger: reading the histograms: %s", strerror(-err));
		return;
	}
	/* the interval's counts: now's less the last read's (kept for the next in tprev) */
	for (b = 0; b < NTP_MON_NBUCKETS; b++) {
		uint64_t c = d->bucket[b];

		d->bucket[b] -= m->tprev.bucket[b];
		m->tprev.bucket[b] = c;
	}
	{
		int64_t sum = d->sum;
		uint64_t n = d->n;

		d->sum -= m->tprev.sum;
		d->n -= m->tprev.n;
		m->tprev.sum = sum;
		m->tprev.n = n;
	}
	if (!ntp_trigger__holds(t, d, &v) || now < m->tholdoff_ns)
		return;
	snprintf(why, sizeof(why), "trigger %s: %.3f ms over %" PRIu64 " commands", t->text, v / 1e6,
		 d->n);
	ask_snapshot(m, why);
	m->tholdoff_ns = now + m->o->flight_window_ns;
}

/* the host's queues, into the gauges' window, once a second */
static int queue_tick(struct monitor *m, uint64_t now)
{
	int err;

	if (!m->c[NTP_MON_ROLE_HOST] || now < m->qnext_ns)
		return 0;
	/* a second apart; after a stall, from now rather than ticks in a row */
	m->qnext_ns = m->qnext_ns + QUEUE_TICK_NS > now ? m->qnext_ns + QUEUE_TICK_NS : now + QUEUE_TICK_NS;
	err = ntp_mon_queues__tick(&m->queues, m->c[NTP_MON_ROLE_HOST]->queues);
	if (err)
		ntp_error("reading the host's queues: %s", strerror(-err));
	return err;
}

static int serve(struct monitor *m)
{
	const struct ntp_monitor_opts *o = m->o;
	uint64_t end = o->duration_s > 0 ? now_ns() + (uint64_t)(o->duration_s * 1e9) : UINT64_MAX;
	int i, n, code;

	while (!stop_signal && now_ns() < end) {
		struct pollfd p = { .fd = o->listen_fd, .events = POLLIN };

		cost_tick(m, now_ns());
		n = poll(&p, 1, POLL_MS);
		if (n < 0 && errno != EINTR) {
			ntp_error("waiting on %s: %s", o->listen, strerror(errno));
			return NTP_EXIT_FAILURE;
		}
		while (n > 0 && ntp_http__serve_one(o->listen_fd, REQUEST_TIMEOUT_MS, handle, m) > 0)
			;
		if (queue_tick(m, now_ns()))
			return NTP_EXIT_FAILURE;
		/* the collectors' sweeps of commands that never completed; the flight's records */
		for (i = 0; i < 2; i++) {
			if (m->c[i] && ntp_collector__poll(m->c[i], 0, &code) < 0 && !code) {
				ntp_error("polling the %s collector: %s", m->c[i]->name, strerror(errno));
				return NTP_EXIT_FAILURE;
			}
		}
		if (!m->flying)
			continue;
		flight_floor(m);
		if (now_ns() >= m->fnext_ns)
			flight_tick(m, now_ns());
		ntp_flight__trim(&m->flight, now_ns());
		if (snapshot_signal) {
			snapshot_signal = 0;
			ask_snapshot(m, "SIGUSR2");
		}
		trigger_tick(m, now_ns());
		reap_writer(m, false);
		start_snapshot(m);
	}
	return 0;
}

int ntp_monitor__run(const struct ntp_monitor_opts *o)
{
	const struct ntp_collector_opts co = { .transport = o->transport,
					       .sample_one_in = o->sample_one_in,
					       .attach = o->attach, .filter = o->filter,
					       .no_app = !o->app, .hist_mode = true,
					       .hist_stream = o->flight_dir != NULL };
	struct monitor m = { .o = o, .stats_fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal }, su = { .sa_handler = on_usr2 };
	int err = 0, i;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);       /* a scraper that hangs up mid-page */
	if (o->flight_dir) {
		if (ntp_flight__init(&m.flight, o->flight_window_ns, NTP_FLIGHT_INTERVAL_NS,
				     o->flight_max)) {
			ntp_error("the flight recorder's window of %zu commands a second: %s", o->flight_max,
				  strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
		/* root's still: the file is given to --user's user */
		if (ntp_flight_file__open(&m.ffile, o->flight_dir, &m.flight, o->uid, o->gid)) {
			ntp_flight__free(&m.flight);
			return NTP_EXIT_FAILURE;
		}
		m.flying = true;
		sigemptyset(&su.sa_mask);
		sigaction(SIGUSR2, &su, NULL);
	}
	if (o->role & NTP_MONITOR_HOST)
		err = ntp_host__prepare(&m.c[NTP_MON_ROLE_HOST], &co, host_record, &m);
	if (!err && (o->role & NTP_MONITOR_TARGET))
		err = ntp_target__prepare(&m.c[NTP_MON_ROLE_TARGET], &co, target_record, &m);
	if (err)
		goto out;
	m.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	for (i = 0; i < 2 && !err; i++)
		if (m.c[i])
			err = ntp_collector__start(m.c[i]);
	if (err)
		goto out;
	m.start_ns = now_ns();
	/* a window read back from the file may hold commands from before the attach */
	m.flight_since_ns = m.ffile.loaded && m.ffile.loaded_since_ns < m.start_ns ?
			    m.ffile.loaded_since_ns : m.start_ns;
	err = ntp_mon_priv__drop(o->uid, o->gid);
	if (err) {
		ntp_error("dropping privileges to user %s: %s", o->user, strerror(-err));
		err = NTP_EXIT_FAILURE;
		goto out;
	}
	fprintf(stderr, "ntprof monitor: monitoring the %s (-s %u) as user %s: metrics at "
		"http://%s/metrics\n",
		o->role == (NTP_MONITOR_HOST | NTP_MONITOR_TARGET) ? "host and target" :
		o->role & NTP_MONITOR_HOST ? "host" : "target", o->sample_one_in, o->user, o->listen);
	if (o->flight_dir)
		fprintf(stderr, "ntprof monitor: flight recorder: the last %.3g s of sampled commands "
			"(the slowest %zu of each second, each side), snapshots into %s on SIGUSR2, POST /snapshot%s%s\n"
			"ntprof monitor: flight recorder: window file %s, %zu commands read back\n",
			(double)o->flight_window_ns / 1e9, o->flight_max, o->flight_dir,
			o->trigger ? " and when " : "", o->trigger ? o->trigger->text : "",
			m.ffile.path, m.ffile.loaded);
	m.tnext_ns = now_ns() + TRIGGER_NS;
	m.qnext_ns = m.start_ns + QUEUE_TICK_NS;
	if (m.flying)
		flight_tick(&m, now_ns());
	if (o->trigger)
		trigger_read(&m, &m.tprev);
	err = serve(&m);
	/* a snapshot being written is finished before the monitor goes */
	reap_writer(&m, true);
out:
	for (i = 0; i < 2; i++)
		ntp_collector__stop(m.c[i]);
	for (i = 0; i < 2; i++)
		ntp_collector__free(m.c[i]);
	if (m.stats_fd >= 0)
		close(m.stats_fd);
	ntp_mon_table__free(&m.table);
	ntp_mon_table__free(&m.ttable);
	ntp_mon_queues__free(&m.queues);
	if (m.flying) {
		/* what the window holds at the exit, for the next monitor */
		int serr = ntp_flight_file__sync(&m.ffile, &m.flight);

		if (serr)
			ntp_warn("the flight recorder's window file %s: %s", m.ffile.path,
				 strerror(-serr));
		ntp_flight_file__close(&m.ffile);
	}
	ntp_flight__free(&m.flight);
	return err;
}
