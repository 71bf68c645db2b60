/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Joining host recordings with target recordings (ntprof-design(7), JOINING).
 *
 * Each side timestamps on its own clock.  A host command and the target's
 * record of it share the key (cid, slba, nlb, qid, nsid, cntlid, opcode), but
 * command ids are reused, so a key repeats; what tells the occurrences apart
 * is time.  With o = target clock - host clock, a true pair satisfies
 *
 *	t_sent - h_done  <=  o  <=  t_recv - h_queue
 *
 * (the target received the command after the host queued it, and sent the
 * response before the host completed it).  The bound uses h_queue and h_done,
 * not the tighter "sent"/"recv" of host_stages, on purpose: on loopback a
 * socket hook may fire after the peer already saw the bytes, and in-capsule
 * write data may still be in flight when the target parses the capsule, so
 * only the two outermost points are causally safe.  The interval is still
 * narrow: its width is the round trip outside the target, a few tens of us.
 *
 * The offset and a linear drift are estimated per (host file, target file)
 * from candidate pairs of equal key, NTP-style but robust to false pairs:
 * the line o(t) = a + b (t - t0) satisfied by the most pair intervals,
 * found by a coarse-to-fine grid over b with an interval sweep over a, then
 * centred in the band the agreeing intervals leave (join_est.c).  Pass 1
 * looks at a bounded sample (every pair of rare keys, a few host
 * occurrences of hot keys against all target ones) and admits generously;
 * pass 2 re-estimates from everything pass 1 admitted, so the final line
 * fits every true pair and the final tolerance is the measured one (1 us
 * slack by default, for drift that is not quite linear).  Then every host
 * command is paired with the same-key target command whose interval holds
 * o(h_queue): the pairing is by time, not by occurrence number, so a sample
 * lost on either side, or commands only one side recorded before the other
 * started, shift nothing.  It is exact because one (cntlid, qid, cid) cannot
 * be in flight twice: the target's record of the previous or next use of a
 * key lies wholly outside this command's flight, so at most one target
 * record fits the bound; should two fit, the nearer to the line wins
 * (mutual nearest, each row used once).
 *
 * Several hosts and several targets: every host file is estimated against
 * every target file; keys carry cntlid, which differs between the hosts of
 * one target, and a host controller (nvmeX) talks to exactly one target, so
 * each host controller is bound to the target file that agrees with most of
 * its commands, and pairs must agree on key, offset and that binding.
 *
 * One clock: a "-r both" recording, or a host and a target recording of one
 * boot (equal meta boot_id: one kernel's bpf_ktime_get_ns), has no offset to
 * estimate.  Its line is o(t) = 0 exactly, and with nothing to estimate the
 * bound needs only the receive: h_queue <= t_recv <= h_done (t_recv - h_done
 * stands for t_sent - h_done above).  That is causal without exception and
 * still picks one occurrence of a key, where t_sent is not quite: on
 * loopback the target's exit hook may fire after the host completed.
 *
 * Scale: each side is read once, by several readers at once (one a CPU,
 * each its share of every file's ids), into compact rows (key hash, the
 * bound's times, ids) sorted by key and time, and every step after that -
 * the sample, the candidates, the binding, the matching - is a merge of the
 * two sides key by key, linear in the commands whatever the key reuse
 * (lib/join/join_priv.h).  The stage arithmetic stays in SQL: temp.joined
 * reads each matched pair's two rows from the recordings by id, through the
 * schema's views, as the query runs; and the summary report, which needs
 * every matched command's stages and nothing else, has the join read them
 * through the same views in the one reading of each file, and keep them
 * until the matching says which go together (opts.tag, join_keep.c).
 */
#ifndef NTP_JOIN_H
#define NTP_JOIN_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/ntp/db_app.h"

/* SQLite's default limit of attached databases */
#define NTP_JOIN_MAX_FILES 10

enum ntp_join_side {
	NTP_JOIN_HOST = 1 << 0,		/* the file has host_io rows to join */
	NTP_JOIN_TARGET = 1 << 1,	/* the file has target_io rows to join */
};

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

/* how a report says it: "same clock (one recording)", "... (one boot)"; NULL: two clocks */
const char *ntp_join__clock_name(enum ntp_join_clock c);

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
	int sides;		/* enum ntp_join_side */
};

struct ntp_join;

/* the sides a recording of meta role ROLE has (enum ntp_join_side); 0 for none */
int ntp_join__role_sides(const char *role);

/*
 * ATTACH the recording at PATH read-only (file: URI, mode=ro) as SCHEMA.
 * db must have been opened with SQLITE_OPEN_URI and must allow TEMP writes
 * (ntp_join__open makes such a connection).  The file is first checked as
 * ntp_db__open_read checks it.  Returns 0 or an NTP_EXIT_* code after one
 * error line.
 */
int ntp_join__attach(sqlite3 *db, const char *path, const char *schema);

/*
 * Refuse (NTP_EXIT_MISMATCH, one line) unless the attached recordings in
 * schemas[0..n) can be joined: equal sample_one_in, hash_version and
 * transport, known roles, and at least one host side and one target side.
 * paths[] name the files in the message.  *sides (may be NULL) gets each
 * file's enum ntp_join_side.
 */
int ntp_join__check(sqlite3 *db, const char *const *schemas, const char *const *paths,
		    int n, int *sides);

/*
 * Open paths[0..n) in any order and any mix (a host and a target, several
 * hosts and one target, one host and several targets, or one "-r both"
 * file): a private in-memory connection ATTACHes each read-only as
 * "ntp<i>" and checks them (ntp_join__check).  opts may be NULL; what its
 * tag contexts point to need only be ready for ntp_join__run.  Returns 0 or
 * an NTP_EXIT_* code.
 */
int ntp_join__open(struct ntp_join **jp, const char *const *paths, int n,
		   const struct ntp_join_opts *opts);

/*
 * Read the files, estimate offsets, pair commands, create temp.joined; 0
 * or NTP_EXIT_*.  Once per ntp_join__open: the compact rows are freed when
 * it returns.
 */
int ntp_join__run(struct ntp_join *j);

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

/*
 * After ntp_join__run with opts.tag: the stages of every matched command
 * whose tag is not NTP_JOIN_UNTAGGED, from where they were kept, in no
 * particular order: fn(opts.tag_ctx[w], ...) for the commands reader w
 * read (readers run at once, on threads).  The scan is the join's last
 * reader: it frees the matches, and temp.join_matches (temp.joined)
 * refuses to be read after it.  0, fn's nonzero return, or NTP_EXIT_*.
 */
int ntp_join__scan_stages(struct ntp_join *j, ntp_join_stages_fn fn);

/*
 * After ntp_join__run on one host side and one target side (a host and a
 * target recording, or one "-r both" recording): write them, joined, into
 * the new, empty file at path (ntprof-join(1)): their rows as recorded,
 * join_pairs, join_clock, join_meta, and meta role 'joined'
 * (schema/ntp.sql).  Refuses (NTP_EXIT_MISMATCH, one line) other
 * combinations, a joined recording, and a join that matched nothing.
 * 0 or NTP_EXIT_*.
 *
 * A joined recording given to ntp_join__open alone is not joined again:
 * ntp_join__run reads its join_pairs and join_clock, and everything after
 * (temp.joined, ntp_join__scan_stages, the pairs and counts) is what the
 * join of the recordings it was made of gave.  The same holds for a "-r
 * both" recording given alone that holds a pairing (ntp_join__store),
 * unless opts->fresh.
 */
int ntp_join__write(struct ntp_join *j, const char *path);

/*
 * A "-r both" recording at path joined, and its pairing written into it:
 * join_pairs and join_clock replaced, so that its joined_stages view holds
 * the join's stages (record -r both calls it when the recording is
 * closed).  Nothing else in the file changes.  0 or NTP_EXIT_* after one
 * line.
 */
int ntp_join__store(const char *path);

/* the connection: query temp.joined (and ntp<i>.* tables) with it */
sqlite3 *ntp_join__db(const struct ntp_join *j);
const struct ntp_join_file *ntp_join__file(const struct ntp_join *j, int i);
void ntp_join__counts(const struct ntp_join *j, struct ntp_join_counts *c);
/*
 * The rows of file i's host_io and target_io the join read (all of them:
 * a report need not count them again); -1 for a side it did not read.
 */
void ntp_join__file_rows(const struct ntp_join *j, int i, int64_t *host_rows,
			 int64_t *target_rows);
int ntp_join__npairs(const struct ntp_join *j);
const struct ntp_join_pair *ntp_join__pair(const struct ntp_join *j, int i);
void ntp_join__close(struct ntp_join *j);

/* ---- the estimator (join_est.c), usable on its own ------------------------ */

/* one candidate pair: host time and the offset interval [lo, hi] it allows */
struct ntp_join_iv {
	int64_t t, lo, hi;
};

struct ntp_join_fit {
	int64_t t0;		/* centre of the host times */
	int64_t base;		/* keeps the doubles small: offsets near 1e16 ns */
	double a, b;		/* o(t) = base + a + b (t - t0) */
	double tol;		/* slack + how far agreeing intervals miss the line */
	double spread;		/* median width of the agreeing intervals */
	int64_t support;	/* intervals within tol of the line */
};

/*
 * The grid of the estimate's first step (lib/join/join_est.c) looks at a
 * stride sample of at most this many intervals.  Pass 1's candidates may be
 * mostly false pairs (hot keys), so it keeps many true ones among them; pass
 * 2's are the pairs pass 1 admitted, nearly all true, and its grid only
 * seeds the exact fit over all of them that follows (which searches every
 * drift, not only the grid's neighbourhood), so a smaller sample finds the
 * same line in an eighth of the time.
 */
#define NTP_JOIN_GRID_IV_MANY_FALSE 65536
#define NTP_JOIN_GRID_IV_FEW_FALSE 8192

/*
 * The line satisfied by the most intervals, |b| <= max_drift, its grid on
 * at most grid_iv of them (at least 1).  Returns 0, -ENOENT when n == 0,
 * or -ENOMEM.
 */
int ntp_join__estimate(const struct ntp_join_iv *iv, size_t n, double max_drift,
		       int64_t slack_ns, size_t grid_iv, struct ntp_join_fit *fit);

/*
 * No estimate: the line o(t) = 0 of one clock on both sides (base, a, b
 * all 0, tol = slack_ns), with the support and spread of iv[0..n) under
 * it.  n may be 0.  Returns 0 or -ENOMEM.
 */
int ntp_join__fit_zero(const struct ntp_join_iv *iv, size_t n, int64_t slack_ns,
		       struct ntp_join_fit *fit);

#endif
