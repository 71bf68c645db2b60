// SPDX-License-Identifier: GPL-2.0
/*
 * A joined recording read back (lib/join/join.h, ntprof-join(1)): the
 * pairing that `ntprof join` wrote (join_pairs) and its clock estimate
 * (join_clock) take the place of the estimate and the matching, so that
 * temp.join_matches, temp.joined and ntp_join__scan_stages() give a
 * joined file exactly what they gave the recordings it was made of.  The
 * pairing is not redone: the target's times stay on the target's clock,
 * and the join that made the file is the only definition of a pair.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_base.h"

/* how join_clock.clock says it */
static const char *const clock_keys[] = {
	[NTP_JOIN_CLOCK_TWO] = "two clocks",
	[NTP_JOIN_CLOCK_ONE_FILE] = "one recording",
	[NTP_JOIN_CLOCK_ONE_BOOT] = "one boot",
};

const char *ntp_join__clock_key(enum ntp_join_clock c)
{
	return (unsigned int)c < sizeof(clock_keys) / sizeof(clock_keys[0]) ? clock_keys[c] : "";
}

static int clock_parse(const char *s)
{
	for (size_t i = 0; s && i < sizeof(clock_keys) / sizeof(clock_keys[0]); i++)
		if (!strcmp(s, clock_keys[i]))
			return (int)i;
	return -1;
}

static int damaged(const struct ntp_join *j, const char *why)
{
	ntp_error("%s: damaged joined recording: %s", j->files[0].path, why);
	return NTP_EXIT_CORRUPT;
}

