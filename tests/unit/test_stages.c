// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/stages.c against the definition of the stages, the views host_stages
 * and target_stages of schema/ntp.sql: thousands of generated commands
 * (reads, in-capsule and R2T writes, other opcodes, every optional hook
 * missing in turn, hooks in odd orders) go into an in-memory database made
 * from the embedded schema, and the C result must equal the views' columns
 * for every one.  Plus known answers worked out by hand, and the five joined
 * stages adding up to the end-to-end latency exactly.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "lib/core/stages.h"
#include "lib/ntp/db_schema.h"

#define NCMDS 20000

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint64_t between(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static int one_in(unsigned int n)
{
	return rnd() % n == 0;
}

/* a host command of shape i % 6; optional hooks dropped at random */
static void gen_host(struct ntp_host_event *e, unsigned int i)
{
	uint64_t t;

	memset(e, 0, sizeof(*e));
	e->kind = NTP_EV_HOST_IO;
	e->h_start = between(1000000000ULL, 1000000000000ULL);
	e->h_queue = e->h_start + between(0, 20000);
	e->h_cmd_sent = e->h_queue + between(0, 5000);
	switch (i % 6) {
	case 0:         /* read */
		e->opcode = 2;
		t = e->h_cmd_sent;
		break;
	case 1:         /* in-capsule write: data after the capsule */
		e->opcode = 1;
		e->h_data_sent = e->h_cmd_sent + between(0, 3000);
		t = e->h_data_sent;
		break;
	case 2:         /* in-capsule write whose data hook fired before the capsule's */
		e->opcode = 1;
		e->h_data_sent = e->h_cmd_sent - between(1, 2000);
		t = e->h_cmd_sent;
		break;
	case 3:         /* R2T write */
		e->opcode = 1;
		e->h_r2t = e->h_cmd_sent + between(5000, 50000);
		e->h_data_sent = e->h_r2t + between(0, 10000);
		e->flags |= NTP_HF_R2T;
		t = e->h_data_sent;
		break;
	case 4:         /* another opcode (flush) */
		e->opcode = 0;
		t = e->h_cmd_sent;
		break;
	default:        /* hooks in any order at all: stages may go negative */
		e->opcode = 1 + (uint8_t)(rnd() % 2);
		e->h_cmd_sent = e->h_start + between(0, 100000);
		e->h_r2t = e->h_start + between(0, 100000);
		e->h_data_sent = e->h_start + between(0, 100000);
		t = e->h_start + between(0, 100000);
		break;
	}
	e->h_recv = t + between(5000, 100000);
	e->h_done = e->h_recv + between(0, 5000);
	if (i % 6 == 5)
		e->h_recv = e->h_start + between(0, 200000);
	/* the hooks this kernel may lack: the views fall back */
	if (one_in(4))
		e->h_cmd_sent = 0;
	if (one_in(4))
		e->h_r2t = 0;
	if (one_in(4))
		e->h_data_sent = 0;
	if (one_in(4))
		e->h_recv = 0;
	if (one_in(50))
		e->h_start = 0;
	e->cid = (uint16_t)rnd();
	e->slba = rnd() >> 20;
	e->nlb0 = (uint16_t)(rnd() % 256);
	e->bytes = ((uint32_t)e->nlb0 + 1) * 512;
	e->qid = 1 + (uint16_t)(rnd() % 8);
	e->nsid = 1;
	e->cntlid = 1;
	e->ctrl_instance = 0;
	strcpy(e->disk, "nvme0n1");
	strcpy(e->path, "nvme0c0n1");
	/* the application's side, drawn last (the other fields keep their draws): none, no reap, all */
	switch (rnd() % 3) {
	case 2:
		e->h_app_reap = e->h_done + between(0, 80000);
		/* fall through */
	case 1:
		e->h_app_submit = e->h_queue - between(1, 20000);
		e->h_app_done = e->h_done + between(0, 5000);
		if (e->h_app_reap && e->h_app_reap < e->h_app_done)
			e->h_app_reap = e->h_app_done;
		break;
	}
}

static void gen_target(struct ntp_target_event *e, unsigned int i)
{
	uint64_t t;

	memset(e, 0, sizeof(*e));
	e->kind = NTP_EV_TARGET_IO;
	e->t_recv = between(1000000000ULL, 1000000000000ULL);
	switch (i % 4) {
	case 0:         /* read or in-capsule write */
		e->opcode = 1 + (uint8_t)(rnd() % 2);
		e->t_submit = e->t_recv + between(0, 5000);
		break;
	case 1:         /* R2T write */
		e->opcode = 1;
		e->t_r2t = e->t_recv + between(0, 3000);
		e->t_submit = e->t_r2t + between(5000, 50000);
		e->flags |= NTP_TF_R2T;
		break;
	case 2:         /* other opcode */
		e->opcode = 0;
		e->t_submit = e->t_recv + between(0, 5000);
		break;
	default:        /* any order */
		e->opcode = 1 + (uint8_t)(rnd() % 2);
		e->t_r2t = e->t_recv + between(0, 100000);
		e->t_submit = e->t_recv + between(0, 100000);
		break;
	}
	t = e->t_submit;
	e->t_cmpl = t + between(1000, 100000);
	e->t_sent = e->t_cmpl + between(0, 5000);
	if (i % 4 == 3)
		e->t_cmpl = e->t_recv + between(0, 100000);
	if (one_in(4))
		e->t_r2t = 0;
	if (one_in(4))
		e->t_submit = 0;
	if (one_in(4))
		e->t_cmpl = 0;
	e->cid = (uint16_t)rnd();
	e->slba = rnd() >> 20;
	e->nlb0 = (uint16_t)(rnd() % 256);
	e->bytes = ((uint32_t)e->nlb0 + 1) * 512;
	e->qid = 1;
	e->nsid = 1;
	e->cntlid = 1;
	strcpy(e->device, "nullb0");
}

/* a nullable time column: 0 is NULL, as lib/ntp/db_write.c stores it */
static void bind_time(sqlite3_stmt *st, int i, uint64_t t)
{
	if (t)
		assert_int_equal(sqlite3_bind_int64(st, i, (sqlite3_int64)t), SQLITE_OK);
	else
		assert_int_equal(sqlite3_bind_null(st, i), SQLITE_OK);
}

static void insert_host(sqlite3 *db, int64_t id, const struct ntp_host_event *e)
{
	static const char sql[] =
		"INSERT INTO host_io (id, h_start_ns, h_queue_ns, h_cmd_sent_ns, h_r2t_ns,"
		" h_data_sent_ns, h_recv_ns, h_done_ns, opcode, cid, slba, nlb, bytes, qid,"
		" nsid, cntlid, controller, namespace, path, h_app_submit_ns, h_app_done_ns,"
		" h_app_reap_ns)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
		" 'nvme0', ?17, ?18, ?19, ?20, ?21)";
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)e->h_start);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)e->h_queue);
	bind_time(st, 4, e->h_cmd_sent);
	bind_time(st, 5, e->h_r2t);
	bind_time(st, 6, e->h_data_sent);
	bind_time(st, 7, e->h_recv);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)e->h_done);
	sqlite3_bind_int(st, 9, e->opcode);
	sqlite3_bind_int(st, 10, e->cid);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)e->slba);
	sqlite3_bind_int(st, 12, e->nlb0 + 1);
	sqlite3_bind_int64(st, 13, e->bytes);
	sqlite3_bind_int(st, 14, e->qid);
	sqlite3_bind_int64(st, 15, e->nsid);
	sqlite3_bind_int(st, 16, e->cntlid);
	sqlite3_bind_text(st, 17, e->disk, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 18, e->path, -1, SQLITE_TRANSIENT);
	bind_time(st, 19, e->h_app_submit);
	bind_time(st, 20, e->h_app_done);
	bind_time(st, 21, e->h_app_reap);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

