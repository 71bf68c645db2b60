// SPDX-License-Identifier: GPL-2.0
/*
 * The matched commands as SQL (lib/join/join.h): temp.join_matches, a virtual
 * table over the join's array of pairs (one row per matched command: the
 * two ids, the occurrence numbers, the offset), and temp.joined, the view
 * that reads each pair's two rows from the recordings by id.  Nothing is
 * copied: a report or a dump reads every row once, as it goes, and a
 * second query costs the same as the first.
 *
 * join_matches is in temp.joined's order, host file by host file and by
 * (h_start_ns, host_id) within one: its seq, which temp.joined has too.
 * It says so to SQLite, so that ORDER BY seq (dump's) costs no sort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_base.h"
#include "lib/ntp/db_guard.h"

enum {
	M_SEQ, M_PAIR, M_HOST_FILE, M_TARGET_FILE, M_HOST_ID, M_TARGET_ID, M_H_OCC, M_T_OCC,
	M_OFFSET,
};

struct mtab {
	sqlite3_vtab base;
	struct ntp_join *j;
};

struct mcur {
	sqlite3_vtab_cursor base;
	const struct ntp_join *j;
	size_t i;
	int pair;		/* -1: all */
};

static int m_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		     sqlite3_vtab **vt, char **err)
{
	struct mtab *t;
	int rc = sqlite3_declare_vtab(db,
		"CREATE TABLE x(seq INTEGER, pair INTEGER, host_file INTEGER, target_file INTEGER,"
		" host_id INTEGER, target_id INTEGER, h_occ INTEGER, t_occ INTEGER,"
		" offset_ns INTEGER)");

	if (rc != SQLITE_OK)
		return rc;
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->j = aux;
	*vt = &t->base;
	return SQLITE_OK;
}

static int m_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* the order it is in: seq (and host_file, which follows it), ascending */
static int ordered(const sqlite3_index_info *info)
{
	for (int i = 0; i < info->nOrderBy; i++)
		if ((info->aOrderBy[i].iColumn != M_SEQ && info->aOrderBy[i].iColumn != M_HOST_FILE) ||
		    info->aOrderBy[i].desc)
			return 0;
	return 1;
}

static int m_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	struct mtab *t = (struct mtab *)vt;
	double rows = (double)t->j->nmatches + 1;

	info->idxNum = 0;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (c->usable && c->iColumn == M_PAIR && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			info->aConstraintUsage[i].argvIndex = 1;
			info->aConstraintUsage[i].omit = 1;
			info->idxNum = 1;
			rows /= t->j->npairs > 0 ? t->j->npairs : 1;
			break;
		}
	}
	info->orderByConsumed = ordered(info);
	info->estimatedRows = (sqlite3_int64)rows;
	info->estimatedCost = rows;
	return SQLITE_OK;
}

static int m_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **cur)
{
	struct mcur *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->j = ((struct mtab *)vt)->j;
	*cur = &c->base;
	return SQLITE_OK;
}

static int m_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static void skip(struct mcur *c)
{
	while (c->pair >= 0 && c->i < c->j->nmatches && c->j->matches[c->i].pair != c->pair)
		c->i++;
}

static int m_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
		    sqlite3_value **argv)
{
	struct mcur *c = (struct mcur *)cur;

	c->i = 0;
	c->pair = -1;
	if (c->j->matches_gone) {
		/* a reader after the scan of the stages: a bug in ntprof, not in the file */
		sqlite3_free(cur->pVtab->zErrMsg);
		cur->pVtab->zErrMsg = sqlite3_mprintf("the join's matches were freed by the scan of "
						      "its stages");
		return SQLITE_MISUSE;
	}
	if (idx_num == 1 && argc == 1) {
		c->pair = sqlite3_value_int(argv[0]);
		if (c->pair < 0)	/* no pair has it */
			c->i = c->j->nmatches;
	}
	skip(c);
	return SQLITE_OK;
}

static int m_next(sqlite3_vtab_cursor *cur)
{
	struct mcur *c = (struct mcur *)cur;

	c->i++;
	skip(c);
	return SQLITE_OK;
}

static int m_eof(sqlite3_vtab_cursor *cur)
{
	struct mcur *c = (struct mcur *)cur;

	return c->i >= c->j->nmatches;
}

static int m_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct mcur *c = (struct mcur *)cur;
	const struct ntp_jmatch *m = &c->j->matches[c->i];
	const struct ntp_join_pair *p = &c->j->pairs[m->pair];
	int64_t v = 0;

	switch (col) {
	case M_SEQ: v = (int64_t)c->i + 1; break;
	case M_PAIR: v = m->pair; break;
	case M_HOST_FILE: v = p->host_file; break;
	case M_TARGET_FILE: v = p->target_file; break;
	case M_HOST_ID: v = ntp_jside__id(&c->j->host, m->hidx); break;
	case M_TARGET_ID: v = ntp_jside__id(&c->j->target, m->tidx); break;
	case M_H_OCC: v = m->h_occ; break;
	case M_T_OCC: v = m->t_occ; break;
	case M_OFFSET: v = m->offset_ns; break;
	}
	sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int m_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct mcur *)cur)->i + 1;
	return SQLITE_OK;
}

