// SPDX-License-Identifier: GPL-2.0
/*
 * The five stages of every matched command, without temp.joined
 * (lib/join/join.h): the stages the readers kept as they read each file
 * through its stage views (join_keep.c), put together by the matches' load
 * indexes.  Reading a row by id costs several times reading it in a scan,
 * and the summary report needs nothing but the stages.  The one thing done
 * here is what temp.joined does too: network = network* - residence
 * (lib/join/join_rows.c).
 *
 * First every matched target command's record is put at its match's place
 * (the readers' shares of the target's file at once), then each reader's
 * host commands are given to fn with that reader's context, which tagged
 * them (the readers' shares at once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/checked.h"
#include "lib/core/jobs.h"
#include "lib/join/join_priv.h"

#define NONE UINT32_MAX

/* slot[load index] = the match of that row, for the rows of one side */
static uint32_t *slots(const struct ntp_join *j, size_t n, int host)
{
	uint32_t *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	ntp_join__populate(s, (n ? n : 1) * sizeof(*s));	/* the target's: written out of order */
	memset(s, 0xff, (n ? n : 1) * sizeof(*s));
	for (size_t i = 0; i < j->nmatches; i++)
		s[host ? j->matches[i].hidx : j->matches[i].tidx] = (uint32_t)i;
	return s;
}

/* one reader's share of the scan */
struct part {
	struct ntp_join *j;
	int w;
	const uint32_t *slot;	/* of the side this phase reads */
	struct ntp_jtstages *tv;	/* by match: written by the target phase, read by the host's */
	ntp_join_stages_fn fn;
	int err;
	char msg[256];
};

/* a host record's application's stages: the next of its range's run on apps (join_priv.h) */
static int app_of(struct part *pt, const struct ntp_jhstages *h, struct ntp_spill_run *apps,
		  struct ntp_app_row *app)
{
	const void *rec;

	*app = (struct ntp_app_row){ NTP_APP_ROW_NONE };
	if (!h->app)
		return 0;
	if (!apps) {	/* only a file with the application's columns sets app */
		snprintf(pt->msg, sizeof(pt->msg), "join: internal error: an application's record"
			 " of a file without them");
		pt->err = NTP_EXIT_FAILURE;
		return pt->err;
	}
	rec = ntp_spill_run__get(apps);
	if (!rec)
		return ntp_join__keep_fail(pt->j, apps, pt->msg, sizeof(pt->msg), &pt->err);
	memcpy(app, rec, sizeof(*app));
	return 0;
}

/* the records of range rg of a side, each matched one to fn (NULL: the target's, into tv) */
static int scan_range(struct part *pt, const struct ntp_spill *sp, const struct ntp_jrange *rg,
		      int fi)
{
	struct ntp_join *j = pt->j;
	struct ntp_spill_run run, arun, *apps = NULL;

	if (!rg->n)
		return 0;
	if (ntp_spill_run__start(&run, sp, rg->idx, 0))
		return ntp_join__keep_fail(j, &run, pt->msg, sizeof(pt->msg), &pt->err);
	if (pt->fn && j->keep->app[fi]) {
		apps = &arun;
		if (ntp_spill_run__start(apps, &j->keep->apps, rg->idx, 0)) {
			ntp_join__keep_fail(j, apps, pt->msg, sizeof(pt->msg), &pt->err);
			ntp_spill_run__end(apps);
			ntp_spill_run__end(&run);
			return pt->err;
		}
	}
	for (size_t k = 0; k < rg->n && !pt->err; k++) {
		const void *rec = ntp_spill_run__get(&run);
		uint32_t m = pt->slot[rg->idx + k];

		if (!rec) {
			ntp_join__keep_fail(j, &run, pt->msg, sizeof(pt->msg), &pt->err);
			break;
		}
		if (!pt->fn) {
			if (m != NONE)
				memcpy(&pt->tv[m], rec, sizeof(pt->tv[m]));
		} else {
			struct ntp_jhstages h;
			const struct ntp_jtstages *t;
			struct ntp_join_stages s = { .host_file = fi };

			memcpy(&h, rec, sizeof(h));
			/* taken whether or not the command is matched: the run is in record order */
			if (app_of(pt, &h, apps, &s.app))
				break;
			if (m == NONE || h.tag == NTP_JOIN_UNTAGGED)
				continue;
			t = &pt->tv[m];
			s.tag = h.tag;
			/* not a number before an overflow, as report_join.c classes the two */
			s.not_number = h.why == NTP_JKEPT_NOT_NUMBER || t->why == NTP_JKEPT_NOT_NUMBER;
			s.overflow = h.why == NTP_JKEPT_OVERFLOW || t->why == NTP_JKEPT_OVERFLOW;
			s.e2e = h.e2e;
			s.stage[0] = h.block;
			s.stage[1] = h.driver;
			/* as temp.joined's network_ns */
			s.stage[2] = ntp_checked__sub(h.network_star, t->residence, &s.overflow);
			s.stage[3] = t->target_driver;
			s.stage[4] = t->storage;
			pt->err = pt->fn(j->opts.tag_ctx[pt->w], &s);
		}
	}
	ntp_spill_run__end(&run);
	if (apps)
		ntp_spill_run__end(apps);
	return pt->err;
}

