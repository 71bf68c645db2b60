// SPDX-License-Identifier: GPL-2.0
/*
 * The collectors of the chosen role behind one set of calls: the host
 * collector, the target collector or both in one process (-r both polls
 * the two ring buffers in turn), and their counters as intervals rows.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/bpf_host.h"
#include "lib/collect/bpf_target.h"
#include "lib/collect/collector.h"
#include "lib/ntp/db_write.h"
#include "lib/record/record_priv.h"

/* -r both: the host ring waits this long, then the target ring is emptied */
#define POLL_BOTH_MS 10

int ntp_record__prepare_collectors(struct ntp_record_session *s)
{
	const struct ntp_record_opts *o = s->o;
	const struct ntp_collector_opts co = { .transport = o->transport,
					       .sample_one_in = o->sample_one_in,
					       .attach = o->attach, .filter = o->filter,
					       .no_app = o->no_app };
	int err = 0;

	if (o->role & NTP_RECORD_HOST)
		err = ntp_host__prepare(&s->host.c, &co, ntp_record__on_host_event, s);
	if (!err && (o->role & NTP_RECORD_TARGET))
		err = ntp_target__prepare(&s->target.c, &co, ntp_record__on_target_event, s);
	return err;
}

int ntp_record__start_collectors(struct ntp_record_session *s)
{
	int err = 0;

	if (s->host.c)
		err = ntp_collector__start(s->host.c);
	if (!err && s->target.c)
		err = ntp_collector__start(s->target.c);
	return err;
}

void ntp_record__stop_collectors(struct ntp_record_session *s)
{
	ntp_collector__stop(s->host.c);
	ntp_collector__stop(s->target.c);
}

void ntp_record__free_collectors(struct ntp_record_session *s)
{
	ntp_collector__free(s->host.c);
	ntp_collector__free(s->target.c);
}

int ntp_record__programs(const struct ntp_record_session *s)
{
	return (s->host.c ? ntp_collector__programs(s->host.c) : 0) +
	       (s->target.c ? ntp_collector__programs(s->target.c) : 0);
}

void ntp_record__cost_start(struct ntp_record_session *s)
{
	s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (s->stats_fd < 0)
		ntp_info("BPF run-time statistics unavailable (%s): the recording will not hold ntprof's own cost",
			 strerror(errno));
}

void ntp_record__cost_end(struct ntp_record_session *s, uint64_t now)
{
	/* the commands: the host's, or the target's alone (-r both: the host's, both sides' programs) */
	struct ntp_record_side *sd = s->host.c ? &s->host : &s->target;
	uint64_t cnt[NTP_CNT_MAX];

	if (s->stats_fd < 0)
		return;
	s->bpf_runs = s->bpf_run_ns = 0;
	if (s->host.c)
		ntp_collector__bpf_stats(s->host.c, &s->bpf_runs, &s->bpf_run_ns);
	if (s->target.c)
		ntp_collector__bpf_stats(s->target.c, &s->bpf_runs, &s->bpf_run_ns);
	/* the counters began at 0 with the programs, as the statistics did */
	if (sd->c && !ntp_collector__read_counters(sd->c, cnt)) {
		s->bpf_commands = cnt[NTP_CNT_SEEN];
		s->bpf_window_ns = now - s->start_ns;
		s->have_cost = true;
	}
	close(s->stats_fd);
	s->stats_fd = -1;
}

void ntp_record__cost_tick(struct ntp_record_session *s, uint64_t now)
{
	const struct ntp_record_side *sd = s->host.c ? &s->host : &s->target;

	/* prev: the counters as of the intervals row just written */
	if (s->stats_fd >= 0 && now - s->start_ns >= NTP_COST_WINDOW_NS &&
	    sd->prev[NTP_CNT_SEEN] >= NTP_COST_COMMANDS)
		ntp_record__cost_end(s, now);
}

int ntp_record__poll(struct ntp_record_session *s, int timeout_ms)
{
	struct ntp_record_side *sd = s->host.c ? &s->host : &s->target;
	int n = 0, code = 0;

	if (s->host.c && s->target.c) {
		n = ntp_collector__poll(s->host.c, timeout_ms < POLL_BOTH_MS ? timeout_ms : POLL_BOTH_MS,
					&code);
		if (n >= 0) {
			sd = &s->target;
			n = ntp_collector__poll(s->target.c, 0, &code);
		}
	} else {
		n = ntp_collector__poll(sd->c, timeout_ms, &code);
	}
	if (n >= 0)
		return 0;
	if (code)
		return code;
	ntp_error("reading the %s ring buffer: %s", sd->name, strerror(errno));
	return NTP_EXIT_FAILURE;
}

int ntp_record__drain(struct ntp_record_session *s)
{
	struct ntp_collector *cs[2] = { s->host.c, s->target.c };
	int i, n, code, e, err = 0, read_errno = 0;

	s->draining = true;
	for (i = 0; i < 2; i++) {
		if (!cs[i])
			continue;
		do {
			n = ntp_collector__poll(cs[i], 0, &code);
		} while (n > 0);
		if (n < 0 && !code && !read_errno)
			read_errno = errno;
		if (n < 0 && !err)
			err = code ? code : -1;
		/* then what still waits for a hook that will not come now: every command is written */
		e = ntp_collector__flush_parked(cs[i]);
		if (!err)
			err = e;
	}
	s->draining = false;
	if (err == -1) {
		ntp_error("reading the ring buffer: %s", strerror(read_errno));
		err = NTP_EXIT_FAILURE;
	}
	return err;
}

static int read_counters(struct ntp_record_side *sd, uint64_t cnt[NTP_CNT_MAX])
{
	if (ntp_collector__read_counters(sd->c, cnt)) {
		ntp_error("reading the %s collector's counters: %s", sd->name, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

int ntp_record__write_intervals(struct ntp_record_session *s, uint64_t now)
{
	struct ntp_record_side *sides[2] = { s->host.c ? &s->host : NULL,
					      s->target.c ? &s->target : NULL };
	uint64_t cnt[NTP_CNT_MAX];
	int i, err = 0;

	/* each side's counters read even after an error: the summary prints them */
	for (i = 0; i < 2; i++) {
		struct ntp_record_side *sd = sides[i];
		struct ntp_interval iv = { .t_ns = now };
		int e;

		if (!sd)
			continue;
		e = read_counters(sd, cnt);
		if (e) {
			err = err ?: e;
			continue;
		}
		iv.side = sd->name;
		iv.seen = cnt[NTP_CNT_SEEN] - sd->prev[NTP_CNT_SEEN];
		iv.sampled = cnt[NTP_CNT_SAMPLED] - sd->prev[NTP_CNT_SAMPLED];
		iv.lost_ringbuf = cnt[NTP_CNT_LOST_RINGBUF] - sd->prev[NTP_CNT_LOST_RINGBUF];
		iv.lost_map = cnt[NTP_CNT_LOST_MAP] - sd->prev[NTP_CNT_LOST_MAP];
		memcpy(sd->prev, cnt, sizeof(cnt));
		if (!err)
			err = ntp_writer__add_interval(s->w, &iv);
	}
	/* the backends' counters over the same interval (their first read: at the start) */
	if (!err && s->backends.n)
		err = ntp_backends__write(&s->backends, s->w, now);
	if (!err)
		err = ntp_writer__flush(s->w);
	s->last_flush_ns = now;
	return err;
}
