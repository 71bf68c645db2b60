// SPDX-License-Identifier: GPL-2.0
/*
 * The live lines on stdout (lib/record/live.h): one per -i, of the host's
 * commands, the target's, or with -r both the host's joined with the
 * target's by the matcher.  A failure stops them, not the recording.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/record/live.h"
#include "lib/record/record_priv.h"

int ntp_record__prepare_live(struct ntp_record_session *s)
{
	const struct ntp_record_opts *o = s->o;

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
	if (o->view) {
		ntp_live__keep_total(s->live);
		if (ntp_live__set_by(s->live, (enum ntp_live_by)o->view->by)) {
			ntp_error("rows per queue or process need the host side");
			return NTP_EXIT_USAGE;
		}
	}
	return 0;
}

void ntp_record__live_failed(struct ntp_record_session *s, int err)
{
	if (s->live_err)
		return;
	s->live_err = err;
	ntp_warn("live lines stop: %s", strerror(-err));
}

void ntp_record__live_tick(struct ntp_record_session *s, uint64_t now)
{
	int n;

	if (!s->live || s->live_err)
		return;
	if (s->match)
		ntp_live_match__expire(s->match, now);
	if (s->o->view)
		n = s->o->view->tick(s->o->view->ctx, s->live,
				     (double)(now - s->start_ns) / NTP_NSEC_PER_SEC,
				     (double)(now - s->last_tick_ns) / NTP_NSEC_PER_SEC);
	else
		n = ntp_live__tick(s->live, stdout, (double)(now - s->start_ns) / NTP_NSEC_PER_SEC,
				   (double)(now - s->last_tick_ns) / NTP_NSEC_PER_SEC);
	if (n < 0)
		ntp_record__live_failed(s, n);
	s->last_tick_ns = now;
}

void ntp_record__live_end(struct ntp_record_session *s, uint64_t stop_ns)
{
	if (!s->live)
		return;
	if (s->match)
		ntp_live_match__expire(s->match, UINT64_MAX);
	ntp_record__live_tick(s, stop_ns);
}

void ntp_record__free_live(struct ntp_record_session *s)
{
	ntp_live_match__free(s->match);
	ntp_live__free(s->live);
}
