/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The join's insides (lib/join/join.h says what it does), shared by its
 * files, and what every part uses (join_base.c):
 *
 *	join.c          the entry points: a join of the model's files, its passes in order
 *	join_base.c     what every part uses: failures, an integer of SQL
 *	join_stored.c   a joined recording's own pairing, read back
 *	join_write.c    a joined recording written (ntprof join)
 *	join_read.c     both sides of every file read at once, by several readers
 *	join_load.c     the rows put in key and time order
 *	join_keep.c     every command's stages kept until the matching, for the summary
 *	join_merge.c    the merges of one host file with one target file by key
 *	join_match.c    binding controllers, mutual-nearest matching, counts
 *	join_rows.c     the matched commands as SQL: temp.join_matches, temp.joined
 *	join_stages.c   their five stages from what was kept, for the summary report
 *	join_progress.c progress on stderr
 *	join_est.c      the offset and drift estimate
 *	join_sweep.c    its inner loop: the point most intervals share
 *
 * The rows the join works on are compact copies of what it needs (key, the
 * times of the offset bound, ids): 32 bytes a target command, 34 a host
 * command (42 with the start temp.joined is ordered by); everything else is
 * read from the recordings once, by the query over temp.joined, or kept
 * for the summary's scan as the rows are read (join_keep.c).
 */
#ifndef NTP_JOIN_PRIV_H
#define NTP_JOIN_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>

#include "lib/core/spill.h"
#include "lib/core/stages.h"
#include "lib/join/join_est.h"
#include "lib/join/join_types.h"
#include "lib/ntp/db_app.h"

/* a key seen at most this many host x target times: every pair is a candidate */
#define NTP_JOIN_EST_ALL_PAIRS 256
/* host occurrences of a hotter key that enter the estimate (each with all targets) */
#define NTP_JOIN_EST_HOT_SAMPLES 8
/*
 * Pass 1's sample is at most this many host occurrences and candidate
 * intervals (a stride over the sampled occurrences beyond): a few thousand
 * true pairs spread over the run fix the line as well as a million do, and
 * pass 2 refits from all of them anyway.
 */
#define NTP_JOIN_EST_MAX_ROWS 8192
#define NTP_JOIN_EST_MAX_IV (1 << 19)
/* rounds of mutual-nearest matching; one suffices unless candidates compete */
#define NTP_JOIN_MATCH_ROUNDS 64
/* pass 1 admits misses of its tolerance plus this many median interval widths */
#define NTP_JOIN_PASS1_SPREADS 3

/* one host command: what the bound needs (its start and controller are kept apart) */
struct ntp_jhost {
	int64_t queue, done;
};

/* one target command */
struct ntp_jtarget {
	int64_t recv, sent;
};

/*
 * A row's place in key order: its key's hash, its index, its occurrence
 * number.  Once the candidates are found the hash has done its work, and
 * a host row's match (an index into target.order) takes its place: at ten
 * million commands a side, every array less is 40 MB less.
 */
struct ntp_jkey {
	union {
		uint64_t hash;
		uint32_t match;
	};
	uint32_t idx;
	uint32_t occ;		/* 1-based, in time order within (file, key) */
};

/*
 * The rows of one side in (file, key, time, id) order: rows[k] is the row
 * order[k] names, whose place in load order (storage order) is
 * order[k].idx.  Every pass after the load walks the rows in that order,
 * so it reads them in order in memory too.
 */
struct ntp_jside {
	size_t n;
	void *rows;		/* struct ntp_jhost or ntp_jtarget, in key order */
	struct ntp_jkey *order;	/* n entries */
	/* the host's: each row's controller (index into ntp_join.ctrls) in key order */
	uint16_t *ctrl;
	/* and its h_start, in load order: temp.joined's order's (NULL with opts.tag) */
	int64_t *start;
	size_t file_lo[NTP_JOIN_MAX_FILES + 1];	/* file f is order[file_lo[f] .. file_lo[f + 1]) */
	/*
	 * Ids: a file's are dense as record writes them (id0[f] + the index
	 * within the file), and then not stored; ids[] only once a file has
	 * a gap (rows deleted by hand, say), for every row from then on.
	 */
	int64_t id0[NTP_JOIN_MAX_FILES];
	int64_t *ids;
};

