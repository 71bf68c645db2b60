/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ntprof record` prints while it records (ntprof-record(1), "Output
 * while recording"), and the live pairing of host and target events for
 * `-r both`.
 *
 * The lines.  Events are added as they come; every tick prints one line per
 * group (I/O type, size, namespace) that had events since the previous tick,
 * ordered by namespace, I/O type and size, as the report orders its groups:
 *
 *                                                                           host                   target
 *     time  group                       n   cmds/s   mean us    p99 us   block  driver network  driver storage
 *     3.0s  read 4KiB nvme6n1         154    15.5k     73.40     80.73      1%      2%    98%*
 *
 * The two header lines are printed once, before the first line.  A tick
 * without events prints nothing.  Per line:
 *   time     the caller's elapsed seconds, one decimal
 *   group    "read|write|other SIZE NAME"; SIZE as the report writes it
 *            (512B, 4KiB, 128KiB, 1MiB); NAME the namespace (head) disk,
 *            or the target's backend device in NTP_LIVE_TARGET mode
 *   n        commands sampled in this interval
 *   cmds/s   estimated: n x sample_one_in / interval; 154, 15.5k, 1.2M
 *   mean us, p99 us
 *            of the end-to-end latency (h_done - h_start), in us with two
 *            decimals; p99 is the nearest rank, as in the report.  In
 *            NTP_LIVE_TARGET mode these are of the target residence (what the
 *            target adds to the host's round trip, target_stages.residence_ns),
 *            and the header says "residence" above them
 *   shares   each stage's sum over the interval in percent of the summed
 *            end-to-end (target mode: of the summed residence), whole
 *            percents rounded by the largest-remainder method so that a
 *            line's shares add up to exactly 100.  NTP_LIVE_HOST: block,
 *            driver and network* (network + target, marked '*'), target
 *            columns empty.  NTP_LIVE_JOINED: all five.  NTP_LIVE_TARGET:
 *            host columns empty, target driver and storage.  "-" when the
 *            denominator is not positive (hooks in impossible order).
 * Trailing blanks are not printed.  The stages are those of lib/core/stages.h.
 */
#ifndef NTP_LIVE_H
#define NTP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "lib/collect/inflight_expire.h"     /* NTP_PARKED_EXPIRE_NS */

enum ntp_live_mode {
	NTP_LIVE_HOST,          /* -r host: add host events */
	NTP_LIVE_TARGET,        /* -r target: add target events */
	NTP_LIVE_JOINED,        /* -r both: add matched pairs (struct ntp_live_match) */
};

struct ntp_live;

/* NULL with errno = ENOMEM or EINVAL (sample_one_in 0, unknown mode) */
struct ntp_live *ntp_live__new(enum ntp_live_mode mode, uint64_t sample_one_in);
void ntp_live__free(struct ntp_live *l);

/* 0, -EINVAL in another mode, -ENOMEM (the event is not counted) */
int ntp_live__add_host(struct ntp_live *l, const struct ntp_host_event *e);
int ntp_live__add_target(struct ntp_live *l, const struct ntp_target_event *e);
int ntp_live__add_pair(struct ntp_live *l, const struct ntp_host_event *h,
		       const struct ntp_target_event *t);

/*
 * Print the lines of the interval that ends now, elapsed_s after the start
 * of the recording and interval_s long (the measured length, for cmds/s),
 * and start a new interval.  Returns the number of lines printed (0 when
 * the interval had no events), -EIO when writing to f failed, or -ENOMEM
 * (printing nothing) when ntp_live__on_pair could not count a pair since
 * the previous tick.
 */
int ntp_live__tick(struct ntp_live *l, FILE *f, double elapsed_s, double interval_s);

/*
 * The same aggregation as rows, for a view of its own (ntprof top).  Each
 * row is a group with commands in the span, in the report's order; the
 * numbers are those of the lines.  ntp_live__keep_total() (before the
 * first event) keeps a second set of groups that is never emptied, for a
 * whole-run view; its p99 then needs every end-to-end sample of the run.
 */
#define NTP_LIVE_NSTAGES 5      /* block, driver, network, target driver, storage */
struct ntp_live_row {
	const char *io_type;            /* "read", "write", "other"; "" by queue or process */
	uint32_t bytes;
	char name[NTP_DISK_NAME_LEN + 1];
	uint64_t n;
	double rate;                    /* cmds/s estimated over the span; < 0 unknown */
	int64_t sum_e2e;                /* target mode: summed residence */
	int64_t mean_ns;                /* of e2e (residence), rounded to whole ns */
	int64_t p99_ns;                 /* nearest rank; -1 with too few commands */
	bool on[NTP_LIVE_NSTAGES];      /* the stages of the mode */
	bool shares_ok;                 /* false: the summed e2e is not positive */
	int pct[NTP_LIVE_NSTAGES];      /* whole percents adding up to 100 */
	uint64_t n_app;                 /* commands with the application's side */
	int64_t app_mean_ns;
};

void ntp_live__keep_total(struct ntp_live *l);

/* a row's cells, in the order of the lines (after their time) */
enum ntp_live_cell {
	NTP_LIVE_CELL_GROUP,    /* "read 4KiB nvme0n1"; the name alone for a queue or process */
	NTP_LIVE_CELL_N,
	NTP_LIVE_CELL_RATE,     /* as ntp_live__rate_str; "-" unknown */
	NTP_LIVE_CELL_MEAN,     /* us, two decimals */
	NTP_LIVE_CELL_P99,      /* us, two decimals; "-" with too few commands */
	NTP_LIVE_CELL_STAGE0,   /* + stage: "12%", "98%*" (a host's network*), "-" (no shares), "" off */
	NTP_LIVE_CELL_APP = NTP_LIVE_CELL_STAGE0 + NTP_LIVE_NSTAGES,    /* us; "-" none recorded */
	NTP_LIVE_NCELLS,
};
/*
 * The text of a row's cell as record's lines and top's rows write it,
 * into buf (the names as the row has them: a view that draws on a
 * terminal makes them safe).  mode: the aggregation's, which marks a
 * host's network* share.
 */
void ntp_live_row__cell(const struct ntp_live_row *r, enum ntp_live_mode mode,
			enum ntp_live_cell cell, char *buf, size_t len);

/*
 * The rows' key, before the first event: the groups (I/O type, size,
 * namespace), or the host's queue ("nvme0 q1"), submitting process
 * ("fio 1234", "(not recorded)" without a pid), submitting CPU ("cpu 3")
 * or queue's io_cpu ("io_cpu 0"; "(not recorded)" without one), named as report --by
 * names its rows; io_type "" and bytes 0 then.  0, or -EINVAL (a target
 * has neither).
 */
enum ntp_live_by {
	NTP_LIVE_BY_GROUP,
	NTP_LIVE_BY_QUEUE,
	NTP_LIVE_BY_PROCESS,
	NTP_LIVE_BY_CPU,        /* "cpu 3": the submitting CPU */
	NTP_LIVE_BY_IO_CPU,     /* "io_cpu 0": the queue's io_cpu */
};
int ntp_live__set_by(struct ntp_live *l, enum ntp_live_by by);
/*
 * *rows (malloc'd, *n of them; NULL and 0 when none) of the current
 * interval, or of the whole run when total; span_s is the span's length,
 * for the rates.  Nothing is reset.  0, -EINVAL (total without
 * ntp_live__keep_total), -ENOMEM, or the error of a pair
 * ntp_live__on_pair could not count (reported once).
 */
int ntp_live__rows(struct ntp_live *l, bool total, double span_s, struct ntp_live_row **rows,
		   size_t *n);
/* start a new interval: the current one's groups emptied, the idle ones freed */
void ntp_live__next(struct ntp_live *l);
/* a rate as the lines write it: 154, 15.5k, 1.2M; one decimal below 10 */
void ntp_live__rate_str(double r, char *buf, size_t len);

/*
 * Live matching for -r both: host and target on one machine, one clock.
 * Feed every host and target event as it arrives, in any order.  A host
 * event and a target event are the same command when they agree on (cid,
 * slba, nlb0, qid, cntlid, opcode, nsid) and the target received it while
 * the host had it in flight: h_queue <= t_recv <= h_recv (h_done when
 * h_recv is 0).  A command id cannot be in flight twice, so at most one
 * pending event of a reused key satisfies that.  Each pair is handed to the
 * callback as soon as its second half arrives (the pointers are valid
 * during the call only).  An event still unmatched hold_ns after its
 * completion (h_done, t_sent) is dropped at the next
 * ntp_live_match__expire() and counted.  Memory is fixed at creation (about
 * 400 bytes per unit of capacity): each side keeps its events in arrival
 * order in a ring of `capacity`, and an event is also dropped, counted as
 * evicted, once `capacity` later events of its side arrived, matched or not.
 * Call expire about once a tick, so that holds only when the sampled rate
 * exceeds capacity / (hold + tick).
 */
typedef void (*ntp_live_match_cb)(void *ctx, const struct ntp_host_event *h,
				  const struct ntp_target_event *t);

/* a ntp_live_match_cb that adds the pair to ctx, a struct ntp_live in NTP_LIVE_JOINED mode */
void ntp_live__on_pair(void *live, const struct ntp_host_event *h, const struct ntp_target_event *t);

#define NTP_LIVE_MATCH_CAPACITY 16384            /* per side: 8 s of 2k sampled cmds/s */
/*
 * How long an unmatched event waits after its completion.  A target event
 * comes when the target sends its response, but its host event only when
 * the application reaps the command (bpf/host_app.bpf.h), or when the host
 * collector stops waiting for that, NTP_PARKED_EXPIRE_NS after the
 * completion: a target event waits that long, plus 2 s for reading the
 * rings.  (2 s alone lost 3 of 255 pairs on a TCG guest whose fio reaped
 * 2.4 s after the completion.)
 */
#define NTP_LIVE_MATCH_HOLD_NS  (NTP_PARKED_EXPIRE_NS + 2000000000ULL)

struct ntp_live_match_stats {
	uint64_t matched;                /* pairs handed to the callback */
	uint64_t host_unmatched;         /* host events dropped: expired or evicted */
	uint64_t target_unmatched;
	uint64_t evicted;                /* of those, dropped early because capacity was full */
	uint64_t host_pending, target_pending;  /* waiting now */
};

struct ntp_live_match;

/* NULL with errno = ENOMEM or EINVAL (capacity 0 or above 2^30, no callback) */
struct ntp_live_match *ntp_live_match__new(size_t capacity, uint64_t hold_ns,
					   ntp_live_match_cb cb, void *ctx);
void ntp_live_match__free(struct ntp_live_match *m);
/* 1 when e completed a pair (the callback has run), 0 when it waits */
int ntp_live_match__add_host(struct ntp_live_match *m, const struct ntp_host_event *e);
int ntp_live_match__add_target(struct ntp_live_match *m, const struct ntp_target_event *e);
/*
 * Drop the events that completed more than hold_ns before now_ns (the
 * events' clock: CLOCK_MONOTONIC).  UINT64_MAX drops every pending event:
 * call it so at the end of the recording to count the last unmatched ones.
 */
void ntp_live_match__expire(struct ntp_live_match *m, uint64_t now_ns);
void ntp_live_match__stats(const struct ntp_live_match *m, struct ntp_live_match_stats *s);

#endif
