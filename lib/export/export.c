// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof export (lib/export.h): recordings to a Perfetto trace.
 *
 * Opening is dump's: one host or target recording as it is, the join of a
 * "-r both" or joined recording or of several recordings otherwise
 * (lib/join/join.h).  Each side of a recording is on its machine's clock:
 * one clock for both sides of a "-r both" recording, two for a joined one
 * (ntprof join), which holds each side's times as recorded.  The first
 * recording's first side's clock is the trace's; every other clock is
 * placed on it through the join's clock estimates, chained from side to
 * side, so a target's slices sit where the host saw them.  A clock the
 * estimates do not reach is kept as it is, with a warning.
 *
 * Each side's commands are read in start order and streamed out: what is
 * held per command is its end time while it is in flight (lib/export/export_queues.c).
 * The stage slices cut a command's span at the points the stage views of
 * schema/ntp.sql use, so the slices of one name add up to that stage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/outfile.h"
#include "lib/core/checked.h"
#include "lib/core/size.h"
#include "lib/core/stage_table.h"
#include "lib/export/export.h"
#include "lib/export/export_perfetto.h"
#include "lib/export/export_queues.h"
#include "lib/join/join.h"
#include "lib/ntp/db_guard.h"
#include "lib/model/model_files.h"

enum { SIDE_HOST, SIDE_TARGET, NSIDES };

static const char *const side_name[NSIDES] = { "host", "target" };

/* one machine's clock on the trace's */
struct xclock {
	bool placed;			/* on the trace's clock */
	long double scale, shift;	/* trace time = scale * t + shift */
};

struct xfile {
	const char *path;
	char schema[16];
	int sides;			/* enum ntp_side */
	bool two_clocks;		/* a joined recording: each side on its own clock */
	/* per side: its machine's name, meta start_ns (the first interval's start; -1 unknown) */
	char *hostname[NSIDES];
	int64_t start_ns[NSIDES];
	struct xclock clock[NSIDES];	/* the target's is the host's but with two_clocks */
	uint64_t machine[NSIDES];	/* process track per side */
};

struct xport {
	sqlite3 *db;
	struct ntp_join *j;		/* NULL: one recording, not joined */
	struct xfile f[NTP_JOIN_MAX_FILES];
	int n;
	bool rdma;
	struct ntp_pftrace *t;
	struct ntp_xqueues *qs;
	uint64_t next_uuid;
	uint64_t cmds[NSIDES], flows;
};

/* damage is corrupt, named by the file that has it (lib/ntp/db_guard.h); else a failure */
static int read_fail(struct xport *x, const char *path)
{
	return ntp_db__fail(x->db, path, "cannot read the commands");
}

/* the clock side s of file f is on */
static struct xclock *clock_of(struct xfile *f, int s)
{
	return &f->clock[f->two_clocks ? s : SIDE_HOST];
}

/*
 * The source's files: each side on its machine's clock; a joined kind
 * joined, its pairs indexed for the two passes, which look a command's
 * partner up by its own side's row.
 */
