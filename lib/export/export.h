/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntprof export: recordings as a Perfetto trace (ntprof-export(1)).  Every
 * sampled command is a slice on a lane of its queue, its stages nested
 * inside; with host and target recordings joined, the target's part of a
 * command is a slice on the target's queue, linked to the host's by a flow
 * and placed on the host's clock by the join's estimate.
 */
#ifndef NTP_EXPORT_H
#define NTP_EXPORT_H

struct ntp_export_opts {
	const char *output;	/* -o FILE; NULL: the first recording's name, .pftrace */
};

/* 0 or an NTP_EXIT_* code after one error line */
int ntp_export__run(const char *const *paths, int n, const struct ntp_export_opts *o);

#endif
