// SPDX-License-Identifier: GPL-2.0
/*
 * Per-command stage arithmetic (lib/core/stages.h), a line-by-line transcription
 * of the views host_stages and target_stages in schema/ntp.sql.  Keep the two
 * in step: a change to a view must be made here too, and test_stages fails
 * until it is.
 */
#include "lib/core/stages.h"

/* COALESCE over a nullable column: 0 is NULL */
static int64_t or(__u64 t, int64_t fallback)
{
	return t ? (int64_t)t : fallback;
}

void ntp_stages__host(const struct ntp_host_event *e, struct ntp_host_stages *out)
{
	int64_t start = (int64_t)e->h_start, queue = (int64_t)e->h_queue, done = (int64_t)e->h_done;
	int64_t cmd_sent = or(e->h_cmd_sent, queue);
	int64_t sent, r2t_host = 0, recv;

	/*
	 * An R2T write: the capsule went out at cmd_sent, and the host's work
	 * between the R2T and its last data PDU is driver time, not network.
	 * Otherwise the command left when both capsule and data were out.
	 */
	if (e->h_r2t && e->h_data_sent) {
		sent = cmd_sent;
		r2t_host = (int64_t)e->h_data_sent - (int64_t)e->h_r2t;
	} else {
		int64_t data_sent = or(e->h_data_sent, cmd_sent);

		sent = cmd_sent > data_sent ? cmd_sent : data_sent;
	}
	recv = or(e->h_recv, done);

	out->e2e = done - start;
	out->block = queue - start;
	out->driver = (sent - queue) + r2t_host + (done - recv);
	out->network_star = (recv - sent) - r2t_host;
}

void ntp_stages__target(const struct ntp_target_event *e, struct ntp_target_stages *out)
{
	int64_t recv = (int64_t)e->t_recv, sent = (int64_t)e->t_sent;
	int64_t submit = or(e->t_submit, recv);
	int64_t cmpl = or(e->t_cmpl, submit);
	/* the R2T wait (R2T queued to all write data in) is network time */
	int64_t r2t_wait = e->t_r2t && e->t_submit ? (int64_t)e->t_submit - (int64_t)e->t_r2t : 0;

	out->target_driver = (submit - recv) - r2t_wait + (sent - cmpl);
	out->storage = cmpl - submit;
	out->residence = (sent - recv) - r2t_wait;
}

void ntp_stages__joined(const struct ntp_host_event *h, const struct ntp_target_event *t,
			struct ntp_joined_stages *out)
{
	struct ntp_host_stages hs;
	struct ntp_target_stages ts;

	ntp_stages__host(h, &hs);
	ntp_stages__target(t, &ts);
	out->e2e = hs.e2e;
	out->block = hs.block;
	out->driver = hs.driver;
	out->network = hs.network_star - ts.residence;
	out->target_driver = ts.target_driver;
	out->storage = ts.storage;
}

bool ntp_stages__app_e2e(const struct ntp_host_event *e, int64_t *out)
{
	if (!e->h_app_submit || !e->h_app_done)
		return false;
	*out = (int64_t)((e->h_app_reap ? e->h_app_reap : e->h_app_done) - e->h_app_submit);
	return true;
}
