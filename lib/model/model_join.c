// SPDX-License-Identifier: GPL-2.0
/*
 * report: a joined report's summary (model_join.h).  The join reads each
 * file once, through its stage views, and keeps every command's stages until
 * the matching (lib/join/join_keep.c); what it needs from the report is a
 * tag a host command: its group, or none when the read filters leave it
 * out.  So the filters are tested and the groups found as the join reads,
 * by each of its readers in a set of its own, and after the matching the
 * join gives every matched command's stages back, with its tag, to the
 * reader that read it.  A group found for commands none of which matched
 * stays empty, and the summary leaves it out (ntp_group_set__finish).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_groups.h"
#include "lib/model/model_join.h"
#include "lib/model/model_view.h"

/*
 * What one reader of the join fills, at every command: apart from the next
 * reader's by a cache line, which the two threads would otherwise pass
 * back and forth.
 */
struct reader_ctx {
	struct ntp_group_set set;
	uint64_t total;			/* matched commands its filters kept */
	const struct ntp_read_where *where;	/* the read filters; NULL: none */
	/* by group of set: the commands tagged, matched or not (reserve()) */
	size_t *tagged, ntagged;
	char apart[64];
};

struct ntp_report_join {
	struct ntp_report *r;
	struct ntp_read_where where;
	struct reader_ctx c[NTP_JOIN_READERS];
};

/* n more commands tagged for group k of c's set; -ENOMEM */
static int count_tagged(struct reader_ctx *c, size_t k, size_t n)
{
	if (k >= c->ntagged) {
		size_t cap = c->ntagged ? 2 * c->ntagged : 16;
		size_t *t;

		while (cap <= k)
			cap *= 2;
		t = realloc(c->tagged, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + c->ntagged, 0, (cap - c->ntagged) * sizeof(*t));
		c->tagged = t;
		c->ntagged = cap;
	}
	c->tagged[k] += n;
	return 0;
}

/* the group of a host command as the join reads it, or none when the filters leave it out */
static int tag_row(void *arg, const struct ntp_join_host_row *row, uint32_t *tag)
{
	struct reader_ctx *c = arg;
	ssize_t k;

	*tag = NTP_JOIN_UNTAGGED;
	if (c->where) {
		struct ntp_read_row rr = { row->host_file, row->io_type, row->ns, row->path,
					   row->bytes, row->qid, row->h_start_ns };

		if (!ntp_read_filter__match(c->where, &rr))
			return 0;
	}
	k = ntp_group_set__find(&c->set, row->host_file + 1, row->io_type ? row->io_type : "",
				row->bytes, row->ns ? row->ns : "");
	if (k < 0 || (uint64_t)k >= NTP_JOIN_UNTAGGED)
		return -ENOMEM;
	*tag = (uint32_t)k;
	return count_tagged(c, (size_t)k, 1);
}

/*
 * The samples' room, made before the scan fills it: each reader's groups
 * get room for the commands it tagged (at most that many match), and
 * reader 0's for every reader's, since the others' are merged into them
 * (ntp_group_set__merge finds its groups in this order too).  Grown as
 * they fill, doubling, the arrays would take their pages a small page at a
 * time, and the merge would grow reader 0's again: at a million commands a
 * side that is half of the joined scan's time.
 */
static int reserve(struct ntp_report_join *rj)
{
	struct reader_ctx *c0 = &rj->c[0];

	for (int w = 1; w < NTP_JOIN_READERS; w++) {
		struct reader_ctx *c = &rj->c[w];

		for (size_t i = 0; i < c->set.n && i < c->ntagged; i++) {
			const struct ntp_report_group *g = &c->set.g[i];
			ssize_t k = ntp_group_set__find(&c0->set, g->host_file, g->io_type, g->bytes,
							g->ns);

			if (k < 0 || count_tagged(c0, (size_t)k, c->tagged[i]) ||
			    ntp_group_set__reserve(&c->set, i, c->tagged[i]))
				return -ENOMEM;
		}
	}
	for (size_t k = 0; k < c0->set.n && k < c0->ntagged; k++)
		if (ntp_group_set__reserve(&c0->set, k, c0->tagged[k]))
			return -ENOMEM;
	return 0;
}

/* one matched command's five stages into the group its tag names */
static int add_stages(void *arg, const struct ntp_join_stages *s)
{
	struct reader_ctx *c = arg;

	if (s->not_number || s->overflow)
		ntp_group_set__impossible(&c->set, s->tag, s->not_number ?
					  NTP_IMPOSSIBLE_NOT_NUMBER : NTP_IMPOSSIBLE_OVERFLOW);
	else if (ntp_group_set__add_app(&c->set, s->tag, s->e2e, s->stage, &s->app))
		return -ENOMEM;
	c->total++;
	return 0;
}

int ntp_report_join__new(struct ntp_report_join **rjp, struct ntp_report *r,
			 struct ntp_join_opts *jo)
{
	struct ntp_report_join *rj = calloc(1, sizeof(*rj));

	*rjp = rj;
	if (!rj) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	rj->r = r;
	jo->tag = tag_row;
	jo->tag_filters = r->filter != NULL;
	for (int w = 0; w < NTP_JOIN_READERS; w++) {
		ntp_report__set_init(&rj->c[w].set, r);
		jo->tag_ctx[w] = &rj->c[w];
	}
	return 0;
}

int ntp_report_join__prepare(struct ntp_report_join *rj, struct ntp_join *j, const char *path)
{
	int err = ntp_report__filter_where(rj->r, ntp_join__db(j), path, &rj->where);
	for (int w = 0; w < NTP_JOIN_READERS && !err; w++)
		rj->c[w].where = rj->r->filter ? &rj->where : NULL;
	return err;
}

int ntp_report_join__scan(struct ntp_report_join *rj, struct ntp_join *j, const char *path)
{
	struct ntp_report *r = rj->r;
	int err = reserve(rj);

	if (!err)
		err = ntp_join__scan_stages(j, add_stages);

	for (int w = 0; w < NTP_JOIN_READERS; w++) {
		free(rj->c[w].tagged);
		rj->c[w].tagged = NULL;
		rj->c[w].ntagged = 0;
		r->total += rj->c[w].total;
		if (!err && w && ntp_group_set__merge(&rj->c[0].set, &rj->c[w].set))
			err = -ENOMEM;
		if (w)
			ntp_group_set__free(&rj->c[w].set);
	}
	if (!err && ntp_group_set__finish(&rj->c[0].set, &r->groups, &r->ngroups))
		err = -ENOMEM;
	if (err == -ENOMEM) {
		ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
		err = NTP_EXIT_FAILURE;
	}
	return err;
}

void ntp_report_join__free(struct ntp_report_join *rj)
{
	if (!rj)
		return;
	for (int w = 0; w < NTP_JOIN_READERS; w++) {
		ntp_group_set__free(&rj->c[w].set);
		free(rj->c[w].tagged);
	}
	free(rj);
}