static const sqlite3_module matches_module = {
	.iVersion = 0,
	.xCreate = m_connect,
	.xConnect = m_connect,
	.xBestIndex = m_best_index,
	.xDisconnect = m_disconnect,
	.xDestroy = m_disconnect,
	.xOpen = m_open,
	.xClose = m_close,
	.xFilter = m_filter,
	.xNext = m_next,
	.xEof = m_eof,
	.xColumn = m_column,
	.xRowid = m_rowid,
};

int ntp_join__register_rows(struct ntp_join *j)
{
	if (sqlite3_create_module(j->db, "ntp_join_matches", &matches_module, j) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "registering the joined commands");
	if (sqlite3_exec(j->db, "CREATE VIRTUAL TABLE temp.join_matches USING ntp_join_matches",
			 NULL, NULL, NULL) != SQLITE_OK)
		return ntp_join__sql_fail(j->db, "registering the joined commands");
	return 0;
}

/* one pair's rows, both read by id from their recordings */
static const char branch_sql[] =
	"SELECT m.seq AS seq, m.host_file AS host_file, m.target_file AS target_file,"
	" m.host_id AS host_id, m.target_id AS target_id, m.h_occ AS h_occ, m.t_occ AS t_occ,"
	" h.opcode AS opcode, h.cid AS cid, h.slba AS slba, h.nlb AS nlb, h.qid AS qid,"
	" h.nsid AS nsid, h.cntlid AS cntlid, s.io_type AS io_type, h.bytes AS bytes,"
	" h.namespace AS namespace, h.path AS path, h.controller AS controller, t.device AS device,"
	" h.status AS status, t.status AS t_status,"
	" h.h_start_ns AS h_start_ns, h.h_queue_ns AS h_queue_ns, h.h_cmd_sent_ns AS h_cmd_sent_ns,"
	" h.h_r2t_ns AS h_r2t_ns, h.h_data_sent_ns AS h_data_sent_ns, h.h_recv_ns AS h_recv_ns,"
	" h.h_done_ns AS h_done_ns, t.t_recv_ns AS t_recv_ns, t.t_r2t_ns AS t_r2t_ns,"
	" t.t_submit_ns AS t_submit_ns, t.t_cmpl_ns AS t_cmpl_ns, t.t_sent_ns AS t_sent_ns,"
	" s.e2e_ns AS e2e_ns, s.block_ns AS block_ns, s.driver_ns AS driver_ns,"
	" s.network_star_ns - ts.residence_ns AS network_ns,"
	" ts.target_driver_ns AS target_driver_ns, ts.storage_ns AS storage_ns,"
	" s.sent_ns AS sent_ns, s.r2t_host_ns AS r2t_host_ns, s.recv_ns AS recv_ns,"
	" ts.submit_ns AS submit_ns, ts.cmpl_ns AS cmpl_ns, ts.r2t_wait_ns AS r2t_wait_ns,"
	" m.offset_ns AS offset_ns"
	" FROM temp.join_matches m"
	" JOIN \"%1$s\".host_io h ON h.id = m.host_id JOIN temp.\"%4$s\" s ON s.id = m.host_id"
	" JOIN \"%2$s\".target_io t ON t.id = m.target_id"
	" JOIN temp.\"%5$s\" ts ON ts.id = m.target_id"
	" WHERE m.pair = %3$d";

/*
 * temp.joined: the pairs' branches, one for each (host file, target file).
 * Without matches it is one branch that yields nothing, so that the view
 * has its columns whatever joined.
 */
int ntp_join__create_view(struct ntp_join *j)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int err, n = 0;

	if (!m)
		return ntp_join__nomem();
	fputs("DROP VIEW IF EXISTS temp.joined; CREATE TEMP VIEW joined AS ", m);
	for (int p = 0; p < j->npairs; p++) {
		if (!j->pairs[p].matched && (p < j->npairs - 1 || n))
			continue;
		const char *hs = j->files[j->pairs[p].host_file].schema;
		const char *ts = j->files[j->pairs[p].target_file].schema;
		char hv[64], tv[64];

		if (n++)
			fputs(" UNION ALL ", m);
		/* ntprof's stage views over each file, never the file's (lib/ntp/db_guard.h) */
		fprintf(m, branch_sql, hs, ts, p,
			ntp_db__view_name(hv, sizeof(hv), hs, NTP_DB_HOST_STAGES),
			ntp_db__view_name(tv, sizeof(tv), ts, NTP_DB_TARGET_STAGES));
	}
	if (fclose(m))
		return ntp_join__nomem();
	err = sqlite3_exec(j->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	      ntp_join__sql_fail(j->db, "building the joined view");
	free(sql);
	return err;
}
