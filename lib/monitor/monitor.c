// SPDX-License-Identifier: GPL-2.0
/*
 * The monitor's session (lib/monitor/monitor.h): prepare the collectors in
 * histogram mode, attach, then one loop that answers scrapes and lets the
 * collectors sweep their in-flight maps, until a signal or -d.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/bpf_host.h"
#include "lib/collect/bpf_target.h"
#include "lib/collect/collector.h"
#include "lib/monitor/mon_expo.h"
#include "lib/monitor/mon_http.h"
#include "lib/monitor/mon_priv.h"
#include "lib/monitor/mon_table.h"
#include "lib/monitor/monitor.h"

#define POLL_MS 100
/* how long a scraper may take to send its request */
#define REQUEST_TIMEOUT_MS 1000

struct monitor {
	const struct ntp_monitor_opts *o;
	struct ntp_collector *c[2];     /* by enum ntp_mon_role; NULL when not that role */
	struct ntp_mon_table table;
	int stats_fd;                   /* bpf_enable_stats() during the cost window, or -1 */
	uint64_t start_ns;              /* the attach */
	struct ntp_mon_side cost[2];    /* by role: the cost window's figures */
	uint64_t scrapes;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* in histogram mode no record crosses the ring buffer; one that did is dropped */
static int host_record(void *ctx, const struct ntp_host_event *e)
{
	(void)ctx;
	(void)e;
	return 0;
}

static int target_record(void *ctx, const struct ntp_target_event *e)
{
	(void)ctx;
	(void)e;
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
		sd->series = m->table.n - before;
		sd->have_cost = m->cost[i].have_cost;
		sd->cost_runs = m->cost[i].cost_runs;
		sd->cost_run_ns = m->cost[i].cost_run_ns;
		sd->cost_commands = m->cost[i].cost_commands;
		s.nsides++;
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

static int handle(void *ctx, const struct ntp_http_req *r, struct ntp_http_reply *out)
{
	struct monitor *m = ctx;

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
		/* the collectors' sweeps of commands that never completed */
		for (i = 0; i < 2; i++) {
			if (m->c[i] && ntp_collector__poll(m->c[i], 0, &code) < 0 && !code) {
				ntp_error("polling the %s collector: %s", m->c[i]->name, strerror(errno));
				return NTP_EXIT_FAILURE;
			}
		}
	}
	return 0;
}

int ntp_monitor__run(const struct ntp_monitor_opts *o)
{
	const struct ntp_collector_opts co = { .transport = o->transport,
					       .sample_one_in = o->sample_one_in,
					       .attach = o->attach, .filter = o->filter,
					       .no_app = true, .hist_mode = true };
	struct monitor m = { .o = o, .stats_fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	int err = 0, i;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);       /* a scraper that hangs up mid-page */
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
	err = serve(&m);
out:
	for (i = 0; i < 2; i++)
		ntp_collector__stop(m.c[i]);
	for (i = 0; i < 2; i++)
		ntp_collector__free(m.c[i]);
	if (m.stats_fd >= 0)
		close(m.stats_fd);
	ntp_mon_table__free(&m.table);
	return err;
}
