/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording read back as the events its recorder handed over, in the
 * order of their start, for ntprof top --input: a host recording's host_io
 * rows by h_start_ns, a target recording's target_io rows by t_recv_ns, or
 * both of a -r both recording (one clock), merged.  The start is what
 * report's --time selects by, so that the events before a time are those
 * report --time ,T reads.
 *
 * A -r both recording's target events come NTP_TOP_REPLAY_LOOKAHEAD_NS
 * ahead of their start: a pair is counted when its second half arrives, and
 * a target receives a command after its host started it, so that each pair
 * is counted with its host side, by h_start_ns as report --time counts
 * joined commands, whenever the target received it within the lookahead.
 */
#ifndef NTP_TOP_REPLAY_H
#define NTP_TOP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/ntp_events.h"

struct ntp_top_replay;

/* longer than any command takes from its start on the host to the target's receipt */
#define NTP_TOP_REPLAY_LOOKAHEAD_NS 1000000000ULL

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
 * where report's --time counts from (ntp_read_filter__file_start: meta
 * start_ns, else the first command's start), on the recording's clock
 */
int64_t ntp_top_replay__origin(const struct ntp_top_replay *r);

/*
 * The next event by start (h_start, t_recv less the lookahead): 1 with *h
 * or *t set (the other NULL; valid until the next call), 0 at the end, or
 * -NTP_EXIT_CORRUPT after one line.  *key its place in that order.
 */
int ntp_top_replay__next(struct ntp_top_replay *r, const struct ntp_host_event **h,
			 const struct ntp_target_event **t, uint64_t *key);

#endif