/* the id of row idx (load order) of side s; kept when the rows go */
static inline int64_t ntp_jside__id(const struct ntp_jside *s, size_t idx)
{
	int f = 0;

	if (s->ids)
		return s->ids[idx];
	while (idx >= s->file_lo[f + 1])
		f++;
	return s->id0[f] + (int64_t)(idx - s->file_lo[f]);
}

/* a host controller (hf, nvmeX) and the combination it is bound to */
struct ntp_jctrl {
	int file;
	char *name;
	int bound;		/* pair index, -1: none */
};

/* one candidate: pair p's host and target occurrences within tol of its line */
struct ntp_jcand {
	uint32_t h, t;		/* indexes into host.order / target.order */
	double dist;		/* its interval's centre from the line */
	uint16_t pair;
	uint8_t ok;		/* inside the bound */
} __attribute__((packed));

/* one matched command, in the output order */
struct ntp_jmatch {
	int64_t offset_ns;
	uint32_t h_occ, t_occ;
	uint32_t hidx, tidx;	/* load indexes: the rows' places in storage order */
	uint16_t pair;
} __attribute__((packed));

/* why a kept command's stages are no numbers to sum (struct ntp_join_stages) */
enum ntp_jkept_why {
	NTP_JKEPT_OK,
	NTP_JKEPT_NOT_NUMBER,	/* a point that is no number */
	NTP_JKEPT_OVERFLOW,	/* a point or a difference beyond 64 bits */
};

/*
 * A command's stages are kept as the views have them, less what their sum
 * gives: a host command's e2e is block + driver + network*, a target
 * command's residence target driver + storage (lib/core/stages.c computes
 * them so, in 64 bits; a command whose parts overflowed is not summed).
 * Each stage in 32 bits, which hold 2.1 s: a command with a stage beyond
 * has NTP_JKEPT_WIDE set in why, and its stages whole in its side's wide
 * list (struct ntp_jkeep).
 */
#define NTP_JKEPT_WIDE 0x80

/* a target command's (target_stages), in memory at its load index: 9 bytes */
struct ntp_jtstages {
	int32_t target_driver, storage;
	uint8_t why;		/* enum ntp_jkept_why, | NTP_JKEPT_WIDE */
} __attribute__((packed));

/*
 * A host command's (host_stages): 18 bytes.  Its application's stages
 * (host_app_stages), where it has them, are the next record of its
 * range's run in the application's scratch file (struct ntp_jkeep).
 */
struct ntp_jhstages {
	int32_t block, driver, network_star;
	uint32_t tag;		/* opts.tag's */
	uint8_t why;		/* enum ntp_jkept_why, | NTP_JKEPT_WIDE */
	bool app;		/* an application's record follows in apps */
} __attribute__((packed));

/* a command with a stage beyond 32 bits: its load index and stages (the host's three, the target's two) */
struct ntp_jwide {
	uint32_t idx;
	int64_t v[3];
};

/* the wide commands of one side one reader found, in its order; after the reading, all by idx */
struct ntp_jwides {
	struct ntp_jwide *v;
	size_t n, cap;
};

/*
 * The stages kept (join_keep.c).  The host's: a scratch file, a record a
 * command at its load index.  The application's stages are in a second
 * file, and only the commands that have them: most recordings have none,
 * and 40 bytes a command would double the host's file for nothing.
 * Reader w's range rg of a file writes them one after another from record
 * rg->idx on (a range of n commands has at most n), and the scan of that
 * range reads them back in the same order, one for each host record whose
 * app is set.  The target's: in memory, by load index (9 bytes a command,
 * written once by the readers, nothing copied by the matches), which the
 * host's scan reads by each match's target.
 */
