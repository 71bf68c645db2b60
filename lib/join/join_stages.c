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
 * Each reader's host commands are read back from the scratch file and
 * given to fn with that reader's context, which tagged them (the readers'
 * shares at once), each matched one with its target command's stages,
 * which are in memory by load index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/checked.h"
#include "lib/core/jobs.h"
#include "lib/join/join_base.h"

#define NONE UINT32_MAX
/* commands ahead whose target's stages are fetched into the cache */
#define PREFETCH 16

/* slot[host load index] = the load index of its target command, NONE: not matched */
static uint32_t *slots(const struct ntp_join *j)
{
	size_t n = j->host_rows ? j->host_rows : 1;
	uint32_t *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memset(s, 0xff, n * sizeof(*s));
	for (size_t i = 0; i < j->nmatches; i++)
		s[j->matches[i].hidx] = j->matches[i].tidx;
	return s;
}

/* one reader's share of the scan */
struct part {
	struct ntp_join *j;
	int w;
	const uint32_t *slot;	/* by host load index: its target's */
	ntp_join_stages_fn fn;
	int err;
	char msg[256];
};

/* a host record's application's stages: the next of its range's run on apps (join_base.h) */
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

/* the host records of range rg, each matched one to fn */
static int scan_range(struct part *pt, const struct ntp_jrange *rg, int fi)
{
	struct ntp_join *j = pt->j;
	struct ntp_spill_run run, arun, *apps = NULL;

	if (!rg->n)
		return 0;
	if (ntp_spill_run__start(&run, &j->keep->host, rg->idx, 0))
		return ntp_join__keep_fail(j, &run, pt->msg, sizeof(pt->msg), &pt->err);
	if (j->keep->app[fi]) {
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
		uint32_t t = pt->slot[rg->idx + k];
		struct ntp_jhstages h;
		struct ntp_join_stages s = { .host_file = fi };
		struct ntp_host_stages hs;
		struct ntp_target_stages ts;
		uint8_t hwhy, twhy;

		/* the target's stages are read at random: those of a later command asked for now */
		if (k + PREFETCH < rg->n && pt->slot[rg->idx + k + PREFETCH] != NONE)
			__builtin_prefetch(&j->keep->target[pt->slot[rg->idx + k + PREFETCH]]);
		if (!rec) {
			ntp_join__keep_fail(j, &run, pt->msg, sizeof(pt->msg), &pt->err);
			break;
		}
		memcpy(&h, rec, sizeof(h));
		/* taken whether or not the command is matched: the run is in record order */
		if (app_of(pt, &h, apps, &s.app))
			break;
		if (t == NONE || h.tag == NTP_JOIN_UNTAGGED)
			continue;
		hwhy = ntp_join__kept_host(j, &h, (uint32_t)(rg->idx + k), &hs);
		twhy = ntp_join__kept_target(j, t, &ts);
		s.tag = h.tag;
		/* not a number before an overflow, as model_join.c classes the two */
		s.not_number = hwhy == NTP_JKEPT_NOT_NUMBER || twhy == NTP_JKEPT_NOT_NUMBER;
		s.overflow = hwhy == NTP_JKEPT_OVERFLOW || twhy == NTP_JKEPT_OVERFLOW;
		s.e2e = hs.e2e;
		s.stage[0] = hs.block;
		s.stage[1] = hs.driver;
		/* as temp.joined's network_ns */
		s.stage[2] = ntp_checked__sub(hs.network_star, ts.residence, &s.overflow);
		s.stage[3] = ts.target_driver;
		s.stage[4] = ts.storage;
		pt->err = pt->fn(j->opts.tag_ctx[pt->w], &s);
	}
	ntp_spill_run__end(&run);
	if (apps)
		ntp_spill_run__end(apps);
	return pt->err;
}

static void *host_part(void *arg)
{
	struct part *pt = arg;

	for (int fi = 0; fi < pt->j->nfiles && !pt->err; fi++)
		scan_range(pt, &pt->j->hrange[pt->w][fi], fi);
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
	int err;

	if (!j->keep) {
		ntp_error("join: internal error: the stages were not kept (opts.tag)");
		return NTP_EXIT_FAILURE;
	}
	slot = slots(j);
	if (!slot)
		return ntp_join__nomem();
	/*
	 * The slots say all the scan needs of the matches, and nothing reads
	 * them after it (lib/join/join.h): at ten million commands they are
	 * 300 MB of the scan's peak.
	 */
	ntp_join__free_matches(j);
	for (int w = 0; w < j->nreaders; w++)
		pt[w] = (struct part){ j, w, slot, fn, 0, "" };
	err = run_parts(pt, j->nreaders, host_part);
	free(slot);
	/* nothing reads the records again: the files, their pages and the target's array go now */
	ntp_join__keep_close(j);
	return err;
}
