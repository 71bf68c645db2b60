// SPDX-License-Identifier: GPL-2.0
/*
 * Per-command stage arithmetic (lib/core/stages.h), a line-by-line transcription
 * of the views host_stages and target_stages in schema/ntp.sql.  Keep the two
 * in step: a change to a view must be made here too, and test_stages fails
 * until it is.
 */
#include "lib/core/checked.h"
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
	ntp_stages__host_points(&(struct ntp_host_points){ start, queue, sent, r2t_host, recv, done },
				out);
}

/* each operation in the views' order, so that any one that overflows is seen */
bool ntp_stages__host_points(const struct ntp_host_points *p, struct ntp_host_stages *out)
{
	bool over = false;
	struct ntp_host_stages s = {
		.e2e = ntp_checked__sub(p->done, p->start, &over),
		.block = ntp_checked__sub(p->queue, p->start, &over),
		.driver = ntp_checked__add(ntp_checked__add(ntp_checked__sub(p->sent, p->queue, &over),
							    p->r2t_host, &over),
					   ntp_checked__sub(p->done, p->recv, &over), &over),
		.network_star = ntp_checked__sub(ntp_checked__sub(p->recv, p->sent, &over),
						 p->r2t_host, &over),
	};

	*out = over ? (struct ntp_host_stages){ 0 } : s;
	return !over;
}

void ntp_stages__target(const struct ntp_target_event *e, struct ntp_target_stages *out)
{
	int64_t recv = (int64_t)e->t_recv, sent = (int64_t)e->t_sent;
	int64_t submit = or(e->t_submit, recv);
	int64_t cmpl = or(e->t_cmpl, submit);
	/* the R2T wait (R2T queued to all write data in) is network time */
	int64_t r2t_wait = e->t_r2t && e->t_submit ? (int64_t)e->t_submit - (int64_t)e->t_r2t : 0;

	ntp_stages__target_points(&(struct ntp_target_points){ recv, submit, cmpl, r2t_wait, sent },
				  out);
}

bool ntp_stages__target_points(const struct ntp_target_points *p, struct ntp_target_stages *out)
{
	bool over = false;
	struct ntp_target_stages s = {
		.target_driver = ntp_checked__add(
			ntp_checked__sub(ntp_checked__sub(p->submit, p->recv, &over), p->r2t_wait, &over),
			ntp_checked__sub(p->sent, p->cmpl, &over), &over),
		.storage = ntp_checked__sub(p->cmpl, p->submit, &over),
		.residence = ntp_checked__sub(ntp_checked__sub(p->sent, p->recv, &over), p->r2t_wait,
					      &over),
	};

	*out = over ? (struct ntp_target_stages){ 0 } : s;
	return !over;
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
