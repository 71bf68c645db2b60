// SPDX-License-Identifier: GPL-2.0
/*
 * report: the stages of every view (model.h, enum ntp_view_kind),
 * and the scan that streams rows into one set of samples per group for
 * every view but a host recording's summary (model_scan.c reads that
 * faster, in parallel).
 *
 * The stages come from the views host_stages and target_stages (through
 * temp.joined of lib/join/join.h for joined commands), never recomputed.
 * The sub-stages of --stages=detail are differences of the points those
 * views expose with their own fallbacks for the hooks a kernel did not
 * give (schema/ntp.sql, ntprof-ntp(5)), so no fallback is defined twice:
 *
 *	sent     = the command (and in-capsule data) handed to the socket
 *	r2t_host = h_data_sent - h_r2t of an R2T write, else 0
 *	recv     = h_recv, else h_done
 *	submit   = t_submit, else t_recv;  cmpl = t_cmpl, else submit
 *	r2t_wait = t_submit - t_r2t of an R2T write, else 0
 *
 *	block     = h_queue - h_start
 *	host-tx   = sent - h_queue
 *	network   = (recv - sent) - (t_sent - t_recv): the host's round trip
 *	            less all the target's time, R2T included
 *	target-rx = (submit - t_recv) - r2t_wait
 *	r2t-wait  = r2t_wait - r2t_host: the R2T and its data on the wire
 *	r2t-host  = r2t_host
 *	storage   = cmpl - submit
 *	target-tx = t_sent - cmpl
 *	host-rx   = h_done - recv
 *
 * NVMe/RDMA (meta transport 'rdma') has no R2T on the host: sent is the
 * capsule posted (nvme_rdma_post_send), recv the response received
 * (nvme_rdma_recv_done), r2t_host 0.  The target's r2t_wait is the RDMA READ
 * that pulls a write's data, posted (t_r2t) to the data in (t_submit).  A
 * wait only one side saw cannot be r2t-wait, so the RDMA views replace
 * r2t-wait and r2t-host with
 *
 *	read-wait = r2t_wait: the READ, request and data on the wire
 *
 * taken out of the network as r2t-wait is, and name the RDMA hooks.
 *
 * A target recording alone has target_stages' two stages, driver(t) and
 * storage, which add up to its residence_ns; in detail target-rx, storage
 * and target-tx, the same split as above.
 *
 * The detailed network is taken as the view's network less r2t-wait (less
 * read-wait), not from the formula above, so a sub-stage that strayed from
 * the views would break the sum check rather than hide in the network:
 * block + host-tx + r2t-host + host-rx must equal the view's host driver
 * (+ block), target-rx + target-tx + storage the view's target columns.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/checked.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_groups.h"
#include "lib/model/model.h"
#include "lib/model/model_sql.h"
#include "lib/model/model_view.h"

/*
 * A stage of a view: its names from the table of stages
 * (lib/core/stage_table.h), its words in this view.  ALONE: in a host
 * recording alone, where no target stage stands beside it.
 */
