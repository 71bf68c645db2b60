/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The groups of a report, filled row by row and then summarized and ordered.
 */
#ifndef NTP_REPORT_GROUPS_H
#define NTP_REPORT_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/stats.h"
#include "lib/ntp/db_app.h"
#include "lib/model/model_app.h"
#include "lib/model/model.h"

/*
 * The groups a scan fills, row by row, with the samples of
 * each until they are summarized: one set per reader (thread).  nstages is
 * set before the first row.  The rows of a group are those of one host file,
 * I/O type, size and namespace.
 */
struct ntp_group_acc {
	struct ntp_samples e2e, stage[NTP_VIEW_MAX_STAGES];
	struct ntp_app_acc app;       /* the application's stages (model_app.c) */
};

struct ntp_group_set {
	struct ntp_report_group *g;
	struct ntp_group_acc *acc;
	size_t n, cap, last;
	int nstages;
	/* stages (bits) that may be below 0 in a true command: the two sides' differences */
	unsigned int may_be_negative;
	bool histograms;          /* finish gives each summary its log2 buckets */
	/* the groups by key: open addressing, index + 1 (0: empty), nslots a power of two */
	size_t *slots, nslots;
};

/* the index of the row's group, new if need be; -1 without memory */
ssize_t ntp_group_set__find(struct ntp_group_set *set, int file, const char *io_type,
			    int64_t bytes, const char *ns);
/*
 * One command into group k: its end-to-end latency and nstages stage
 * values; -ENOMEM.  An impossible command (a value below 0 but in the
 * stages of may_be_negative, sums that would overflow) is counted in the
 * group's impossible[] instead.
 */
int ntp_group_set__add(struct ntp_group_set *set, size_t k, int64_t e2e, const int64_t *stage);
/*
 * The same with the command's application stages (app: NULL or state
 * NTP_APP_ROW_NONE when it has none), counted in the group's app only when the
 * command itself is counted.
 */
int ntp_group_set__add_app(struct ntp_group_set *set, size_t k, int64_t e2e,
			   const int64_t *stage, const struct ntp_app_row *app);
/* one impossible command into group k, left out of its statistics */
void ntp_group_set__impossible(struct ntp_group_set *set, size_t k, enum ntp_impossible why);
/* moves src's samples into dst's groups (into those with room for both: ntp_samples__append); -ENOMEM */
int ntp_group_set__merge(struct ntp_group_set *dst, struct ntp_group_set *src);
/* summarizes and orders the groups (those given no command left out), which *groups takes; set is left empty */
int ntp_group_set__finish(struct ntp_group_set *set, struct ntp_report_group **groups,
			  size_t *ngroups);
void ntp_group_set__free(struct ntp_group_set *set);
/* the report's order of groups: namespace, reads before writes before others, size */
int ntp_report__group_cmp(const struct ntp_report_group *x, const struct ntp_report_group *y);

#endif
