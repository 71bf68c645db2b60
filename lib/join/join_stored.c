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
#include <stdbool.h>
#include <stdio.h>
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

struct stored_order {
	const int64_t *start;	/* h_start by load index */
	const int *hgroup;	/* the host recording of each pair */
};

/*
 * temp.joined's order: host recording by host recording, by (h_start_ns,
 * host_id) within one, as join_match.c sorts
 */
static int cmp_stored(const void *pa, const void *pb, void *ctx)
{
	const struct ntp_jmatch *a = pa, *b = pb;
	const struct stored_order *o = ctx;
	int64_t x = o->start[a->hidx], y = o->start[b->hidx];
	int ga = o->hgroup[a->pair], gb = o->hgroup[b->pair];

	if (ga != gb)
		return (ga > gb) - (ga < gb);
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

/* whether the joined file's table has column col (a file of an older ntprof may not) */
static bool has_column(struct ntp_join *j, const char *table, const char *col)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s', '%s')"
		 " WHERE name = '%s'", table, j->files[0].schema, col);
	return ntp_join__query_int(j->db, sql, 0) > 0;
}

/* room for n pairs and their lines (the join made room for one a file) */
static int make_pairs(struct ntp_join *j, int n)
{
	struct ntp_join_pair *p = calloc(n, sizeof(*p));
	struct ntp_join_fit *f = calloc(n, sizeof(*f));

	if (!p || !f) {
		free(p);
		free(f);
		return ntp_join__nomem();
	}
	free(j->pairs);
	free(j->fits);
	j->pairs = p;
	j->fits = f;
	return 0;
}

/* one row of join_clock into pair p and its line */
static int read_clock_row(struct ntp_join *j, sqlite3_stmt *st, int pair, int64_t *rejected)
{
	struct ntp_join_pair *p = &j->pairs[pair];
	struct ntp_join_fit *fit = &j->fits[pair];
	int clock = clock_parse((const char *)sqlite3_column_text(st, 0));

	if (clock < 0)
		return damaged(j, "join_clock.clock is none of 'two clocks', 'one recording', 'one boot'");
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
	return 0;
}

/*
 * Which host recording pair's row names (its host_file), as a number:
 * pairs of one host recording get one, in the order they first come, as
 * the join that wrote them numbered its files.
 */
static int host_group(struct ntp_join *j, sqlite3_stmt *st, int pair, char **hpath, int *hgroup)
{
	const unsigned char *t = sqlite3_column_text(st, 10);
	int next = 0;

	hpath[pair] = strdup(t ? (const char *)t : "");
	if (!hpath[pair])
		return ntp_join__nomem();
	hgroup[pair] = -1;
	for (int k = 0; k < NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES; k++) {
		if (k == pair || !hpath[k])
			continue;
		if (!strcmp(hpath[k], hpath[pair]) && hgroup[k] >= 0)
			hgroup[pair] = hgroup[k];
		if (hgroup[k] >= next)
			next = hgroup[k] + 1;
	}
	if (hgroup[pair] < 0)
		hgroup[pair] = next;
	return 0;
}

/*
 * join_clock's rows into the pairs, row pair k into pair k (a file of one
 * combination, whose pair is NULL, has one row: pair 0); *rejected is the
 * join's count, which every row holds.
 */
static int read_clock(struct ntp_join *j, int64_t *rejected, int *hgroup)
{
	const int max = NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES;
	char sql[320], why[128];
	sqlite3_stmt *st;
	bool numbered = has_column(j, "join_clock", "pair");
	char *hpath[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { NULL };
	int64_t n, rej;
	int rc, err = 0;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".join_clock", j->files[0].schema);
	n = ntp_join__query_int(j->db, sql, -1);
	if (n < 1)
		return damaged(j, n ? sqlite3_errmsg(j->db) : "join_clock has no row");
	if (n > max || (!numbered && n > 1))
		return damaged(j, "join_clock has more than one row for its combinations");
	err = make_pairs(j, (int)n);
	if (err)
		return err;
	snprintf(sql, sizeof(sql), "SELECT clock, estimated, t0_ns, offset_ns, drift, tolerance_ns,"
		 " candidates, support, rejected, %s, host_file FROM \"%s\".join_clock",
		 numbered ? "coalesce(pair, 0)" : "0", j->files[0].schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return damaged(j, sqlite3_errmsg(j->db));
	for (int k = 0; k < n; k++)
		j->pairs[k].host_file = -1;	/* not read yet */
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pair = sqlite3_column_int64(st, 9);

		if (pair < 0 || pair >= n || j->pairs[pair].host_file >= 0) {
			snprintf(why, sizeof(why), "join_clock has more than one row of pair %lld, or"
				 " one out of 0 to %lld", (long long)pair, (long long)n - 1);
			err = damaged(j, why);
			break;
		}
		err = read_clock_row(j, st, (int)pair, &rej);
		if (!err)
			err = host_group(j, st, (int)pair, hpath, hgroup);
		if (!err && !pair)
			*rejected = rej;
	}
	if (!err && rc != SQLITE_DONE)
		err = damaged(j, sqlite3_errmsg(j->db));
	sqlite3_finalize(st);
	if (!err)
		j->npairs = (int)n;
	for (int k = 0; k < n; k++)
		free(hpath[k]);
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

	snprintf(sql, sizeof(sql), "SELECT host_id, target_id, offset_ns, h_occ, t_occ, %s"
		 " FROM \"%s\".join_pairs", has_column(j, "join_pairs", "pair") ?
		 "coalesce(pair, 0)" : "0", j->files[0].schema);
	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return damaged(j, sqlite3_errmsg(j->db));
	used_h = calloc(j->host.n + 1, 1);
	used_t = calloc(j->target.n + 1, 1);
	if (!used_h || !used_t)
		err = ntp_join__nomem();
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t hid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 1);
		int64_t h = index_of(&j->host, 0, hid), t = index_of(&j->target, 0, tid);
		int64_t pair = sqlite3_column_int64(st, 5);
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
		if (pair < 0 || pair >= j->npairs) {
			snprintf(why, sizeof(why), "join_pairs names pair %lld, which join_clock has not",
				 (long long)pair);
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
		m->pair = (int)pair;
		j->pairs[pair].matched++;
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
	int hgroup[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { 0 };
	int64_t rejected = 0, unmatched;
	int err;

	if (!has_table(j, "join_pairs") || !has_table(j, "join_clock"))
		return damaged(j, "role 'joined' without the join_pairs and join_clock tables");
	err = read_clock(j, &rejected, hgroup);
	if (!err)
		err = read_pairs(j);
	if (err)
		return err;
	/* no starts (opts.tag): nothing reads the order */
	if (j->nmatches > 1 && j->host.start)
		qsort_r(j->matches, j->nmatches, sizeof(*j->matches), cmp_stored,
			&(struct stored_order){ j->host.start, hgroup });
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
