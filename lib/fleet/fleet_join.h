/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The join in the engine (ntprof-fleet(7), THE JOIN IN THE ENGINE).
 *
 * Which runs are joined: a "-r both" run with itself (one clock); the host
 * and target runs pushed together by one command whose wall-clock spans
 * overlap (a run without a span in its meta overlaps every other), as
 * report joins the files given to it (recordings without nvmf_ids pair
 * this way only); and a run with the committed runs of the other side
 * whose nvmf_ids share a subsystem NQN with it and whose wall-clock spans
 * overlap.  Runs join only of one transport, sample rate and sampling hash:
 * runs pushed together that differ on one, or runs tied by a subsystem NQN
 * that differ on the sample rate or the hash (another transport is another
 * path to the subsystem, not a pair), are refused as a join of files is,
 * in one line with the setting's exit code (NTP_EXIT_HASH, NTP_EXIT_MISMATCH),
 * after the push's other joins: both runs stay pushed, each side's report
 * is read alone.
 *
 * The clock: one clock (a "-r both" run, or equal boot ids) is the line
 * o = 0.  Two clocks are estimated by ntprof's own estimate (lib/join/),
 * which ClickHouse 18.16 cannot run (no ASOF JOIN, no inequality in a
 * join): ntprof reads back a sample of both runs' commands (every
 * occurrence of a sample of the keys, about NTP_FLEET_SAMPLE_ROWS a side),
 * joins it as it joins files, and stores the line in clocks.
 *
 * The pairing is the engine's, in INSERT ... SELECT statements into pairs,
 * one for each part of the join keys (equal ranges of the 64-bit key, a
 * part a part_rows commands of the larger side:
 * a command and its candidates share a key, so the parts pair as the whole
 * would, and a statement's memory is a part's): each
 * command's interval (the host's h_queue to h_done moved onto the target's
 * clock by the line and widened by its tolerance; the target's t_recv to
 * t_sent) is cut into buckets of NTP_FLEET_BUCKET_NS; host and target rows
 * meet by equality of subsystem, cntlid, join key and bucket (USING: the
 * only join a Distributed left side allows), once, in the first bucket they
 * share; the candidates are held to ntprof's bound (ntprof-design(7),
 * JOINING) and each host command takes its nearest target record, each
 * target record its nearest host command.  The clocks row, written last,
 * commits the pairs and holds the counts.
 */
#ifndef NTP_FLEET_JOIN_H
#define NTP_FLEET_JOIN_H

#include "lib/fleet/fleet_run.h"
#include "lib/fleet/fleet_schema.h"

#define NTP_FLEET_SAMPLE_ROWS 200000
#define NTP_FLEET_BUCKET_NS 1000000
#define NTP_FLEET_PART_ROWS 250000

/*
 * join the runs just pushed (runs[0..n)) as said above, in parts of about
 * part_rows commands a side (0: NTP_FLEET_PART_ROWS); 0 or an NTP_EXIT_*
 * code after one line
 */
int ntp_fleet_join__pushed(struct ntp_fleet *f, const struct ntp_fleet_run *runs, int n,
			   int64_t part_rows);

#endif