static void insert_target(sqlite3 *db, int64_t id, const struct ntp_target_event *e)
{
	static const char sql[] =
		"INSERT INTO target_io (id, t_recv_ns, t_r2t_ns, t_submit_ns, t_cmpl_ns, t_sent_ns,"
		" opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, device)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)e->t_recv);
	bind_time(st, 3, e->t_r2t);
	bind_time(st, 4, e->t_submit);
	bind_time(st, 5, e->t_cmpl);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)e->t_sent);
	sqlite3_bind_int(st, 7, e->opcode);
	sqlite3_bind_int(st, 8, e->cid);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)e->slba);
	sqlite3_bind_int(st, 10, e->nlb0 + 1);
	sqlite3_bind_int64(st, 11, e->bytes);
	sqlite3_bind_int(st, 12, e->qid);
	sqlite3_bind_int64(st, 13, e->nsid);
	sqlite3_bind_int(st, 14, e->cntlid);
	sqlite3_bind_text(st, 15, e->device, -1, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

struct fixture {
	sqlite3 *db;
	struct ntp_host_event *h;
	struct ntp_target_event *t;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	unsigned int i;

	if (!fx)
		return -1;
	fx->h = calloc(NCMDS, sizeof(*fx->h));
	fx->t = calloc(NCMDS, sizeof(*fx->t));
	if (!fx->h || !fx->t || sqlite3_open(":memory:", &fx->db) != SQLITE_OK)
		return -1;
	if (sqlite3_exec(fx->db, ntp_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(fx->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	for (i = 0; i < NCMDS; i++) {
		gen_host(&fx->h[i], i);
		gen_target(&fx->t[i], i);
		insert_host(fx->db, i + 1, &fx->h[i]);
		insert_target(fx->db, i + 1, &fx->t[i]);
	}
	if (sqlite3_exec(fx->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	sqlite3_close(fx->db);
	free(fx->h);
	free(fx->t);
	free(fx);
	return 0;
}

/* column i of the current row, which must be an exact integer (not a float from an overflow) */
static int64_t col(sqlite3_stmt *st, int i)
{
	assert_int_equal(sqlite3_column_type(st, i), SQLITE_INTEGER);
	return sqlite3_column_int64(st, i);
}

static void host__every_command__equals_view(void **state)
{
	struct fixture *fx = *state;
	sqlite3_stmt *st;
	unsigned int n = 0;

	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT id, e2e_ns, block_ns, driver_ns, network_star_ns FROM host_stages ORDER BY id",
		-1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = col(st, 0);
		struct ntp_host_stages s;

		ntp_stages__host(&fx->h[id - 1], &s);
		assert_int_equal(s.e2e, col(st, 1));
		assert_int_equal(s.block, col(st, 2));
		assert_int_equal(s.driver, col(st, 3));
		assert_int_equal(s.network_star, col(st, 4));
		/* the host-only stages add up too */
		assert_int_equal(s.block + s.driver + s.network_star, s.e2e);
		n++;
	}
	sqlite3_finalize(st);
	assert_int_equal(n, NCMDS);
}

/* the live lines' app e2e is host_app_stages' */
static void app_e2e__every_command__equals_view(void **state)
{
	struct fixture *fx = *state;
	sqlite3_stmt *st;
	unsigned int n = 0, with = 0;

	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT id, app_e2e_ns FROM host_app_stages ORDER BY id", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = col(st, 0), v = -1;
		bool has = ntp_stages__app_e2e(&fx->h[id - 1], &v);

		assert_int_equal(has, sqlite3_column_type(st, 1) != SQLITE_NULL);
		if (has) {
			assert_int_equal(v, col(st, 1));
			with++;
		}
		n++;
	}
	sqlite3_finalize(st);
	assert_int_equal(n, NCMDS);
	assert_true(with > NCMDS / 2 && with < NCMDS);  /* both kinds were drawn */
}

static void target__every_command__equals_view(void **state)
{
	struct fixture *fx = *state;
	sqlite3_stmt *st;
	unsigned int n = 0;

	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT id, target_driver_ns, storage_ns, residence_ns FROM target_stages ORDER BY id",
		-1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = col(st, 0);
		struct ntp_target_stages s;

		ntp_stages__target(&fx->t[id - 1], &s);
		assert_int_equal(s.target_driver, col(st, 1));
		assert_int_equal(s.storage, col(st, 2));
		assert_int_equal(s.residence, col(st, 3));
		assert_int_equal(s.target_driver + s.storage, s.residence);
		n++;
	}
	sqlite3_finalize(st);
	assert_int_equal(n, NCMDS);
}

/* host i and target i as one command: network = network* - residence, and the five add up */
static void joined__every_pair__equals_views_and_sums_to_e2e(void **state)
{
	struct fixture *fx = *state;
	sqlite3_stmt *st;
	unsigned int n = 0;

	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT h.id, h.e2e_ns, h.block_ns, h.driver_ns, h.network_star_ns - t.residence_ns,"
		" t.target_driver_ns, t.storage_ns"
		" FROM host_stages h JOIN target_stages t ON t.id = h.id ORDER BY h.id",
		-1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = col(st, 0);
		struct ntp_joined_stages s;

		ntp_stages__joined(&fx->h[id - 1], &fx->t[id - 1], &s);
		assert_int_equal(s.e2e, col(st, 1));
		assert_int_equal(s.block, col(st, 2));
		assert_int_equal(s.driver, col(st, 3));
		assert_int_equal(s.network, col(st, 4));
		assert_int_equal(s.target_driver, col(st, 5));
		assert_int_equal(s.storage, col(st, 6));
		assert_int_equal(s.block + s.driver + s.network + s.target_driver + s.storage, s.e2e);
		n++;
	}
	sqlite3_finalize(st);
	assert_int_equal(n, NCMDS);
}

/*
 * The schema's joined_stages view (over join_pairs, as ntprof join and
 * record -r both fill it) is the same arithmetic: every pair equals
 * ntp_stages__joined().
 */
static void joined_stages_view__every_pair__equals_stages_c(void **state)
{
	struct fixture *fx = *state;
	sqlite3_stmt *st;
	unsigned int n = 0;

	assert_int_equal(sqlite3_exec(fx->db, "DELETE FROM join_pairs;"
		" INSERT INTO join_pairs (host_id, target_id, offset_ns, h_occ, t_occ)"
		" SELECT id, id, 0, 1, 1 FROM host_io", NULL, NULL, NULL),
		SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT host_id, e2e_ns, block_ns, driver_ns, network_ns, target_driver_ns,"
		" storage_ns, target_id FROM joined_stages ORDER BY host_id", -1, &st, NULL),
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = col(st, 0);
		struct ntp_joined_stages s;

		assert_int_equal(col(st, 7), id);
		ntp_stages__joined(&fx->h[id - 1], &fx->t[id - 1], &s);
		assert_int_equal(s.e2e, col(st, 1));
		assert_int_equal(s.block, col(st, 2));
		assert_int_equal(s.driver, col(st, 3));
		assert_int_equal(s.network, col(st, 4));
		assert_int_equal(s.target_driver, col(st, 5));
		assert_int_equal(s.storage, col(st, 6));
		n++;
	}
	sqlite3_finalize(st);
	assert_int_equal(n, NCMDS);
	assert_int_equal(sqlite3_exec(fx->db, "DELETE FROM join_pairs", NULL, NULL, NULL), SQLITE_OK);
}

/* known answers, worked out by hand from ntprof-design(7), STAGES */
static void host__r2t_write__host_work_between_trips_is_driver(void **state)
{
	struct ntp_host_event e = {
		.h_start = 1000, .h_queue = 1100, .h_cmd_sent = 1200, .h_r2t = 1500,
		.h_data_sent = 1550, .h_recv = 2000, .h_done = 2030, .opcode = 1,
	};
	struct ntp_host_stages s;

	ntp_stages__host(&e, &s);
	assert_int_equal(s.e2e, 1030);
	assert_int_equal(s.block, 100);
	/* (1200-1100) + (1550-1500) + (2030-2000) */
	assert_int_equal(s.driver, 180);
	/* (2000-1200) - 50 */
	assert_int_equal(s.network_star, 750);
}

static void host__missing_hooks__fall_back(void **state)
{
	/* no send hook, no receive hook: driver is 0, all of queue..done is network* */
	struct ntp_host_event e = { .h_start = 10, .h_queue = 30, .h_done = 130, .opcode = 2 };
	/* R2T without a data-sent time: not treated as R2T, data falls back to cmd_sent */
	struct ntp_host_event r = { .h_start = 10, .h_queue = 30, .h_cmd_sent = 40, .h_r2t = 60,
				    .h_recv = 100, .h_done = 110, .opcode = 1 };
	/* in-capsule write: the later of capsule and data is the send time */
	struct ntp_host_event w = { .h_start = 10, .h_queue = 30, .h_cmd_sent = 40,
				    .h_data_sent = 55, .h_recv = 100, .h_done = 110, .opcode = 1 };
	struct ntp_host_stages s;

	ntp_stages__host(&e, &s);
	assert_int_equal(s.block, 20);
	assert_int_equal(s.driver, 0);
	assert_int_equal(s.network_star, 100);
	ntp_stages__host(&r, &s);
	assert_int_equal(s.driver, 10 + 10);
	assert_int_equal(s.network_star, 60);
	ntp_stages__host(&w, &s);
	assert_int_equal(s.driver, 25 + 10);
	assert_int_equal(s.network_star, 45);
}

static void target__r2t_wait__is_not_residence(void **state)
{
	struct ntp_target_event e = { .t_recv = 100, .t_r2t = 110, .t_submit = 400,
				      .t_cmpl = 900, .t_sent = 950, .opcode = 1 };
	struct ntp_target_event m = { .t_recv = 100, .t_sent = 180 };
	struct ntp_target_stages s;

	ntp_stages__target(&e, &s);
	/* (400-100) - 290 + (950-900) */
	assert_int_equal(s.target_driver, 60);
	assert_int_equal(s.storage, 500);
	assert_int_equal(s.residence, 560);
	/* no submit, no completion hook: all of it is target driver */
	ntp_stages__target(&m, &s);
	assert_int_equal(s.target_driver, 80);
	assert_int_equal(s.storage, 0);
	assert_int_equal(s.residence, 80);
}

/*
 * What the join does (lib/join/join_keep.c): the views' points read, the
 * differences taken here.  Every generated command, plus commands whose
 * times sit at the ends of 64 bits: the stages equal the views' where the
 * views' are integers, and the points function refuses exactly where a
 * view's stage is a real (SQLite's overflow).
 */
#define TOP INT64_MAX
#define BOTTOM (INT64_MIN + 1)

static const int64_t extreme_host[][7] = {
	/* start, queue, cmd_sent, r2t, data_sent, recv, done (0: NULL) */
	{ BOTTOM, TOP, 0, 0, 0, 0, TOP },
	{ 10, 20, 30, 0, 0, 40, TOP },	/* near the top, but every difference fits */
	{ BOTTOM, 5, 6, 0, 0, 7, 8 },
	{ 1, 2, 3, BOTTOM, TOP, 4, 5 },
	{ 1, 2, 3, 4, TOP, BOTTOM, TOP },
	{ -5, -4, -3, 0, 0, -2, -1 },
};

static const int64_t extreme_target[][5] = {
	/* recv, r2t, submit, cmpl, sent (0: NULL) */
	{ BOTTOM, 0, 0, 0, TOP },
	{ 1, BOTTOM, TOP, 3, 4 },
	{ 1, 0, TOP, BOTTOM, 2 },
	{ -9, 0, -8, -7, -6 },
};

static void bind_or_null(sqlite3_stmt *st, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static bool all_int(sqlite3_stmt *st, int first, int n)
{
	for (int c = first; c < first + n; c++)
		if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
			return false;
	return true;
}

static void points__from_views__equal_views_real_where_they_overflow(void **state)
{
	struct fixture *fx = *state;
	sqlite3_stmt *st;
	unsigned int n = 0, refused = 0;

	assert_int_equal(sqlite3_exec(fx->db, "SAVEPOINT extreme", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"INSERT INTO host_io (id, h_start_ns, h_queue_ns, h_cmd_sent_ns, h_r2t_ns,"
		" h_data_sent_ns, h_recv_ns, h_done_ns, opcode, cid, slba, nlb, bytes, qid, nsid,"
		" cntlid, controller, namespace, path)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, 0, 0, 1, 4096, 1, 1, 1, 'c', 'n', 'n')",
		-1, &st, NULL), SQLITE_OK);
	for (size_t i = 0; i < sizeof(extreme_host) / sizeof(extreme_host[0]); i++) {
		sqlite3_bind_int64(st, 1, NCMDS + 1 + (int64_t)i);
		for (int c = 0; c < 7; c++)
			bind_or_null(st, 2 + c, extreme_host[i][c]);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"INSERT INTO target_io (id, t_recv_ns, t_r2t_ns, t_submit_ns, t_cmpl_ns, t_sent_ns,"
		" opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, device)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, 0, 0, 1, 4096, 1, 1, 1, 'd')", -1, &st, NULL),
		SQLITE_OK);
	for (size_t i = 0; i < sizeof(extreme_target) / sizeof(extreme_target[0]); i++) {
		sqlite3_bind_int64(st, 1, NCMDS + 1 + (int64_t)i);
		for (int c = 0; c < 5; c++)
			bind_or_null(st, 2 + c, extreme_target[i][c]);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);

	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT h_start_ns, h_queue_ns, sent_ns, r2t_host_ns, recv_ns, h_done_ns,"
		" e2e_ns, block_ns, driver_ns, network_star_ns FROM host_stages", -1, &st, NULL),
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct ntp_host_points p;
		struct ntp_host_stages s;
		bool ok;

		n++;
		if (!all_int(st, 0, 6)) {
			/* a point that is a real already: so is a stage made of it */
			assert_false(all_int(st, 6, 4));
			refused++;
			continue;
		}
		p = (struct ntp_host_points){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					      sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
					      sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5) };
		ok = ntp_stages__host_points(&p, &s);
		assert_int_equal(ok, all_int(st, 6, 4));
		if (!ok) {
			refused++;
			continue;
		}
		assert_int_equal(s.e2e, col(st, 6));
		assert_int_equal(s.block, col(st, 7));
		assert_int_equal(s.driver, col(st, 8));
		assert_int_equal(s.network_star, col(st, 9));
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(fx->db,
		"SELECT t_recv_ns, submit_ns, cmpl_ns, r2t_wait_ns, t_sent_ns,"
		" target_driver_ns, storage_ns, residence_ns FROM target_stages", -1, &st, NULL),
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct ntp_target_points p;
		struct ntp_target_stages s;
		bool ok;

		n++;
		if (!all_int(st, 0, 5)) {
			assert_false(all_int(st, 5, 3));
			refused++;
			continue;
		}
		p = (struct ntp_target_points){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
						sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
						sqlite3_column_int64(st, 4) };
		ok = ntp_stages__target_points(&p, &s);
		assert_int_equal(ok, all_int(st, 5, 3));
		if (!ok) {
			refused++;
			continue;
		}
		assert_int_equal(s.target_driver, col(st, 5));
		assert_int_equal(s.storage, col(st, 6));
		assert_int_equal(s.residence, col(st, 7));
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(fx->db, "ROLLBACK TO extreme; RELEASE extreme", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(n, 2 * NCMDS + sizeof(extreme_host) / sizeof(extreme_host[0]) +
			    sizeof(extreme_target) / sizeof(extreme_target[0]));
	/* host rows 1, 3, 4 and 5 overflow somewhere, target rows 1 to 3 */
	assert_int_equal(refused, 4 + 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(host__every_command__equals_view),
		cmocka_unit_test(app_e2e__every_command__equals_view),
		cmocka_unit_test(target__every_command__equals_view),
		cmocka_unit_test(joined__every_pair__equals_views_and_sums_to_e2e),
		cmocka_unit_test(joined_stages_view__every_pair__equals_stages_c),
		cmocka_unit_test(host__r2t_write__host_work_between_trips_is_driver),
		cmocka_unit_test(host__missing_hooks__fall_back),
		cmocka_unit_test(target__r2t_wait__is_not_residence),
		cmocka_unit_test(points__from_views__equal_views_real_where_they_overflow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
