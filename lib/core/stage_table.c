// SPDX-License-Identifier: GPL-2.0
/* The stages of a command (lib/core/stage_table.h). */
#include <string.h>

#include "lib/core/stage_table.h"

#define H NTP_STAGE_HOST_SIDE
#define T NTP_STAGE_TARGET_SIDE
#define J NTP_STAGE_JOINED_SIDE
#define A NTP_STAGE_APP_SIDE

/*
 * The host's points: h_start_ns, h_queue_ns, sent_ns (the command, and a
 * write's in-capsule data, handed to the transport), r2t_host_ns (the
 * host's work between an R2T and its data, else 0), recv_ns (the
 * response received), h_done_ns.  The target's: t_recv_ns, submit_ns,
 * cmpl_ns, r2t_wait_ns (an R2T, or over RDMA a READ, to the data in, else
 * 0), t_sent_ns.  schema/ntp.sql says how each falls back where a kernel
 * has no hook.
 */
const struct ntp_stage_desc ntp_stages[NTP_NSTAGES] = {
	[NTP_STAGE_E2E] = { "e2e", "end-to-end", "", H,
		"host_stages", "h_done_ns - h_start_ns" },
	[NTP_STAGE_BLOCK] = { "block", "block", "", H,
		"host_stages", "h_queue_ns - h_start_ns" },
	[NTP_STAGE_DRIVER] = { "driver", "driver(h)", "driver", H,
		"host_stages", "(sent_ns - h_queue_ns) + r2t_host_ns + (h_done_ns - recv_ns)" },
	[NTP_STAGE_NETWORK_STAR] = { "network_star", "network*", "", H,
		"host_stages", "(recv_ns - sent_ns) - r2t_host_ns" },
	[NTP_STAGE_NETWORK] = { "network", "network", "", J,
		"joined_stages", "network_star - residence" },
	[NTP_STAGE_TARGET_DRIVER] = { "target_driver", "driver(t)", "", T,
		"target_stages", "(submit_ns - t_recv_ns) - r2t_wait_ns + (t_sent_ns - cmpl_ns)" },
	[NTP_STAGE_STORAGE] = { "storage", "storage", "", T,
		"target_stages", "cmpl_ns - submit_ns" },
	[NTP_STAGE_RESIDENCE] = { "residence", "residence", "", T,
		"target_stages", "(t_sent_ns - t_recv_ns) - r2t_wait_ns" },
	[NTP_STAGE_HOST_TX] = { "host_tx", "host-tx", "", H, NULL, "sent_ns - h_queue_ns" },
	[NTP_STAGE_R2T_HOST] = { "r2t_host", "r2t-host", "", H, NULL, "r2t_host_ns" },
	[NTP_STAGE_HOST_RX] = { "host_rx", "host-rx", "", H, NULL, "h_done_ns - recv_ns" },
	[NTP_STAGE_TARGET_RX] = { "target_rx", "target-rx", "", T, NULL,
		"(submit_ns - t_recv_ns) - r2t_wait_ns" },
	[NTP_STAGE_R2T_WAIT] = { "r2t_wait", "r2t-wait", "", J, NULL, "r2t_wait_ns - r2t_host_ns" },
	[NTP_STAGE_READ_WAIT] = { "read_wait", "read-wait", "", T, NULL, "r2t_wait_ns" },
	[NTP_STAGE_TARGET_TX] = { "target_tx", "target-tx", "", T, NULL, "t_sent_ns - cmpl_ns" },
	[NTP_STAGE_APP_SUBMIT] = { "submit", "submit", "", A,
		"host_app_stages", "h_start_ns - h_app_submit_ns" },
	[NTP_STAGE_APP_COMPLETE] = { "complete", "complete", "", A,
		"host_app_stages", "h_app_done_ns - h_done_ns" },
	[NTP_STAGE_APP_REAP] = { "reap", "reap", "", A,
		"host_app_stages", "h_app_reap_ns - h_app_done_ns" },
	[NTP_STAGE_APP_E2E] = { "app_e2e", "app e2e", "", A,
		"host_app_stages", "CASE WHEN h_app_done_ns IS NOT NULL THEN "
		"COALESCE(h_app_reap_ns, h_app_done_ns) - h_app_submit_ns END" },
};