static int open_input(struct xport *x, struct ntp_source *s)
{
	static const int side_bit[NSIDES] = { NTP_SIDE_HOST, NTP_SIDE_TARGET };

	x->db = s->db;
	x->n = s->n;
	x->rdma = s->rdma;
	for (int i = 0; i < x->n; i++) {
		struct xfile *f = &x->f[i];

		f->path = s->files[i].path;
		snprintf(f->schema, sizeof(f->schema), "%s", s->files[i].schema);
		f->sides = s->files[i].sides;
		f->two_clocks = s->kind == NTP_KIND_JOINED;
		for (int d = 0; d < NSIDES; d++) {
			f->hostname[d] = ntp_source__side_meta_text(s, i, side_bit[d],
								    NTP_META_HOSTNAME);
			f->start_ns[d] = ntp_source__side_meta_int(s, i, side_bit[d],
								   NTP_META_START_NS, -1);
		}
	}
	if (!ntp_kind__joined(s->kind))
		return 0;
	{
		int rc = ntp_source__open_join(s, NULL, &x->j);

		if (!rc)
			rc = ntp_join__run(x->j);
		if (rc)
			return rc;
	}
	/* the join's pairs (lib/join/join_rows.c) copied into an indexed table */
	if (sqlite3_exec(x->db,
			 "CREATE TEMP TABLE export_pairs AS SELECT host_file, host_id, target_file,"
			 " target_id FROM temp.join_matches;"
			 "CREATE INDEX temp.export_by_host ON export_pairs(host_file, host_id);"
			 "CREATE INDEX temp.export_by_target ON export_pairs(target_file, target_id);",
			 NULL, NULL, NULL)) {
		ntp_error("cannot index the joined commands: %s", sqlite3_errmsg(x->db));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* ---- clocks: every side's on the first one's ---------------------------------- */

/*
 * The join's line for a pair: o(h) = offset + drift (h - t0) = target - host
 * clock at host time h, so a target time T is the host time
 * (T - offset + drift t0) / (1 + drift).
 */
static void place_target(struct xclock *tf, const struct xclock *hf, const struct ntp_join_pair *p)
{
	long double d = p->drift, s = 1.0L / (1.0L + d);
	long double sh = ((long double)d * p->t0_ns - (long double)p->offset_ns) * s;

	tf->scale = hf->scale * s;
	tf->shift = hf->scale * sh + hf->shift;
	tf->placed = true;
}

static void place_host(struct xclock *hf, const struct xclock *tf, const struct ntp_join_pair *p)
{
	long double d = p->drift;
	long double sh = (long double)p->offset_ns - d * p->t0_ns;

	hf->scale = tf->scale * (1.0L + d);
	hf->shift = tf->scale * sh + tf->shift;
	hf->placed = true;
}

static void place_files(struct xport *x)
{
	struct xclock *first = clock_of(&x->f[0], x->f[0].sides & NTP_SIDE_HOST ? SIDE_HOST :
					SIDE_TARGET);
	bool more = true;

	first->placed = true;
	first->scale = 1.0L;
	while (more && x->j) {
		more = false;
		for (int i = 0; i < ntp_join__npairs(x->j); i++) {
			const struct ntp_join_pair *p = ntp_join__pair(x->j, i);
			struct xclock *hc = clock_of(&x->f[p->host_file], SIDE_HOST);
			struct xclock *tc = clock_of(&x->f[p->target_file], SIDE_TARGET);

			if (!p->estimated || hc->placed == tc->placed)
				continue;
			if (hc->placed)
				place_target(tc, hc, p);
			else
				place_host(hc, tc, p);
			more = true;
		}
	}
	for (int i = 0; i < x->n; i++) {
		for (int d = 0; d < NSIDES; d++) {
			struct xclock *c = clock_of(&x->f[i], d);

			if (c->placed || !(x->f[i].sides & (d == SIDE_HOST ? NTP_SIDE_HOST :
							       NTP_SIDE_TARGET)))
				continue;
			ntp_warn("%s: no clock estimate links its %s side to %s: its commands keep"
				 " their own clock", x->f[i].path, side_name[d], x->f[0].path);
			c->scale = 1.0L;
			c->placed = true;
		}
	}
}

/* a time of side s of file f on the trace's clock */
static uint64_t when(struct xfile *f, int s, int64_t t)
{
	const struct xclock *c = clock_of(f, s);
	long double v = c->scale * t + c->shift;

	/* a file's times may be anything: no conversion out of range */
	return v <= 0 ? 0 : v >= 0x1p64L ? UINT64_MAX : (uint64_t)(v + 0.5L);
}

/* ---- tracks --------------------------------------------------------------------- */

/* Perfetto wants UTF-8; what a file holds is shown, not trusted */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

static void machine_tracks(struct xport *x)
{
	char name[300];
	int pid = 1;

	for (int i = 0; i < x->n; i++) {
		struct xfile *f = &x->f[i];
		const char *base = strrchr(f->path, '/');

		for (int s = 0; s < NSIDES; s++) {
			if (!(f->sides & (s == SIDE_HOST ? NTP_SIDE_HOST : NTP_SIDE_TARGET)))
				continue;
			snprintf(name, sizeof(name), "%s %s (%s)", side_name[s],
				 f->hostname[s] ? f->hostname[s] : "?", base ? base + 1 : f->path);
			clean(name);
			f->machine[s] = x->next_uuid++;
			ntp_pftrace__process(x->t, f->machine[s], pid++, name);
		}
	}
}

/* ---- slices --------------------------------------------------------------------- */

struct cut {
	const char *name;
	int64_t to;		/* the stage runs from the previous cut's end to here */
};

static const char *io_type(int64_t opcode)
{
	return opcode == 1 ? "write" : opcode == 2 ? "read" : "other";
}

/*
 * One command: its slice from start to end on a lane of q, the stages nested
 * inside.  Cuts outside [start, end] or going back are clamped, so the
 * slices nest whatever a file holds.
 */
static int put_command(struct xport *x, struct xfile *f, int side, struct ntp_xqueue *q,
		       int64_t start, int64_t end, const char *name, const struct cut *cuts,
		       int ncuts, uint64_t flow, uint64_t end_flow, const struct ntp_pf_arg *args,
		       int nargs)
{
	uint64_t s = when(f, side, start), e = when(f, side, end > start ? end : start), at = s;
	uint64_t lane = ntp_xqueue__place(x->qs, q, s, e);

	if (!lane)
		return -ENOMEM;
	ntp_pftrace__begin(x->t, s, lane, name, flow, end_flow, args, nargs);
	for (int i = 0; i < ncuts; i++) {
		uint64_t to = when(f, side, cuts[i].to);

		to = to < at ? at : to > e ? e : to;
		if (to == at)
			continue;
		ntp_pftrace__begin(x->t, at, lane, cuts[i].name, 0, 0, NULL, 0);
		ntp_pftrace__end(x->t, to, lane);
		at = to;
	}
	ntp_pftrace__end(x->t, e, lane);
	return 0;
}

/* a target row's flow: the same on both ends of the arrow */
static uint64_t flow_id(int64_t target_file, int64_t target_id)
{
	return (uint64_t)(target_file + 1) << 48 | ((uint64_t)target_id & ((1ull << 48) - 1));
}

static bool null(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL;
}

#define I64(col) ((int64_t)sqlite3_column_int64(st, (col)))
#define TXT(col) ((const char *)sqlite3_column_text(st, (col)) ? (const char *)sqlite3_column_text(st, (col)) : "")

enum host_col {
	H_ID, H_START, H_QUEUE, H_CMD_SENT, H_R2T, H_DATA_SENT, H_RECV, H_DONE, H_OPCODE, H_CID,
	H_SLBA, H_NLB, H_BYTES, H_QID, H_NSID, H_CNTLID, H_CONTROLLER, H_NAMESPACE, H_PATH,
	H_STATUS, H_FLAGS, H_TFILE, H_TID,
};

static const char host_sql[] =
	"SELECT h.id, h.h_start_ns, h.h_queue_ns, h.h_cmd_sent_ns, h.h_r2t_ns, h.h_data_sent_ns,"
	" h.h_recv_ns, h.h_done_ns, h.opcode, h.cid, h.slba, h.nlb, h.bytes, h.qid, h.nsid,"
	" h.cntlid, h.controller, h.namespace, h.path, h.status, h.flags, %s"
	" FROM %s.host_io AS h %s ORDER BY h.h_start_ns, h.id";

static int host_row(struct xport *x, struct xfile *f, sqlite3_stmt *st, bool joined)
{
	int64_t queue = I64(H_QUEUE), done = I64(H_DONE);
	int64_t cmd_sent = null(st, H_CMD_SENT) ? queue : I64(H_CMD_SENT);
	int64_t recv = null(st, H_RECV) ? done : I64(H_RECV);
	bool r2t = !null(st, H_R2T) && !null(st, H_DATA_SENT);
	bool matched = joined && !null(st, H_TID);
	/* the stages' labels (lib/core/stage_table.h): the host's driver beside a target's */
	const char *block = ntp_stages[NTP_STAGE_BLOCK].label;
	const char *driver = joined ? ntp_stages[NTP_STAGE_DRIVER].label :
			     ntp_stages[NTP_STAGE_DRIVER].label_alone;
	const char *rtt = ntp_stages[NTP_STAGE_NETWORK_STAR].label;
	bool overflow = false;
	char qname[160], name[64], size[32], ns[64], path[64];
	struct cut cuts[6];
	int n = 0;
	struct ntp_xqueue *q;

	/* the points of schema/ntp.sql's host_stages view */
	cuts[n++] = (struct cut){ block, queue };
	if (r2t) {
		cuts[n++] = (struct cut){ driver, cmd_sent };
		cuts[n++] = (struct cut){ rtt, I64(H_R2T) };
		cuts[n++] = (struct cut){ driver, I64(H_DATA_SENT) };
	} else {
		int64_t data = null(st, H_DATA_SENT) ? cmd_sent : I64(H_DATA_SENT);

		cuts[n++] = (struct cut){ driver, cmd_sent > data ? cmd_sent : data };
	}
	cuts[n++] = (struct cut){ rtt, recv };
	cuts[n++] = (struct cut){ driver, done };

	snprintf(qname, sizeof(qname), "%s q%" PRId64, TXT(H_CONTROLLER), I64(H_QID));
	clean(qname);
	q = ntp_xqueues__get(x->qs, f->machine[SIDE_HOST], qname);
	if (!q)
		return -ENOMEM;
	ntp_size__str(I64(H_BYTES), size, sizeof(size));
	snprintf(name, sizeof(name), "%s %s", io_type(I64(H_OPCODE)), size);
	snprintf(ns, sizeof(ns), "%s", TXT(H_NAMESPACE));
	snprintf(path, sizeof(path), "%s", TXT(H_PATH));
	clean(ns);
	clean(path);
	const struct ntp_pf_arg args[] = {
		{ "id", NULL, I64(H_ID) },
		{ "opcode", NULL, I64(H_OPCODE) },
		{ "bytes", NULL, I64(H_BYTES) },
		{ "namespace", ns, 0 },
		{ "path", path, 0 },
		{ "nsid", NULL, I64(H_NSID) },
		{ "cntlid", NULL, I64(H_CNTLID) },
		{ "qid", NULL, I64(H_QID) },
		{ "cid", NULL, I64(H_CID) },
		{ "slba", NULL, I64(H_SLBA) },
		{ "nlb", NULL, I64(H_NLB) },
		{ "status", NULL, I64(H_STATUS) },
		{ "flags", NULL, I64(H_FLAGS) },
		/* checked: an impossible command's (lib/core/checked.h) is 0 */
		{ "e2e_ns", NULL, ntp_checked__sub(done, I64(H_START), &overflow) },
	};
	uint64_t flow = matched ? flow_id(I64(H_TFILE), I64(H_TID)) : 0;

	x->cmds[SIDE_HOST]++;
	x->flows += matched;
	return put_command(x, f, SIDE_HOST, q, I64(H_START), done, name, cuts, n, flow, 0, args,
			   (int)(sizeof(args) / sizeof(args[0])));
}

enum target_col {
	T_ID, T_RECV, T_R2T, T_SUBMIT, T_CMPL, T_SENT, T_OPCODE, T_CID, T_SLBA, T_NLB, T_BYTES,
	T_QID, T_NSID, T_CNTLID, T_DEVICE, T_STATUS, T_FLAGS, T_MATCHED,
};

static const char target_sql[] =
	"SELECT t.id, t.t_recv_ns, t.t_r2t_ns, t.t_submit_ns, t.t_cmpl_ns, t.t_sent_ns, t.opcode,"
	" t.cid, t.slba, t.nlb, t.bytes, t.qid, t.nsid, t.cntlid, t.device, t.status, t.flags, %s"
	" FROM %s.target_io AS t %s ORDER BY t.t_recv_ns, t.id";

static int target_row(struct xport *x, int fi, sqlite3_stmt *st, bool joined)
{
	struct xfile *f = &x->f[fi];
	int64_t recv = I64(T_RECV), sent = I64(T_SENT);
	int64_t submit = null(st, T_SUBMIT) ? recv : I64(T_SUBMIT);
	int64_t cmpl = null(st, T_CMPL) ? submit : I64(T_CMPL);
	bool matched = joined && !null(st, T_MATCHED);
	/* the stages' labels (lib/core/stage_table.h) */
	const char *driver = ntp_stages[NTP_STAGE_TARGET_DRIVER].label;
	const char *wait = ntp_stages[x->rdma ? NTP_STAGE_READ_WAIT : NTP_STAGE_R2T_WAIT].label;
	bool overflow = false;
	char qname[64], name[64], size[32], dev[64];
	struct cut cuts[5];
	int n = 0;
	struct ntp_xqueue *q;

	/* the points of schema/ntp.sql's target_stages view */
	if (!null(st, T_R2T) && !null(st, T_SUBMIT)) {
		cuts[n++] = (struct cut){ driver, I64(T_R2T) };
		cuts[n++] = (struct cut){ wait, submit };
	} else {
		cuts[n++] = (struct cut){ driver, submit };
	}
	cuts[n++] = (struct cut){ ntp_stages[NTP_STAGE_STORAGE].label, cmpl };
	cuts[n++] = (struct cut){ driver, sent };

	snprintf(qname, sizeof(qname), "ctrl %" PRId64 " q%" PRId64, I64(T_CNTLID), I64(T_QID));
	q = ntp_xqueues__get(x->qs, f->machine[SIDE_TARGET], qname);
	if (!q)
		return -ENOMEM;
	ntp_size__str(I64(T_BYTES), size, sizeof(size));
	snprintf(name, sizeof(name), "%s %s", io_type(I64(T_OPCODE)), size);
	snprintf(dev, sizeof(dev), "%s", TXT(T_DEVICE));
	clean(dev);
	const struct ntp_pf_arg args[] = {
		{ "id", NULL, I64(T_ID) },
		{ "opcode", NULL, I64(T_OPCODE) },
		{ "bytes", NULL, I64(T_BYTES) },
		{ "device", dev, 0 },
		{ "nsid", NULL, I64(T_NSID) },
		{ "cntlid", NULL, I64(T_CNTLID) },
		{ "qid", NULL, I64(T_QID) },
		{ "cid", NULL, I64(T_CID) },
		{ "slba", NULL, I64(T_SLBA) },
		{ "nlb", NULL, I64(T_NLB) },
		{ "status", NULL, I64(T_STATUS) },
		{ "flags", NULL, I64(T_FLAGS) },
		{ "residence_ns", NULL, ntp_checked__sub(sent, recv, &overflow) },
	};

	x->cmds[SIDE_TARGET]++;
	return put_command(x, f, SIDE_TARGET, q, recv, sent, name, cuts, n, 0,
			   matched ? flow_id(fi, I64(T_ID)) : 0, args,
			   (int)(sizeof(args) / sizeof(args[0])));
}

static int side_pass(struct xport *x, int fi, int side)
{
	struct xfile *f = &x->f[fi];
	bool joined = x->j != NULL;
	char sql[700], on[120];
	sqlite3_stmt *st;
	int rc;

	if (side == SIDE_HOST) {
		snprintf(on, sizeof(on), "LEFT JOIN temp.export_pairs AS j ON j.host_file = %d AND j.host_id = h.id",
			 fi);
		snprintf(sql, sizeof(sql), host_sql, joined ? "j.target_file, j.target_id" : "NULL, NULL",
			 f->schema, joined ? on : "");
	} else {
		snprintf(on, sizeof(on),
			 "LEFT JOIN temp.export_pairs AS j ON j.target_file = %d AND j.target_id = t.id", fi);
		snprintf(sql, sizeof(sql), target_sql, joined ? "j.target_id" : "NULL", f->schema,
			 joined ? on : "");
	}
	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL))
		return read_fail(x, f->path);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int err = side == SIDE_HOST ? host_row(x, f, st, joined) : target_row(x, fi, st, joined);

		if (err) {
			sqlite3_finalize(st);
			ntp_error("%s: %s", f->path, strerror(-err));
			return NTP_EXIT_FAILURE;
		}
	}
	if (rc != SQLITE_DONE) {
		rc = read_fail(x, f->path);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

/* ---- counters: the command rates of the intervals table ---------------------------- */

static int rate_pass(struct xport *x, int fi, int side)
{
	struct xfile *f = &x->f[fi];
	uint64_t seen_track = x->next_uuid++, sampled_track = x->next_uuid++;
	char sql[160];
	sqlite3_stmt *st;
	/* an interval runs from the previous one's end; the first from the recording's start */
	int64_t prev = f->start_ns[side];
	bool first = prev < 0;
	int rc;

	ntp_pftrace__counter_track(x->t, seen_track, f->machine[side], "commands/s (all seen)",
				   NTP_PF_UNIT_COUNT);
	ntp_pftrace__counter_track(x->t, sampled_track, f->machine[side], "sampled commands/s",
				   NTP_PF_UNIT_COUNT);
	snprintf(sql, sizeof(sql),
		 "SELECT t_ns, seen, sampled FROM %s.intervals WHERE side = ?1 ORDER BY t_ns", f->schema);
	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL))
		return read_fail(x, f->path);
	sqlite3_bind_text(st, 1, side_name[side], -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = I64(0);

		/* a rate needs the interval's start: without meta start_ns the first has none */
		if (!first && t > prev) {
			double per_s = 1e9 / (double)(t - prev);

			ntp_pftrace__counter(x->t, when(f, side, prev), seen_track,
					     (double)I64(1) * per_s);
			ntp_pftrace__counter(x->t, when(f, side, prev), sampled_track,
					     (double)I64(2) * per_s);
		}
		first = false;
		prev = t;
	}
	rc = rc == SQLITE_DONE ? 0 : read_fail(x, f->path);
	sqlite3_finalize(st);
	return rc;
}

