// SPDX-License-Identifier: GPL-2.0
/*
 * The progress lines on stderr: what is recorded and how it stops, once the
 * programs are attached; what was recorded and lost, once it stopped.
 */
#include <stdint.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/collect/collector.h"
#include "lib/collect/inflight_expire.h"
#include "lib/core/transport.h"
#include "lib/ntp/db_write.h"
#include "lib/record/live.h"
#include "lib/record/record_priv.h"

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

void ntp_record__print_start(const struct ntp_record_session *s, uint64_t t0)
{
	const struct ntp_record_opts *o = s->o;

	ntp_info("recording NVMe/%s %s commands, 1 in %u; %d programs attached in %.2f s; %s",
		 ntp_transport__label(o->transport), what(o->role), o->sample_one_in,
		 ntp_record__programs(s), (double)(s->start_ns - t0) / NTP_NSEC_PER_SEC,
		 o->workload ? "stops when the command exits" :
		 o->duration_s > 0 ? "stops after -d or Ctrl-C" : "Ctrl-C stops");
}

void ntp_record__print_summary(const struct ntp_record_session *s, uint64_t stop_ns)
{
	const struct ntp_record_side *sides[2] = { s->host.c ? &s->host : NULL,
						    s->target.c ? &s->target : NULL };
	struct ntp_writer_rows wr;
	int i;

	ntp_writer__count(s->w, &wr);
	for (i = 0; i < 2; i++) {
		const uint64_t rows = i ? wr.target : wr.host, lost = i ? wr.target_lost : wr.host_lost;
		const uint64_t *c;
		uint64_t expired;

		if (!sides[i])
			continue;
		c = sides[i]->prev;
		ntp_info("%s: %llu commands recorded; %llu sampled of %llu seen (lost: %llu ring buffer, "
			 "%llu map) in %.1f s", sides[i]->name, (unsigned long long)rows,
			 (unsigned long long)c[NTP_CNT_SAMPLED], (unsigned long long)c[NTP_CNT_SEEN],
			 (unsigned long long)c[NTP_CNT_LOST_RINGBUF], (unsigned long long)c[NTP_CNT_LOST_MAP],
			 (double)(stop_ns - s->start_ns) / NTP_NSEC_PER_SEC);
		if (lost)
			ntp_info("%s: %llu more commands lost: writing failed before they were committed",
				 sides[i]->name, (unsigned long long)lost);
		if (sides[i]->c->kprobe_links && sides[i]->c->kprobe_missed_told)
			ntp_info("%s: %llu kprobe hits skipped by the kernel (a probe that fired while "
				 "another ran on its CPU)", sides[i]->name,
				 (unsigned long long)sides[i]->c->kprobe_missed);
		else if (sides[i]->c->kprobe_links)
			ntp_info("%s: kprobe hits skipped by the kernel: not told by this kernel (before 6.7)",
				 sides[i]->name);
		if (sides[i]->c->prog_missed)
			ntp_info("%s: %llu program runs skipped by the kernel (the program was running "
				 "already on that CPU, preempted or interrupted)", sides[i]->name,
				 (unsigned long long)sides[i]->c->prog_missed);
		expired = ntp_collector__expired(sides[i]->c);
		if (expired)
			ntp_info("%s: %llu sampled commands never completed (dropped from the in-flight "
				 "map after %llu s)", sides[i]->name, (unsigned long long)expired,
				 NTP_INFLIGHT_EXPIRE_NS / NTP_NSEC_PER_SEC);
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

int ntp_record__crosscheck(const struct ntp_record_session *s)
{
	const struct ntp_record_side *sides[2] = { &s->host, &s->target };
	char msg[512];
	int i, rc = 0;

	for (i = 0; i < 2; i++) {
		if (!sides[i]->c)
			continue;
		if (ntp_collector__blind(sides[i]->c, sides[i]->prev, msg, sizeof(msg))) {
			ntp_error("%s", msg);
			rc = NTP_EXIT_BLIND;
		} else if (sides[i]->c->fabric) {
			ntp_debug("%s: cross-check: the decision saw %llu, %s %llu", sides[i]->name,
				  (unsigned long long)sides[i]->prev[NTP_CNT_SEEN], sides[i]->c->fabric,
				  (unsigned long long)sides[i]->prev[NTP_CNT_FABRIC]);
		}
	}
	return rc;
}
