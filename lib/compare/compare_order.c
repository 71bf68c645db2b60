// SPDX-License-Identifier: GPL-2.0
/*
 * compare --sort (compare_order.h): each group's change of each key's
 * statistic, new - baseline, then the groups ordered by it; the default
 * order (namespace, I/O type, size) breaks the ties.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/compare/compare_order.h"
#include "lib/model/model_order.h"

struct item {
	struct ntp_compare_group g;
	double change[NTP_SORT_MAX_KEYS];  /* NaN: not in both runs */
	size_t at;                         /* its place in the default order */
};

struct keys {
	const struct ntp_order_key *k;
	int n;
};

static int cmp(const void *pa, const void *pb, void *arg)
{
	const struct item *a = pa, *b = pb;
	const struct keys *ks = arg;

	for (int i = 0; i < ks->n; i++) {
		double x = a->change[i], y = b->change[i];
		int c;

		if (isnan(x) || isnan(y))
			c = isnan(x) - isnan(y);
		else
			c = ks->k[i].ascending ? (x > y) - (x < y) : (x < y) - (x > y);
		if (c)
			return c;
	}
	return (a->at > b->at) - (a->at < b->at);
}

int ntp_compare__order(struct ntp_compare *c, const struct ntp_report_sort *s)
{
	struct ntp_order_key keys[NTP_SORT_MAX_KEYS];
	struct ntp_compare_stage *most = c->most.g ? c->most.g->stage : NULL;
	struct item *items;
	int rc;

	if (!s || !s->nkeys)
		return 0;
	/* both runs have one view: check_comparable refused different kinds and transports */
	rc = ntp_report__order_keys(&c->run[NTP_CMP_BASE], s, keys);
	if (rc || c->ngroups < 2)
		return rc;
	items = malloc(c->ngroups * sizeof(*items));
	if (!items) {
		ntp_error("--sort: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct ntp_compare_group *g = &c->groups[i];

		items[i].g = *g;
		items[i].at = i;
		for (int k = 0; k < s->nkeys; k++)
			items[i].change[k] = g->g[NTP_CMP_BASE] && g->g[NTP_CMP_NEW] ?
				ntp_report__order_value(g->g[NTP_CMP_NEW], &keys[k]) -
				ntp_report__order_value(g->g[NTP_CMP_BASE], &keys[k]) : NAN;
	}
	qsort_r(items, c->ngroups, sizeof(*items), cmp, &(struct keys){ keys, s->nkeys });
	for (size_t i = 0; i < c->ngroups; i++) {
		c->groups[i] = items[i].g;
		/* the stage that moved most names its group by address: follow it */
		if (most && c->groups[i].stage == most)
			c->most.g = &c->groups[i];
	}
	free(items);
	return 0;
}
