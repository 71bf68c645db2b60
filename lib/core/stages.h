/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages of one command (ntprof-design(7), STAGES), computed in C: from
 * the raw events for the live lines of `record`, and from the views' points
 * for the summaries of `report`.  The definition is the views
 * host_stages and target_stages of schema/ntp.sql: these functions give the
 * very same numbers, fallbacks included (tests/unit/test_stages.c checks it
 * against the views).  A timestamp of 0 in an event is the NULL of the
 * tables: "this kernel gave no hook for that point".
 *
 * All results are signed nanoseconds: a stage of a command whose hooks fired
 * in an unexpected order may be negative, as it would be in the views.
 */
#ifndef NTP_STAGES_H
#define NTP_STAGES_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"

/* the columns of host_stages: network_star holds the network and the target */
struct ntp_host_stages {
	int64_t e2e;            /* h_done - h_start */
	int64_t block;
	int64_t driver;
	int64_t network_star;
};

/* the columns of target_stages */
struct ntp_target_stages {
	int64_t target_driver;
	int64_t storage;
	int64_t residence;      /* target_driver + storage: the target's share of the host's round trip */
};

/* one command seen by both sides: the five stages, which add up to e2e exactly */
struct ntp_joined_stages {
	int64_t e2e;
	int64_t block;
	int64_t driver;
	int64_t network;        /* network_star - residence */
	int64_t target_driver;
	int64_t storage;
};

void ntp_stages__host(const struct ntp_host_event *e, struct ntp_host_stages *out);
void ntp_stages__target(const struct ntp_target_event *e, struct ntp_target_stages *out);

/*
 * The points the views' stages are differences of, as the views give them
 * with their fallbacks (host_stages: h_start_ns, h_queue_ns, sent_ns,
 * r2t_host_ns, recv_ns, h_done_ns; target_stages: t_recv_ns, submit_ns,
 * cmpl_ns, r2t_wait_ns, t_sent_ns).  A reader that takes the points from a
 * view and the differences from here reads three columns fewer than the
 * stages, each of which SQLite computes anew with its fallbacks (the join's
 * scans: about a third of their time).
 */
struct ntp_host_points {
	int64_t start, queue, sent, r2t_host, recv, done;
};

struct ntp_target_points {
	int64_t recv, submit, cmpl, r2t_wait, sent;
};

/*
 * The stages as the views compute them from their points; false (and out
 * zeroed) where a difference overflows 64 bits, where the view's column is
 * a real number: an impossible command, not a wrapped one.
 */
bool ntp_stages__host_points(const struct ntp_host_points *p, struct ntp_host_stages *out);
bool ntp_stages__target_points(const struct ntp_target_points *p, struct ntp_target_stages *out);
/*
 * h and t: the host's and the target's record of one command.  Each side's
 * times are only subtracted from each other, so the clocks may differ.
 */
void ntp_stages__joined(const struct ntp_host_event *h, const struct ntp_target_event *t,
			struct ntp_joined_stages *out);
/*
 * The application's end-to-end of a host command, host_app_stages.app_e2e_ns:
 * h_app_submit to h_app_reap, or to h_app_done without a reap.  false (and
 * *out untouched) when the record lacks h_app_submit or h_app_done.
 */
bool ntp_stages__app_e2e(const struct ntp_host_event *e, int64_t *out);

#endif
