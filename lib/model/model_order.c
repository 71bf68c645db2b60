// SPDX-License-Identifier: GPL-2.0
/*
 * report --sort: the groups ordered by the keys of model_sort.h, the
 * default order (namespace, I/O type, size) breaking the ties they leave.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model.h"
#include "lib/model/model_order.h"

struct item {
	struct ntp_report_group g;
	size_t at;                        /* its place in the default order */
};

struct keys {
	const struct ntp_order_key *k;
	int n;
};

static const struct ntp_summary *key_summary(const struct ntp_report_group *g,
					     const struct ntp_order_key *k)
{
	if (k->stage < 0)
		return &g->e2e;
	if (k->stage == NTP_ORDER_APP + NTP_APP_STAGES)
		return &g->app.e2e;
	if (k->stage >= NTP_ORDER_APP)
		return &g->app.stage[k->stage - NTP_ORDER_APP];
	return &g->stage[k->stage];
}

double ntp_report__order_value(const struct ntp_report_group *g, const struct ntp_order_key *k)
{
	const struct ntp_summary *s = key_summary(g, k);

	/* too few commands to show it (a p99.9 of 300): NaN, which sorts last */
	if (!ntp_stat__shown(s, k->stat))
		return NAN;
	switch (k->stat) {
	case NTP_STAT_MEAN:
		return s->mean;
	case NTP_STAT_STDDEV:
		return s->stddev;
	case NTP_STAT_SHARE:
		/* an application stage's share is of the app e2e, as the reports show it */
		return k->stage >= NTP_ORDER_APP ? ntp_report__app_share_pct(g, s->mean) :
		       ntp_report__share_pct(g, s->mean);
	default:
		return (double)ntp_stat__of(s, k->stat);
	}
}

static int cmp(const void *pa, const void *pb, void *arg)
{
	const struct item *a = pa, *b = pb;
	const struct keys *ks = arg;

	for (int i = 0; i < ks->n; i++) {
		const struct ntp_order_key *k = &ks->k[i];
		double x = ntp_report__order_value(&a->g, k);
		double y = ntp_report__order_value(&b->g, k);
		int c;

		/* a share without a mean, a statistic not shown (NaN): last either way */
		if (isnan(x) || isnan(y))
			c = isnan(x) - isnan(y);
		else
			c = k->ascending ? (x > y) - (x < y) : (x < y) - (x > y);
		if (c)
			return c;
	}
	return (a->at > b->at) - (a->at < b->at);
}

/* the stage named name in r's view (its text or JSON name), -1 for the total, -2 for none */
static int find_stage(const struct ntp_report *r, const char *name)
{
	const struct ntp_view *v = ntp_report__view(r);

	if (!*name || !strcmp(name, "e2e") || !strcmp(name, ntp_report__total_label(r)))
		return -1;
	for (int s = 0; s < v->nstages; s++)
		if (!strcmp(name, v->stages[s].text) || !strcmp(name, v->stages[s].json))
			return s;
	for (int s = 0; s < NTP_APP_STAGES && r->app; s++)
		if (!strcmp(name, ntp_report__app_stages[s].json))
			return NTP_ORDER_APP + s;
	if (r->app && (!strcmp(name, ntp_report__app_total.json) ||
		       !strcmp(name, ntp_report__app_total.text)))
		return NTP_ORDER_APP + NTP_APP_STAGES;
	return -2;
}

static void unknown_stage(const struct ntp_report *r, const struct ntp_report_sort *s,
			  const char *name)
{
	const struct ntp_view *v = ntp_report__view(r);
	char list[256];
	size_t at = 0;

	list[0] = '\0';
	for (int i = 0; i < v->nstages && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s, ", v->stages[i].json);
	for (int i = 0; i < NTP_APP_STAGES && r->app && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s, ",
				       ntp_report__app_stages[i].json);
	if (at < sizeof(list))
		snprintf(list + at, sizeof(list) - at, "e2e%s", r->app ? ", app_e2e" : "");
	ntp_error("invalid value '%s' for option '--sort': no stage '%s' in this report's %s "
		  "view (its stages: %s)", s->arg, name, v->name, list);
}

int ntp_report__order_keys(const struct ntp_report *r, const struct ntp_report_sort *s,
			   struct ntp_order_key *keys)
{
	for (int i = 0; s && i < s->nkeys; i++) {
		keys[i].stage = find_stage(r, s->keys[i].stage);
		if (keys[i].stage == -2) {
			unknown_stage(r, s, s->keys[i].stage);
			return NTP_EXIT_USAGE;
		}
		keys[i].stat = s->keys[i].stat;
		keys[i].ascending = s->keys[i].ascending;
	}
	return 0;
}

int ntp_report__order(struct ntp_report *r, const struct ntp_report_sort *s)
{
	struct ntp_order_key keys[NTP_SORT_MAX_KEYS];
	struct item *items;
	int rc;

	if (!s || !s->nkeys)
		return 0;
	rc = ntp_report__order_keys(r, s, keys);
	if (rc)
		return rc;
	if (r->ngroups < 2)
		return 0;
	items = malloc(r->ngroups * sizeof(*items));
	if (!items) {
		ntp_error("--sort: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < r->ngroups; i++)
		items[i] = (struct item){ r->groups[i], i };
	qsort_r(items, r->ngroups, sizeof(*items), cmp, &(struct keys){ keys, s->nkeys });
	for (size_t i = 0; i < r->ngroups; i++)
		r->groups[i] = items[i].g;
	free(items);
	return 0;
}