#define STAGE(s, what) \
	{ ntp_stages[NTP_STAGE_##s].label, ntp_stages[NTP_STAGE_##s].key, what, NTP_STAGE_##s }
#define ALONE(s, what) \
	{ ntp_stages[NTP_STAGE_##s].label_alone, ntp_stages[NTP_STAGE_##s].key, what, NTP_STAGE_##s }

/* ---- NVMe/TCP ------------------------------------------------------------- */

/* a host recording alone: host_stages' three stages */
static const struct ntp_view_stage host_stages[] = {
	STAGE(BLOCK, "host block layer: queued to the NVMe driver"),
	ALONE(DRIVER, "host NVMe driver, both ways"),
	STAGE(NETWORK_STAR,
	  "the network and the target together (a host-only recording cannot tell them apart)"),
};

static const struct ntp_view_stage joined_stages[] = {
	STAGE(BLOCK, "host block layer: queued to the NVMe driver"),
	STAGE(DRIVER, "host NVMe driver, both ways"),
	STAGE(NETWORK, "the network, both ways (R2T round trips included)"),
	STAGE(TARGET_DRIVER, "target NVMe driver, both ways"),
	STAGE(STORAGE, "the target's backend and device"),
};

static const struct ntp_view_stage joined_detail[] = {
	STAGE(BLOCK, "host block layer (prior art: blk_submission)"),
	STAGE(HOST_TX, "host driver, command to the socket (nvme_tcp_submission)"),
	STAGE(NETWORK, "command and response on the wire (network_transmission, nstack_*)"),
	STAGE(TARGET_RX,
	  "target driver, capsule parsed to the backend (nvmet_tcp_submission)"),
	STAGE(R2T_WAIT, "an R2T write's R2T and data on the wire"),
	STAGE(R2T_HOST, "the host's work between an R2T and its data"),
	STAGE(STORAGE, "the target's backend and device (target_subsystem)"),
	STAGE(TARGET_TX, "target driver, completion to the socket (nvmet_tcp_completion)"),
	STAGE(HOST_RX,
	  "host driver, response parsed to completion (nvme_tcp_completion, blk_completion)"),
};

static const struct ntp_view_stage host_detail[] = {
	STAGE(BLOCK, "host block layer (prior art: blk_submission)"),
	STAGE(HOST_TX, "host driver, command to the socket (nvme_tcp_submission)"),
	STAGE(R2T_HOST, "the host's work between an R2T and its data"),
	STAGE(NETWORK_STAR, "the network and the target together"),
	STAGE(HOST_RX,
	  "host driver, response parsed to completion (nvme_tcp_completion, blk_completion)"),
};

/* a target alone: the stages of target_stages; residence_ns is their total */
static const struct ntp_view_stage target_stages[] = {
	STAGE(TARGET_DRIVER,
	  "target NVMe driver: command received to the backend, completion to the response sent"),
	STAGE(STORAGE, "the target's backend and device"),
};

static const struct ntp_view_stage target_detail[] = {
	STAGE(TARGET_RX,
	  "target driver, capsule parsed to the backend (nvmet_tcp_submission)"),
	STAGE(STORAGE, "the target's backend and device (target_subsystem)"),
	STAGE(TARGET_TX, "target driver, completion to the socket (nvmet_tcp_completion)"),
};

/* ---- NVMe/RDMA: no R2T; the target pulls a large write's data ------------ */

static const struct ntp_view_stage rdma_joined_stages[] = {
	STAGE(BLOCK, "host block layer: queued to the NVMe driver"),
	STAGE(DRIVER, "host NVMe driver, both ways"),
	STAGE(NETWORK,
	  "the network, both ways (the RDMA READ of a write's data included)"),
	STAGE(TARGET_DRIVER, "target NVMe driver, both ways"),
	STAGE(STORAGE, "the target's backend and device"),
};

#define RDMA_HOST_TX \
	STAGE(HOST_TX, \
	  "host driver, command to the HCA (nvme_setup_cmd to nvme_rdma_post_send)")
#define RDMA_HOST_RX \
	STAGE(HOST_RX, \
	  "host driver, response received to completion (nvme_rdma_recv_done to nvme_complete_rq)")
#define RDMA_TARGET_RX \
	STAGE(TARGET_RX, \
	  "target driver, capsule received to the backend, or to a write's RDMA READ posted " \
	  "(nvmet_req_init to nvmet_rdma_execute_command)")
#define RDMA_TARGET_TX \
	STAGE(TARGET_TX, \
	  "target driver, completion to the response posted " \
	  "(nvmet_req_complete to nvmet_rdma_queue_response)")

static const struct ntp_view_stage rdma_joined_detail[] = {
	STAGE(BLOCK, "host block layer (prior art: blk_submission)"),
	RDMA_HOST_TX,
	STAGE(NETWORK, "capsule and response on the wire "
	  "(nvme_rdma_post_send to nvme_rdma_recv_done, less the target's time)"),
	RDMA_TARGET_RX,
	STAGE(READ_WAIT, "a write's data pulled with RDMA READ, request and data on "
	  "the wire (nvmet_rdma_execute_command to nvmet_rdma_read_data_done)"),
	STAGE(STORAGE, "the target's backend and device (target_subsystem)"),
	RDMA_TARGET_TX,
	RDMA_HOST_RX,
};

static const struct ntp_view_stage rdma_host_stages[] = {
	STAGE(BLOCK, "host block layer: queued to the NVMe driver"),
	ALONE(DRIVER, "host NVMe driver, both ways"),
	STAGE(NETWORK_STAR, "the network and the target together, any RDMA READ of "
	  "a write's data included (a host-only recording cannot tell them apart)"),
};

static const struct ntp_view_stage rdma_host_detail[] = {
	STAGE(BLOCK, "host block layer (prior art: blk_submission)"),
	RDMA_HOST_TX,
	STAGE(NETWORK_STAR, "the network and the target together, any RDMA READ of "
	  "a write's data included (nvme_rdma_post_send to nvme_rdma_recv_done)"),
	RDMA_HOST_RX,
};

static const struct ntp_view_stage rdma_target_stages[] = {
	STAGE(TARGET_DRIVER, "target NVMe driver: command received to the backend, "
	  "completion to the response posted"),
	STAGE(STORAGE, "the target's backend and device"),
};

static const struct ntp_view_stage rdma_target_detail[] = {
	RDMA_TARGET_RX,
	STAGE(STORAGE, "the target's backend and device (target_subsystem)"),
	RDMA_TARGET_TX,
};

#define NSTAGES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* [rdma][view] */
static const struct ntp_view views[2][NTP_VIEW_MAX] = {
	{
		[NTP_VIEW_HOST] = { "summary", NSTAGES(host_stages), host_stages },
		[NTP_VIEW_JOINED] = { "summary", NSTAGES(joined_stages), joined_stages },
		[NTP_VIEW_JOINED_DETAIL] = { "detail", NSTAGES(joined_detail), joined_detail },
		[NTP_VIEW_HOST_DETAIL] = { "detail", NSTAGES(host_detail), host_detail },
		[NTP_VIEW_TARGET] = { "summary", NSTAGES(target_stages), target_stages },
		[NTP_VIEW_TARGET_DETAIL] = { "detail", NSTAGES(target_detail), target_detail },
	}, {
		[NTP_VIEW_HOST] = { "summary", NSTAGES(rdma_host_stages), rdma_host_stages },
		[NTP_VIEW_JOINED] = { "summary", NSTAGES(rdma_joined_stages), rdma_joined_stages },
		[NTP_VIEW_JOINED_DETAIL] = { "detail", NSTAGES(rdma_joined_detail),
					     rdma_joined_detail },
		[NTP_VIEW_HOST_DETAIL] = { "detail", NSTAGES(rdma_host_detail), rdma_host_detail },
		[NTP_VIEW_TARGET] = { "summary", NSTAGES(rdma_target_stages), rdma_target_stages },
		[NTP_VIEW_TARGET_DETAIL] = { "detail", NSTAGES(rdma_target_detail),
					     rdma_target_detail },
	},
};

const struct ntp_view *ntp_report__view(const struct ntp_report *r)
{
	return &views[!!r->rdma][r->view];
}

const char *ntp_report__residence(const struct ntp_report *r)
{
	return r->rdma ? NTP_REPORT_RESIDENCE_RDMA : NTP_REPORT_RESIDENCE;
}

const char *ntp_report__total_label(const struct ntp_report *r)
{
	return ntp_stages[r->kind == NTP_REPORT_TARGET ? NTP_STAGE_RESIDENCE : NTP_STAGE_E2E].label;
}

/* the columns every query of the scan returns, in this order */
enum {
	C_FILE, C_IO_TYPE, C_BYTES, C_NS,
	C_E2E, C_BLOCK, C_DRIVER, C_NETWORK, C_TDRIVER, C_STORAGE,
	/* the views' points (schema/ntp.sql): the finer stages are their differences */
	C_H_QUEUE, C_SENT, C_R2T_HOST, C_RECV, C_H_DONE,
	C_T_RECV, C_SUBMIT, C_CMPL, C_R2T_WAIT, C_T_SENT,
	C_NCOLS,
};

/* joined: the stage columns and points of temp.joined; files numbered from 1 */
static const char joined_sql[] =
	"SELECT host_file + 1, io_type, bytes, namespace,"
	" e2e_ns, block_ns, driver_ns, network_ns, target_driver_ns, storage_ns,"
	" h_queue_ns, sent_ns, r2t_host_ns, recv_ns, h_done_ns,"
	" t_recv_ns, submit_ns, cmpl_ns, r2t_wait_ns, t_sent_ns FROM temp.joined WHERE 1";

/* one host recording: C_NETWORK is network*, no target columns */
static const char host_sql[] =
	"SELECT 1, io_type, bytes, namespace,"
	" e2e_ns, block_ns, driver_ns, network_star_ns, NULL, NULL,"
	" h_queue_ns, sent_ns, r2t_host_ns, recv_ns, h_done_ns,"
	" NULL, NULL, NULL, NULL, NULL FROM host_stages s WHERE 1";

/*
 * One target recording: C_E2E is the residence, grouped by backend device;
 * no host columns.
 */
static const char target_sql[] =
	"SELECT 1, io_type, bytes, device,"
	" residence_ns, NULL, NULL, NULL, target_driver_ns, storage_ns,"
	" NULL, NULL, NULL, NULL, NULL,"
	" t_recv_ns, submit_ns, cmpl_ns, r2t_wait_ns, t_sent_ns FROM target_stages s WHERE 1";

/* where each query's rows have what the read filters test (model_filter.h) */
static const struct ntp_read_cols joined_cols = {
	.io_type = "io_type", .bytes = "bytes", .qid = "qid",
	.names = { "namespace", "path" }, .time = "h_start_ns", .file = "host_file",
};
static const struct ntp_read_cols host_cols = {
	.io_type = "s.io_type", .bytes = "s.bytes", .qid = "s.qid",
	.names = { "s.namespace", "s.path" }, .time = "s.h_start_ns",
};
/* a target alone: --session names its backend device */
static const struct ntp_read_cols target_cols = {
	.io_type = "s.io_type", .bytes = "s.bytes", .qid = "s.qid",
	.names = { "s.device" }, .time = "s.t_recv_ns",
};

struct raw {
	int64_t v[C_NCOLS];
};

/*
 * The sub-stages below are differences of the views' points, which in a
 * hostile file may be anything: SUB is checked (lib/core/checked.h) and sets
 * *ovf, and a command whose arithmetic overflows is impossible (add_row).
 */
#define SUB(a, b) ntp_checked__sub((a), (b), ovf)

/* the nine sub-stages of a joined NVMe/TCP command */
static void tcp_joined_detail_values(const struct raw *r, int64_t *out, bool *ovf)
{
	const int64_t *v = r->v;
	/* only when both sides saw the R2T: else its time stays where the views put it */
	int64_t r2t_wire = v[C_R2T_HOST] && v[C_R2T_WAIT] ? SUB(v[C_R2T_WAIT], v[C_R2T_HOST]) : 0;

	out[0] = v[C_BLOCK];
	out[1] = SUB(v[C_SENT], v[C_H_QUEUE]);
	out[2] = SUB(v[C_NETWORK], r2t_wire);
	out[3] = SUB(SUB(v[C_SUBMIT], v[C_T_RECV]), v[C_R2T_WAIT]);
	out[4] = r2t_wire;
	out[5] = v[C_R2T_HOST];
	out[6] = SUB(v[C_CMPL], v[C_SUBMIT]);
	out[7] = SUB(v[C_T_SENT], v[C_CMPL]);
	out[8] = SUB(v[C_H_DONE], v[C_RECV]);
}

/*
 * The eight of a joined NVMe/RDMA command: the host has no R2T points, the
 * target alone times the READ of a write's data, which is all wire time.
 */
static void rdma_joined_detail_values(const struct raw *r, int64_t *out, bool *ovf)
{
	const int64_t *v = r->v;
	int64_t read_wait = v[C_R2T_WAIT];

	out[0] = v[C_BLOCK];
	out[1] = SUB(v[C_SENT], v[C_H_QUEUE]);
	out[2] = SUB(v[C_NETWORK], read_wait);
	out[3] = SUB(SUB(v[C_SUBMIT], v[C_T_RECV]), read_wait);
	out[4] = read_wait;
	out[5] = SUB(v[C_CMPL], v[C_SUBMIT]);
	out[6] = SUB(v[C_T_SENT], v[C_CMPL]);
	out[7] = SUB(v[C_H_DONE], v[C_RECV]);
}

/* one host recording: r2t-host only over TCP */
static void host_detail_values(const struct raw *r, bool rdma, int64_t *out, bool *ovf)
{
	const int64_t *v = r->v;
	int s = 0;

	out[s++] = v[C_BLOCK];
	out[s++] = SUB(v[C_SENT], v[C_H_QUEUE]);
	if (!rdma)
		out[s++] = v[C_R2T_HOST];
	out[s++] = v[C_NETWORK];
	out[s] = SUB(v[C_H_DONE], v[C_RECV]);
}

static void view_values(const struct ntp_report *rep, const struct raw *r, int64_t *out,
			bool *ovf)
{
	switch (rep->view) {
	case NTP_VIEW_HOST:
		for (int s = 0; s < 3; s++)
			out[s] = r->v[C_BLOCK + s];
		return;
	case NTP_VIEW_JOINED:
		for (int s = 0; s < 5; s++)
			out[s] = r->v[C_BLOCK + s];
		return;
	case NTP_VIEW_HOST_DETAIL:
		host_detail_values(r, rep->rdma, out, ovf);
		return;
	case NTP_VIEW_JOINED_DETAIL:
		if (rep->rdma)
			rdma_joined_detail_values(r, out, ovf);
		else
			tcp_joined_detail_values(r, out, ovf);
		return;
	case NTP_VIEW_TARGET:
		out[0] = r->v[C_TDRIVER];
		out[1] = r->v[C_STORAGE];
		return;
	case NTP_VIEW_TARGET_DETAIL:
		/* the residence leaves out a write's data wait (R2T, READ): target-rx too */
		out[0] = SUB(SUB(r->v[C_SUBMIT], r->v[C_T_RECV]), r->v[C_R2T_WAIT]);
		out[1] = SUB(r->v[C_CMPL], r->v[C_SUBMIT]);
		out[2] = SUB(r->v[C_T_SENT], r->v[C_CMPL]);
		return;
	case NTP_VIEW_MAX:
		break;
	}
}

#undef SUB

/* ---- groups ---------------------------------------------------------------- */

/* the columns each query gives (the others are literal NULLs: a side it has not) */
#define HOST_COLS (1u << C_E2E | 1u << C_BLOCK | 1u << C_DRIVER | 1u << C_NETWORK | \
		   1u << C_H_QUEUE | 1u << C_SENT | 1u << C_R2T_HOST | 1u << C_RECV | 1u << C_H_DONE)
#define TARGET_COLS (1u << C_E2E | 1u << C_TDRIVER | 1u << C_STORAGE | 1u << C_T_RECV | \
		     1u << C_SUBMIT | 1u << C_CMPL | 1u << C_R2T_WAIT | 1u << C_T_SENT)
/* the columns the views compute by subtracting: a real there is SQLite's overflow */
#define DIFFERENCES (1u << C_E2E | 1u << C_BLOCK | 1u << C_DRIVER | 1u << C_NETWORK | \
		     1u << C_TDRIVER | 1u << C_STORAGE | 1u << C_R2T_HOST | 1u << C_R2T_WAIT)

static unsigned int given_cols(const struct ntp_report *r)
{
	return r->kind == NTP_REPORT_JOINED ? HOST_COLS | TARGET_COLS :
	       r->kind == NTP_REPORT_TARGET ? TARGET_COLS : HOST_COLS;
}

/*
 * The row's values; -1, or why the command is impossible: a time or stage
 * that is not an integer (a real is SQLite's overflow of a difference), or
 * NULL where the query gives a column: the views' points have their
 * fallbacks, so only a file that breaks its own NOT NULL columns has one.
 */
static int read_raw(sqlite3_stmt *st, struct raw *r, unsigned int given)
{
	int why = -1;

	for (int c = C_BYTES; c < C_NCOLS; c++) {
		int type = sqlite3_column_type(st, c);

		if (c == C_NS)
			continue;
		r->v[c] = type == SQLITE_NULL ? 0 : sqlite3_column_int64(st, c);
		if (c < C_E2E || why >= 0 || !(given & 1u << c))
			continue;
		if (type == SQLITE_FLOAT)
			why = DIFFERENCES & 1u << c ? NTP_IMPOSSIBLE_OVERFLOW : NTP_IMPOSSIBLE_NOT_NUMBER;
		else if (type != SQLITE_INTEGER)
			why = NTP_IMPOSSIBLE_NOT_NUMBER;
	}
	r->v[C_FILE] = sqlite3_column_int64(st, C_FILE);
	return why;
}

/* one row into its group's samples and sums, or its impossible commands */
static int add_row(struct ntp_report *r, struct ntp_group_set *set, sqlite3_stmt *st)
{
	const char *io_type = (const char *)sqlite3_column_text(st, C_IO_TYPE);
	const char *ns = (const char *)sqlite3_column_text(st, C_NS);
	int64_t v[NTP_VIEW_MAX_STAGES] = { 0 };
	bool ovf = false;
	struct raw raw;
	ssize_t k;
	int why;

	why = read_raw(st, &raw, given_cols(r));
	if (why < 0) {
		view_values(r, &raw, v, &ovf);
		if (ovf)
			why = NTP_IMPOSSIBLE_OVERFLOW;
	}
	k = ntp_group_set__find(set, (int)raw.v[C_FILE], io_type ? io_type : "", raw.v[C_BYTES],
				ns ? ns : "");
	if (k < 0)
		return -ENOMEM;
	if (why >= 0)
		ntp_group_set__impossible(set, (size_t)k, why);
	else if (ntp_group_set__add(set, (size_t)k, raw.v[C_E2E], v))
		return -ENOMEM;
	r->total++;
	return 0;
}

/*
 * A set for r's view.  The stages of joined recordings that are a
 * difference of the two sides (the network, an R2T's wire time) may be
 * below 0 in a true command: a target's exit hook that fires after the host
 * completed, on loopback, or the clock line's own error.  Every other
 * stage is on one clock, and below 0 it is an impossible command.
 */
void ntp_report__set_init(struct ntp_group_set *set, const struct ntp_report *r)
{
	const struct ntp_view *v = ntp_report__view(r);

	set->nstages = v->nstages;
	set->histograms = r->histograms;
	for (int s = 0; s < v->nstages && r->kind == NTP_REPORT_JOINED; s++)
		if (ntp_stages[v->stages[s].id].side == NTP_STAGE_JOINED_SIDE)
			set->may_be_negative |= 1u << s;
}

/*
 * The read filters of r on db's files: "main" for one recording, the
 * join's "ntp<i>" (lib/join/join.h) for joined ones, their starts on the
 * host's clock (a target alone's on its own).
 */
int ntp_report__filter_where(const struct ntp_report *r, sqlite3 *db, const char *path,
			     struct ntp_read_where *w)
{
	char names[NTP_JOIN_MAX_FILES][8];
	const char *schemas[NTP_JOIN_MAX_FILES];
	int n = r->kind == NTP_REPORT_JOINED ? r->nfiles : 1;

	memset(w, 0, sizeof(*w));
	w->f = r->filter;
	w->cols = r->kind == NTP_REPORT_JOINED ? &joined_cols :
		  r->kind == NTP_REPORT_TARGET ? &target_cols : &host_cols;
	if (n > NTP_JOIN_MAX_FILES)
		n = NTP_JOIN_MAX_FILES;
	for (int i = 0; i < n; i++) {
		if (r->kind == NTP_REPORT_JOINED)
			snprintf(names[i], sizeof(names[i]), "ntp%d", i);
		else
			snprintf(names[i], sizeof(names[i]), "main");
		schemas[i] = names[i];
	}
	return ntp_read_filter__starts(w, db, schemas, n, r->kind == NTP_REPORT_TARGET, path);
}

/* streams the rows into the groups (model_groups.c) */
int ntp_report__scan_view(struct ntp_report *r, sqlite3 *db, const char *path)
{
	const char *sql = r->kind == NTP_REPORT_JOINED ? joined_sql :
			  r->kind == NTP_REPORT_TARGET ? target_sql : host_sql;
	struct ntp_group_set set = { 0 };
	struct ntp_read_where where;
	sqlite3_stmt *st;
	int rc, err;

	ntp_report__set_init(&set, r);
	err = ntp_report__filter_where(r, db, path, &where);
	if (err)
		return err;
	if (ntp_read_filter__prepare(db, sql, r->filter ? &where : NULL, NULL, &st))
		return ntp_report__db_fail(db, path, "cannot read the commands");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (add_row(r, &set, st)) {
			rc = -ENOMEM;
			break;
		}
	}
	err = ntp_report__rows_end(db, path, st, rc, "cannot read the commands");
	if (err) {
		ntp_group_set__free(&set);
		return err;
	}
	if (ntp_group_set__finish(&set, &r->groups, &r->ngroups)) {
		ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* ---- what the hooks could not separate ------------------------------------ */

struct point {
	const char *point;
	int side;               /* enum ntp_side */
	const char *direct;     /* the hook at the point itself; NULL: any hook is */
	const char *stages;     /* the sub-stages it bounds */
	const char *none;       /* where their time goes without a hook */
};

static const struct point tcp_points[] = {
	{ "h_cmd_sent", NTP_SIDE_HOST, "nvme_tcp_try_send_cmd_pdu", "host-tx",
	  "host-tx is 0: sending the command is in the network stage" },
	{ "h_data_sent", NTP_SIDE_HOST, "nvme_tcp_try_send_data", "host-tx, r2t-host",
	  "sending write data and the host's R2T work are in the network stage" },
	{ "h_r2t", NTP_SIDE_HOST, NULL, "r2t-host, r2t-wait",
	  "the host's R2T work and the R2T wait are in the network stage" },
	{ "h_recv", NTP_SIDE_HOST, NULL, "host-rx",
	  "host-rx is 0: parsing the response is in the network stage" },
	{ "t_r2t", NTP_SIDE_TARGET, NULL, "target-rx, r2t-wait",
	  "the R2T wait is in target-rx" },
	{ "t_submit", NTP_SIDE_TARGET, NULL, "target-rx, storage",
	  "target-rx is 0: its time is in storage" },
	{ "t_cmpl", NTP_SIDE_TARGET, NULL, "storage, target-tx",
	  "storage is 0: its time is in target-tx" },
	{ "t_sent", NTP_SIDE_TARGET, "nvmet_try_send_response", "target-tx",
	  "target-tx is 0: sending the response is in the network stage" },
};

/* no R2T on an RDMA host: h_r2t and h_data_sent bound nothing there */
static const struct point rdma_points[] = {
	{ "h_cmd_sent", NTP_SIDE_HOST, "nvme_rdma_post_send", "host-tx",
	  "host-tx is 0: posting the command is in the network stage" },
	{ "h_recv", NTP_SIDE_HOST, NULL, "host-rx",
	  "host-rx is 0: receiving the response is in the network stage" },
	{ "t_r2t", NTP_SIDE_TARGET, NULL, "target-rx, read-wait",
	  "the RDMA READ wait is in target-rx" },
	{ "t_submit", NTP_SIDE_TARGET, NULL, "target-rx, read-wait, storage",
	  "target-rx and read-wait are 0: their time is in storage" },
	{ "t_cmpl", NTP_SIDE_TARGET, NULL, "storage, target-tx",
	  "storage is 0: its time is in target-tx" },
	{ "t_sent", NTP_SIDE_TARGET, "nvmet_rdma_queue_response", "target-tx",
	  "target-tx is 0: posting the response is in the network stage" },
};

static int add_gap(struct ntp_report *r, int fi, const struct point *pt, const char *hook,
		   const char *what)
{
	struct ntp_stage_gap *g;
	void *p = realloc(r->gaps, (r->ngaps + 1) * sizeof(*r->gaps));

	if (!p)
		return -ENOMEM;
	r->gaps = p;
	g = &r->gaps[r->ngaps];
	g->file = fi + 1;
	g->point = pt->point;
	g->stages = pt->stages;
	g->what = what;
	g->hook = strdup(hook);
	if (!g->hook)
		return -ENOMEM;
	r->ngaps++;
	return 0;
}

/*
 * From file fi's hooks rows: a point with no hook ("none") leaves its
 * sub-stages unseparated; one taken at a nearby function instead of the
 * point itself (6.1 inlines nvme_tcp_try_send_cmd_pdu and
 * nvmet_try_send_response) makes them approximate.  A file without hooks
 * rows says nothing either way.  The points are the transport's.
 */
int ntp_report__find_gaps(struct ntp_report *r, int fi)
{
	const struct ntp_report_header *h = &r->files[fi].hdr;
	const struct point *pts = r->rdma ? rdma_points : tcp_points;
	size_t npts = r->rdma ? sizeof(rdma_points) / sizeof(rdma_points[0]) :
		      sizeof(tcp_points) / sizeof(tcp_points[0]);
	int sides = r->files[fi].sides;

	for (size_t k = 0; k < npts; k++) {
		if (!(sides & pts[k].side))
			continue;
		for (size_t i = 0; i < h->nhooks; i++) {
			const struct ntp_report_hook *hk = &h->hooks[i];
			const char *what = NULL;

			if (strcmp(hk->point, pts[k].point))
				continue;
			if (!strcmp(hk->hook, "none") || !strcmp(hk->flavour, "none"))
				what = pts[k].none;
			else if (pts[k].direct && strcmp(hk->hook, pts[k].direct))
				what = "approximate: taken at a nearby function, not at the point itself "
				       "(the direct hook is inlined on this kernel)";
			if (what && add_gap(r, fi, &pts[k], hk->hook, what)) {
				ntp_error("%s: %s", h->path, strerror(ENOMEM));
				return NTP_EXIT_FAILURE;
			}
			break;
		}
	}
	return 0;
}

/* ---- shared by the printers ------------------------------------------------ */

double ntp_report__matched_pct(const struct ntp_report *r)
{
	if (!r->counts.host_rows)
		return NAN;
	return (double)r->counts.matched * 100.0 / (double)r->counts.host_rows;
}