struct ntp_jkeep {
	struct ntp_spill host, apps;
	struct ntp_jtstages *target;	/* target.n of them */
	/* reader w's wide commands of each side; [0] all of them once read */
	struct ntp_jwides hwide[NTP_JOIN_READERS], twide[NTP_JOIN_READERS];
	bool app[NTP_JOIN_MAX_FILES];	/* the file's host rows come from host_app_stages */
};

/* one reader's share of one side of a file: ids id_lo..id_hi, its n rows at load index idx on */
struct ntp_jrange {
	int64_t id_lo, id_hi;
	size_t idx, n;
};

struct ntp_jprogress;

struct ntp_join {
	sqlite3 *db;			/* the input's: the files ATTACHed, the join's TEMP tables */
	int (*reopen)(void *ctx, int i, sqlite3 **db);	/* the input's */
	void *reopen_ctx;
	struct ntp_join_opts opts;
	int nfiles;
	struct ntp_join_file files[NTP_JOIN_MAX_FILES];
	char schemas[NTP_JOIN_MAX_FILES][8];
	int npairs;
	struct ntp_join_pair *pairs;
	struct ntp_join_fit *fits;
	struct ntp_join_counts counts;

	struct ntp_jside host, target;
	int nreaders;
	/* reader w's shares of file f: hrange[w][f], trange[w][f] */
	struct ntp_jrange hrange[NTP_JOIN_READERS][NTP_JOIN_MAX_FILES];
	struct ntp_jrange trange[NTP_JOIN_READERS][NTP_JOIN_MAX_FILES];
	int counted;			/* the ranges were counted: a file's ids have gaps */
	int keyed[NTP_JOIN_MAX_FILES][2];	/* [file][host]: its table has join_key */
	struct ntp_jkeep *keep;		/* opts.tag: the stages kept; else NULL */
	struct ntp_jctrl *ctrls;
	int nctrls;
	pthread_mutex_t ctrl_lock;	/* the readers add controllers at once */

	struct ntp_jcand *cands;
	size_t ncands;
	struct ntp_jmatch *matches;
	size_t nmatches;
	int matches_gone;		/* freed by ntp_join__scan_stages: nothing reads them after */
	size_t host_rows, target_rows;	/* of the sides, kept when the rows go */
	struct ntp_jprogress *progress;
	int stored;			/* one file with its own pairing: read, not made */
};

/* join_base.c */
int ntp_join__sql_fail(sqlite3 *db, const char *what);
int ntp_join__nomem(void);
/* the first column of sql's first row, def without one (or a NULL) */
int64_t ntp_join__query_int(sqlite3 *db, const char *sql, int64_t def);

/* join.c */

/* the matches freed for good: temp.join_matches refuses to read them after */
void ntp_join__free_matches(struct ntp_join *j);

/* join_stored.c: a joined recording's join_pairs and join_clock as the join's result */
int ntp_join__load_stored(struct ntp_join *j);
/* join_clock.clock of c: "two clocks", "one recording", "one boot" */
const char *ntp_join__clock_key(enum ntp_join_clock c);

/* join_read.c: both sides of every file into j->host and j->target, in load order */
int ntp_join__read(struct ntp_join *j);

/* join_load.c: both sides read (ntp_join__read), then put in key order */
int ntp_join__load(struct ntp_join *j);
/*
 * a[0..n), given in idx order (load order), put in (hash, idx) order; tmp
 * as large as a, its contents lost
 */
void ntp_join__sort_keys(struct ntp_jkey *a, struct ntp_jkey *tmp, size_t n);
void ntp_join__free_rows(struct ntp_join *j);
void ntp_join__free_ids(struct ntp_join *j);

/* join_merge.c */
/*
 * pass 1's sample of pair p into *iv (caller frees), of *rows host commands,
 * *hot of them occurrences of hot keys (the ones narrow changes); 0 or NTP_EXIT_*
 */
int ntp_join__sample(struct ntp_join *j, int p, int narrow, struct ntp_join_iv **iv, size_t *n,
		     size_t *rows, size_t *hot);