static void *target_part(void *arg)
{
	struct part *pt = arg;

	for (int fi = 0; fi < pt->j->nfiles && !pt->err; fi++)
		scan_range(pt, &pt->j->keep->target, &pt->j->trange[pt->w][fi], fi);
	return NULL;
}

static void *host_part(void *arg)
{
	struct part *pt = arg;

	for (int fi = 0; fi < pt->j->nfiles && !pt->err; fi++)
		scan_range(pt, &pt->j->keep->host, &pt->j->hrange[pt->w][fi], fi);
	return NULL;
}

/* every reader's share at once; the first error in reader order, its line printed */
static int run_parts(struct part *pt, int n, void *(*fn)(void *))
{
	ntp_jobs__run(fn, pt, sizeof(*pt), n);
	for (int w = 0; w < n; w++) {
		if (pt[w].err) {
			if (pt[w].msg[0])
				ntp_error("%s", pt[w].msg);
			return pt[w].err;
		}
	}
	return 0;
}

int ntp_join__scan_stages(struct ntp_join *j, ntp_join_stages_fn fn)
{
	struct part pt[NTP_JOIN_READERS];
	uint32_t *slot;
	struct ntp_jtstages *tv;
	int err;

	if (!j->keep) {
		ntp_error("join: internal error: the stages were not kept (opts.tag)");
		return NTP_EXIT_FAILURE;
	}
	tv = ntp_jspares__take(&j->spares, (j->nmatches ? j->nmatches : 1) * sizeof(*tv));
	slot = slots(j, j->target_rows, 0);
	if (!tv || !slot) {
		free(tv);
		free(slot);
		return ntp_join__nomem();
	}
	/* written in the target's order, read in the host's */
	ntp_join__populate(tv, (j->nmatches ? j->nmatches : 1) * sizeof(*tv));
	for (int w = 0; w < j->nreaders; w++)
		pt[w] = (struct part){ j, w, slot, tv, NULL, 0, "" };
	err = run_parts(pt, j->nreaders, target_part);
	free(slot);
	slot = err ? NULL : slots(j, j->host_rows, 1);
	if (!err && !slot)
		err = ntp_join__nomem();
	/*
	 * The slots say all the scan needs of the matches, and nothing reads
	 * them after it (lib/join/join.h): at ten million commands they are
	 * 250 MB of the scan's peak.
	 */
	ntp_join__free_matches(j);
	for (int w = 0; w < j->nreaders && !err; w++)
		pt[w] = (struct part){ j, w, slot, tv, fn, 0, "" };
	if (!err)
		err = run_parts(pt, j->nreaders, host_part);
	free(slot);
	free(tv);
	/* the summaries that follow allocate their own */
	ntp_jspares__drop(&j->spares);
	/* nothing reads the records again: the files and their pages go now */
	ntp_join__keep_close(j);
	return err;
}
