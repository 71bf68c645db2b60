/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording read back as the events its recorder handed over, in the
 * order of their completion, for ntprof top --input: a host recording's
 * host_io rows, a target recording's target_io rows, or both of a -r both
 * recording (one clock), merged.
 */
#ifndef NTP_TOP_REPLAY_H
#define NTP_TOP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/ntp_events.h"

struct ntp_top_replay;

/*
 * 0, or an NTP_EXIT_* code after one line (the reader's: missing, not an
 * .ntp, ...; a joined recording or several: NTP_EXIT_USAGE)
 */
int ntp_top_replay__open(struct ntp_top_replay **r, const char *path);
/*
 * rc, or the recording's verdict (ntp_source__verdict: a file found
 * damaged while it was read) when rc is 0; r freed
 */
int ntp_top_replay__close(struct ntp_top_replay *r, int rc);
/* the side has rows: asked before the first ntp_top_replay__next */
bool ntp_top_replay__has_host(const struct ntp_top_replay *r);
bool ntp_top_replay__has_target(const struct ntp_top_replay *r);
/* the recording's -s (meta sample_one_in), 1 when it does not say */
uint64_t ntp_top_replay__sample_one_in(const struct ntp_top_replay *r);

/*
 * The next event by completion (h_done, t_sent): 1 with *h or *t set (the
 * other NULL; valid until the next call), 0 at the end, or
 * -NTP_EXIT_CORRUPT after one line.  *done its completion.
 */
int ntp_top_replay__next(struct ntp_top_replay *r, const struct ntp_host_event **h,
			 const struct ntp_target_event **t, uint64_t *done);

#endif
