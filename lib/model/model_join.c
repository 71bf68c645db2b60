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
	char apart[64];
};

struct ntp_report_join {
	struct ntp_report *r;
	struct ntp_read_where where;
	struct reader_ctx c[NTP_JOIN_READERS];
};

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
	int err = ntp_join__scan_stages(j, add_stages);

	for (int w = 0; w < NTP_JOIN_READERS; w++) {
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
	for (int w = 0; w < NTP_JOIN_READERS; w++)
		ntp_group_set__free(&rj->c[w].set);
	free(rj);
}
