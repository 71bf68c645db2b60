// SPDX-License-Identifier: GPL-2.0
/*
 * The collectors of the chosen role behind one set of calls: the host
 * collector, the target collector or both in one process (-r both polls
 * the two ring buffers in turn), and their counters as intervals rows.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/bpf_host.h"
#include "lib/bpf_target.h"
#include "lib/db.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/record_priv.h"

/* -r both: the host ring waits this long, then the target ring is emptied */
#define POLL_BOTH_MS 10

int ntp_record__prepare_collectors(struct ntp_record_session *s)
{
	const struct ntp_record_opts *o = s->o;
	int err;

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
	return 0;
}

int ntp_record__start_collectors(struct ntp_record_session *s)
{
	int err = 0;

	if (s->hc)
		err = ntp_host__start(s->hc, ntp_record__on_host_event, s);
	if (!err && s->tc)
		err = ntp_target__start(s->tc, ntp_record__on_target_event, s);
	return err;
}

void ntp_record__stop_collectors(struct ntp_record_session *s)
{
	if (s->hc)
		ntp_host__stop(s->hc);
	if (s->tc)
		ntp_target__stop(s->tc);
}

void ntp_record__free_collectors(struct ntp_record_session *s)
{
	ntp_host__free(s->hc);
	ntp_target__free(s->tc);
}

int ntp_record__programs(const struct ntp_record_session *s)
{
	return (s->hc ? ntp_host__programs(s->hc) : 0) + (s->tc ? ntp_target__programs(s->tc) : 0);
}

int ntp_record__poll(struct ntp_record_session *s, int timeout_ms)
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

int ntp_record__drain(struct ntp_record_session *s)
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

static int read_counters(struct ntp_record_session *s, struct ntp_record_side *sd,
			 uint64_t cnt[NTP_CNT_MAX])
{
	int err = sd == &s->host ? ntp_host__read_counters(s->hc, cnt) :
		  ntp_target__read_counters(s->tc, cnt);

	if (err) {
		ntp_error("reading the %s collector's counters: %s", sd->name, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

int ntp_record__write_intervals(struct ntp_record_session *s, uint64_t now)
{
	struct ntp_record_side *sides[2] = { s->hc ? &s->host : NULL, s->tc ? &s->target : NULL };
	uint64_t cnt[NTP_CNT_MAX];
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++) {
		struct ntp_record_side *sd = sides[i];
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
