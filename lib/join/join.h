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
 * (lib/join/join_base.h).  The stage arithmetic stays in SQL: temp.joined
 * reads each matched pair's two rows from the recordings by id, through the
 * schema's views, as the query runs; and the summary report, which needs
 * every matched command's stages and nothing else, has the join read them
 * through the same views in the one reading of each file, and keep them
 * until the matching says which go together (opts.tag, join_keep.c).
 */
#ifndef NTP_JOIN_H
#define NTP_JOIN_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/join/join_types.h"

/* how a report says it: "same clock (one recording)", "... (one boot)"; NULL: two clocks */
const char *ntp_join__clock_name(enum ntp_join_clock c);

struct ntp_join;

/*
 * The recordings a join reads, opened, checked and classified by the
 * model (lib/model/model_files.h), which is the one way in to recordings:
 * a host and a target, several hosts and one target, one host and several
 * targets, or one "-r both" or joined recording, already known joinable.
 */
struct ntp_join_input {
	/*
	 * every file ATTACHed read-only as files[i].schema, with ntprof's own
	 * views (lib/ntp/db_own.h); private to the join while it is open,
	 * which makes its TEMP tables there, in memory (temp_store MEMORY)
	 */
	sqlite3 *db;
	const struct ntp_join_file *files;	/* path, schema, role, sides; copied */
	int nfiles;
	/* file i on a connection of its own, for a reader thread; 0 or NTP_EXIT_* (printed) */
	int (*reopen)(void *ctx, int i, sqlite3 **db);
	void *ctx;
};

/*
 * A join of in's files; opts may be NULL, and what its tag contexts point
 * to need only be ready for ntp_join__run.  0 or an NTP_EXIT_* code.
 */
int ntp_join__open(struct ntp_join **jp, const struct ntp_join_input *in,
		   const struct ntp_join_opts *opts);

/*
 * Read the files, estimate offsets, pair commands, create temp.joined; 0
 * or NTP_EXIT_*.  Once per ntp_join__open: the compact rows are freed when
 * it returns.
 */
int ntp_join__run(struct ntp_join *j);

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
 * After ntp_join__run: write the files, joined, into the new, empty file
 * at path (ntprof-join(1)): their rows as recorded (each file's ids after
 * the previous one's of its side), join_pairs, one join_clock row per
 * combination, join_meta, and meta role 'joined' (schema/ntp.sql).
 * Refuses (NTP_EXIT_MISMATCH, one line) a joined recording, and a join
 * that matched nothing.  0 or NTP_EXIT_*.
 *
 * A joined recording given alone to ntp_join__open is not joined again:
 * ntp_join__run reads its join_pairs and join_clock, and everything after
 * (temp.joined, ntp_join__scan_stages, the pairs and counts) is what the
 * join of the recordings it was made of gave.  The same holds for a "-r
 * both" recording given alone that holds a pairing (ntp_join__store),
 * unless opts->fresh.
 */
int ntp_join__write(struct ntp_join *j, const char *path);

/*
 * After ntp_join__run of one "-r both" recording with opts.fresh: the
 * pairing written into the recording itself, join_pairs and join_clock
 * replaced, so that its joined_stages view holds the join's stages (record
 * -r both does it when it closes the file).  Nothing else in the file
 * changes.  0 or NTP_EXIT_* after one line.
 */
int ntp_join__store(struct ntp_join *j);

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

#endif