/* the load index of side s's row id in file f; -1 when no row has it */
static int64_t index_of(const struct ntp_jside *s, int f, int64_t id)
{
	size_t lo = s->file_lo[f], hi = s->file_lo[f + 1];

	if (lo == hi)
		return -1;
	if (!s->ids) {
		if (id < s->id0[f] || id - s->id0[f] >= (int64_t)(hi - lo))
			return -1;
		return (int64_t)lo + (id - s->id0[f]);
	}
	/* the ids are in load order, which is id order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->file_lo[f + 1] && s->ids[lo] == id ? (int64_t)lo : -1;
}

/* temp.joined's order: by (h_start_ns, host_id), as join_match.c sorts */
static int cmp_stored(const void *pa, const void *pb, void *ctx)
{
	const struct ntp_jmatch *a = pa, *b = pb;
	const int64_t *start = ctx;	/* h_start by load index */
	int64_t x = start[a->hidx], y = start[b->hidx];

	if (x != y)
		return (x > y) - (x < y);
	return (a->hidx > b->hidx) - (a->hidx < b->hidx);
}

static int has_table(struct ntp_join *j, const char *name)
{
	char sql[160];
	sqlite3_stmt *st;
	int found = 0;

	snprintf(sql, sizeof(sql), "SELECT 1 FROM \"%s\".sqlite_schema WHERE type = 'table'"
		 " AND name = ?1", j->files[0].schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* join_clock's one row into pair 0 and its line; *rejected is its count */
static int read_clock(struct ntp_join *j, int64_t *rejected)
{
	char sql[320];
	sqlite3_stmt *st;
	struct ntp_join_pair *p = &j->pairs[0];
	struct ntp_join_fit *fit = &j->fits[0];
	int rc, clock, err = 0;

	snprintf(sql, sizeof(sql), "SELECT clock, estimated, t0_ns, offset_ns, drift, tolerance_ns,"
		 " candidates, support, rejected FROM \"%s\".join_clock", j->files[0].schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return damaged(j, sqlite3_errmsg(j->db));
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		err = rc == SQLITE_DONE ? damaged(j, "join_clock has no row") :
		      damaged(j, sqlite3_errmsg(j->db));
		goto out;
	}
	clock = clock_parse((const char *)sqlite3_column_text(st, 0));
	if (clock < 0) {
		err = damaged(j, "join_clock.clock is none of 'two clocks', 'one recording', 'one boot'");
		goto out;
	}
	p->host_file = p->target_file = 0;
	p->clock = (enum ntp_join_clock)clock;
	p->estimated = sqlite3_column_int(st, 1) != 0;
	p->t0_ns = sqlite3_column_int64(st, 2);
	p->offset_ns = sqlite3_column_double(st, 3);
	p->drift = sqlite3_column_double(st, 4);
	p->tol_ns = sqlite3_column_double(st, 5);
	p->candidates = sqlite3_column_int64(st, 6);
	p->support = sqlite3_column_int64(st, 7);
	*rejected = sqlite3_column_int64(st, 8);
	fit->t0 = p->t0_ns;
	fit->base = (int64_t)p->offset_ns;
	fit->a = p->offset_ns - (double)fit->base;
	fit->b = p->drift;
	fit->tol = p->tol_ns;
	fit->support = p->support;
	if (sqlite3_step(st) != SQLITE_DONE)
		err = damaged(j, "join_clock has more than one row");
out:
	sqlite3_finalize(st);
	return err;
}

/* join_pairs into j->matches, each row named by its load index */
static int read_pairs(struct ntp_join *j)
{
	char sql[192], why[160];
	sqlite3_stmt *st;
	uint8_t *used_h = NULL, *used_t = NULL;
	size_t cap = 0;
	int rc, err = 0;

	snprintf(sql, sizeof(sql), "SELECT host_id, target_id, offset_ns, h_occ, t_occ"
		 " FROM \"%s\".join_pairs", j->files[0].schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return damaged(j, sqlite3_errmsg(j->db));
	used_h = calloc(j->host.n + 1, 1);
	used_t = calloc(j->target.n + 1, 1);
	if (!used_h || !used_t)
		err = ntp_join__nomem();
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t hid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 1);
		int64_t h = index_of(&j->host, 0, hid), t = index_of(&j->target, 0, tid);
		struct ntp_jmatch *m;

		if (h < 0 || t < 0) {
			snprintf(why, sizeof(why), "join_pairs names %s command %lld, which is not in %s",
				 h < 0 ? "host" : "target", (long long)(h < 0 ? hid : tid),
				 h < 0 ? "host_io" : "target_io");
			err = damaged(j, why);
			break;
		}
		if (used_h[h] || used_t[t]) {
			snprintf(why, sizeof(why), "join_pairs pairs %s command %lld twice",
				 used_h[h] ? "host" : "target", (long long)(used_h[h] ? hid : tid));
			err = damaged(j, why);
			break;
		}
		used_h[h] = used_t[t] = 1;
		if (j->nmatches == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			void *q = realloc(j->matches, ncap * sizeof(*j->matches));

			if (!q) {
				err = ntp_join__nomem();
				break;
			}
			j->matches = q;
			cap = ncap;
		}
		m = &j->matches[j->nmatches++];
		memset(m, 0, sizeof(*m));
		m->hidx = (uint32_t)h;
		m->tidx = (uint32_t)t;
		m->offset_ns = sqlite3_column_int64(st, 2);
		m->h_occ = (uint32_t)sqlite3_column_int64(st, 3);
		m->t_occ = (uint32_t)sqlite3_column_int64(st, 4);
		m->pair = 0;
	}
	if (!err && rc != SQLITE_DONE)
		err = damaged(j, sqlite3_errmsg(j->db));
	sqlite3_finalize(st);
	free(used_h);
	free(used_t);
	return err;
}

int ntp_join__load_stored(struct ntp_join *j)
{
	int64_t rejected = 0, unmatched;
	int err;

	if (!has_table(j, "join_pairs") || !has_table(j, "join_clock"))
		return damaged(j, "role 'joined' without the join_pairs and join_clock tables");
	j->npairs = 1;
	err = read_clock(j, &rejected);
	if (!err)
		err = read_pairs(j);
	if (err)
		return err;
	/* no starts (opts.tag): nothing reads the order */
	if (j->nmatches > 1 && j->host.start)
		qsort_r(j->matches, j->nmatches, sizeof(*j->matches), cmp_stored, j->host.start);
	j->pairs[0].matched = (int64_t)j->nmatches;
	unmatched = (int64_t)j->host.n - (int64_t)j->nmatches - rejected;
	if (rejected < 0 || unmatched < 0)
		return damaged(j, "join_clock.rejected does not fit the host commands");
	j->counts.host_rows = (int64_t)j->host.n;
	j->counts.target_rows = (int64_t)j->target.n;
	j->counts.matched = (int64_t)j->nmatches;
	j->counts.rejected = rejected;
	j->counts.unmatched_host = unmatched;
	j->counts.unmatched_target = (int64_t)j->target.n - (int64_t)j->nmatches;
	return 0;
}