/*
 * Every candidate of pair p under fit with tolerance tol, in key order,
 * given to fn with its host and target order indexes, ok (inside the bound)
 * and dist (how far its interval's centre is from the line).  fn returns 0
 * to go on.
 */
typedef int (*ntp_jcand_fn)(void *ctx, int p, uint32_t h, uint32_t t, int ok, double dist);
int ntp_join__candidates(struct ntp_join *j, int p, const struct ntp_join_fit *fit, double tol,
			 ntp_jcand_fn fn, void *ctx);

/* the interval of one candidate, as the estimate reads it */
void ntp_join__interval(const struct ntp_join *j, int p, uint32_t h, uint32_t t,
			struct ntp_join_iv *iv);

/* join_match.c */
void ntp_join__free_cands(struct ntp_join *j);
/* pass 2's intervals of every pair (iv[p], n[p]), and the controllers bound */
int ntp_join__pass2_intervals(struct ntp_join *j, const struct ntp_join_fit *fits,
			      const double *tols, struct ntp_join_iv **iv, size_t *n);
/* the final candidates, the matching, j->matches and the counts */
int ntp_join__match(struct ntp_join *j);

/* join_rows.c */
int ntp_join__register_rows(struct ntp_join *j);
int ntp_join__create_view(struct ntp_join *j);

/* join_keep.c */
/* j->keep: which files have the application's stages, the scratch files; 0 or NTP_EXIT_* (printed) */
int ntp_join__keep_open(struct ntp_join *j);
void ntp_join__keep_close(struct ntp_join *j);
/*
 * Reader w's host row of file fi in st, whose host_stages columns io_type,
 * bytes, namespace, path, h_start_ns, h_queue_ns, sent_ns, r2t_host_ns,
 * recv_ns, h_done_ns (then the application's stages, where the file has
 * them) start at column first:
 * tagged by opts.tag and its record put on run, its application's stages
 * (if any) on apps (NULL: the file has none).  0, or -errno: run's or
 * apps' error when its err is set, else the tag's want of memory.
 */
int ntp_join__keep_host(struct ntp_join *j, int w, int fi, size_t idx, sqlite3_stmt *st,
			int first, int64_t qid, int64_t h_start_ns, struct ntp_spill_run *run,
			struct ntp_spill_run *apps);
/* the target's array for n commands (anew), no wide ones; 0 or NTP_EXIT_* (printed) */
int ntp_join__keep_targets(struct ntp_join *j, size_t n);
/*
 * Reader w's target row of load index idx: its t_recv_ns, submit_ns,
 * cmpl_ns, r2t_wait_ns, t_sent_ns from column first on.  0 or -ENOMEM.
 */
int ntp_join__keep_target(struct ntp_join *j, int w, size_t idx, sqlite3_stmt *st, int first);
/* each side's readers' wide lists as one, by idx, in [0]; 0 or -ENOMEM */
int ntp_join__keep_wides(struct ntp_join *j);
/* target command idx's stages, whole; its why (enum ntp_jkept_why) */
uint8_t ntp_join__kept_target(const struct ntp_join *j, uint32_t idx,
			      struct ntp_target_stages *ts);
/* the stages of host record rec, of load index idx, whole; its why (enum ntp_jkept_why) */
uint8_t ntp_join__kept_host(const struct ntp_join *j, const struct ntp_jhstages *rec, uint32_t idx,
			    struct ntp_host_stages *hs);
/* run's error as the one line (into msg) and the code (*err and returned) */
int ntp_join__keep_fail(const struct ntp_join *j, const struct ntp_spill_run *run, char *msg,
			size_t len, int *err);

/* join_progress.c: a line on stderr once a join takes more than a second, on a terminal */
struct ntp_jprogress *ntp_jprogress__new(void);
void ntp_jprogress__set(struct ntp_jprogress *p, const char *what, uint64_t done, uint64_t total);
void ntp_jprogress__end(struct ntp_jprogress *p);

#endif