static int export_all(struct xport *x)
{
	int rc = 0;

	machine_tracks(x);
	for (int i = 0; i < x->n && !rc; i++)
		for (int s = 0; s < NSIDES && !rc; s++)
			if (x->f[i].machine[s]) {
				rc = side_pass(x, i, s);
				if (!rc)
					rc = rate_pass(x, i, s);
			}
	return rc;
}

/* ---- the command ---------------------------------------------------------------- */

static char *default_output(const char *path)
{
	size_t n = strlen(path);
	char *out;

	if (n > 4 && !strcmp(path + n - 4, ".ntp"))
		n -= 4;
	out = malloc(n + sizeof(".pftrace"));
	if (out) {
		memcpy(out, path, n);
		strcpy(out + n, ".pftrace");
	}
	return out;
}

static void close_input(struct xport *x, struct ntp_source *s)
{
	ntp_join__close(x->j);
	ntp_source__close(s);
	for (int i = 0; i < x->n; i++)
		for (int d = 0; d < NSIDES; d++)
			free(x->f[i].hostname[d]);
}

int ntp_export__run(const char *const *paths, int n, const struct ntp_export_opts *o)
{
	bool to_stdout = o->output && !strcmp(o->output, "-");
	char *out = o->output ? strdup(o->output) : default_output(paths[0]);
	struct xport x = { .next_uuid = 1 };
	struct ntp_source *s = NULL;
	struct ntp_outfile of = { 0 };
	int rc;

	if (!out) {
		ntp_error("%s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	/* writing over the recording being read would destroy it */
	rc = ntp_outfile__check_not_input(out, paths, n, "-o");
	if (rc) {
		free(out);
		return rc;
	}
	rc = ntp_source__open_files(&s, paths, n, false);
	if (!rc)
		rc = open_input(&x, s);
	if (rc)
		goto done;
	place_files(&x);
	rc = ntp_outfile__open(&of, out, "the trace");
	if (rc)
		goto done;
	x.t = ntp_pftrace__new(of.f);
	x.qs = x.t ? ntp_xqueues__new(x.t, &x.next_uuid) : NULL;
	if (!x.qs) {
		ntp_error("%s", strerror(ENOMEM));
		rc = NTP_EXIT_FAILURE;
	} else {
		rc = export_all(&x);
	}
	/* the queues' last in-flight counts are written as they go */
	ntp_xqueues__delete(x.qs);
	if (x.t) {
		int werr = ntp_pftrace__delete(x.t);

		if (werr && !rc)
			rc = ntp_outfile__fail(&of, -werr);
	}
	/* a failed export leaves no half-written trace to be mistaken for a whole one */
	rc = ntp_outfile__close(&of, !rc) ?: rc;
	if (!rc)
		fprintf(to_stdout ? stderr : stdout,
			"%s: %" PRIu64 " host and %" PRIu64 " target commands, %" PRIu64
			" linked by flows (open it in ui.perfetto.dev)\n",
			to_stdout ? "the trace" : out, x.cmds[SIDE_HOST], x.cmds[SIDE_TARGET], x.flows);
done:
	close_input(&x, s);
	free(out);
	return rc;
}
