/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types of the join's interface (lib/join/join.h says what the join does),
 * apart from its functions so that the join's own files share them too.
 */
#ifndef NTP_JOIN_TYPES_H
#define NTP_JOIN_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/ntp/db_app.h"
#include "lib/ntp/db_role.h"

/* SQLite's default limit of attached databases */
#define NTP_JOIN_MAX_FILES 10

/* the most readers a join runs at once (one a CPU); a caller of opts.tag gives as many contexts */
#define NTP_JOIN_READERS 4

/* what a tag function (ntp_join_opts.tag) sees of a host command as the join reads it */
struct ntp_join_host_row {
	int host_file;		/* index of ntp_join__file() */
	const char *io_type, *ns, *path;	/* host_stages' io_type, namespace, path */
	int64_t bytes, qid, h_start_ns;
};

/* a host command whose stages are not wanted (a read filter left it out) */
#define NTP_JOIN_UNTAGGED UINT32_MAX

/* *tag for the command: below NTP_JOIN_UNTAGGED, or that; 0, or -ENOMEM to stop the join */
typedef int (*ntp_join_tag_fn)(void *ctx, const struct ntp_join_host_row *row, uint32_t *tag);

struct ntp_join_opts {
	int64_t slack_ns;	/* added to the measured tolerance; default 1000 */
	int64_t min_support;	/* pairs that must agree on an offset; default 8 */
	double max_drift;	/* largest |drift| searched; default 500e-6 */
	int fresh;		/* pair a "-r both" recording anew, not by its stored pairing */
	/*
	 * Set for a caller of ntp_join__scan_stages: every command's stages
	 * are read with its key, through the stage views, and kept (the
	 * host's in scratch files, the target's in memory) until the matching
	 * (lib/join/join_keep.c), so that each file is read once.  Reader w (below NTP_JOIN_READERS, several at once)
	 * calls tag(tag_ctx[w], ...) for every host command it reads, and the
	 * scan gives the command's stages back with the tag, to the same
	 * tag_ctx[w].  In this mode temp.joined lists the matched commands in
	 * the host files' storage order.
	 */
	ntp_join_tag_fn tag;
	void *tag_ctx[NTP_JOIN_READERS];
	/* the tag tests read filters: a row's path and h_start_ns are read (else NULL and 0) */
	int tag_filters;
};

/*
 * Whether the two sides of a combination share one clock.  Records of one
 * kernel are stamped with one CLOCK_MONOTONIC (bpf_ktime_get_ns), so the
 * offset is known to be 0 and the drift 0: estimating them would only
 * report the centre of the pairs' band (some us) as if it were a skew.
 */
enum ntp_join_clock {
	NTP_JOIN_CLOCK_TWO = 0,		/* two clocks: offset and drift estimated */
	NTP_JOIN_CLOCK_ONE_FILE,	/* one "-r both" recording holds both sides */
	NTP_JOIN_CLOCK_ONE_BOOT,	/* two recordings with one meta boot_id */
};

/* one (host file, target file) combination and its clock estimate */
struct ntp_join_pair {
	int host_file, target_file;	/* indexes of ntp_join__file() */
	enum ntp_join_clock clock;	/* one clock: offset and drift exactly 0 */
	int estimated;		/* 0: fewer than min_support pairs agreed; 1 with one clock */
	int64_t t0_ns;		/* host time the line is centred on */
	double offset_ns;	/* o(t0) = target clock - host clock at t0 */
	double drift;		/* do/dt, e.g. 12e-6 for 12 ppm */
	double tol_ns;		/* how far a pair's interval may miss o(t) */
	int64_t candidates;	/* candidate pairs the final estimate looked at */
	int64_t support;	/* of those, pairs agreeing with the line */
	int64_t matched;	/* rows of temp.joined for this combination */
};

/*
 * Host rows = matched + rejected + unmatched_host.
 * rejected: a record of the same key on the target this host controller
 * talks to overlaps the command in time under the estimate, but lies outside
 * the offset bound (on one clock: was received outside the command's flight)
 * or lost to a nearer pair - a mismatch, never joined.
 * unmatched_host: no such record (lost on the target, or recorded while the
 * target was not).  unmatched_target: target rows not joined.
 */
struct ntp_join_counts {
	int64_t host_rows, target_rows;
	int64_t matched;
	int64_t unmatched_host;
	int64_t unmatched_target;
	int64_t rejected;
};

struct ntp_join_file {
	const char *path;
	const char *schema;	/* "ntp0", "ntp1", ... */
	const char *role;	/* meta role: host | target | both */
	int sides;		/* enum ntp_side */
};

/* one matched command's stages, as temp.joined has them */
struct ntp_join_stages {
	int host_file;		/* index of ntp_join__file() */
	uint32_t tag;		/* what opts.tag gave the host command */
	int64_t e2e;
	int64_t stage[5];	/* block, driver, network, target_driver, storage */
	/* an impossible command: a time that is no integer, a difference that overflows */
	bool not_number, overflow;
	/* the host's application stages (host_app_stages); state NTP_APP_ROW_NONE without */
	struct ntp_app_row app;
};

/* called for every matched command; a nonzero return stops the scan and is returned */
typedef int (*ntp_join_stages_fn)(void *ctx, const struct ntp_join_stages *s);

#endif
