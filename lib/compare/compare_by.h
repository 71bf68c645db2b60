/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare --by: each run's rows per queue, process or CPU (lib/diag/diag_by.h,
 * as report --by makes them) paired.  A queue is paired by its host file,
 * controller and qid; a CPU (submitting or io_cpu) by its host file and
 * number; a process by its host file, its comm and its rank
 * among that file's processes of that comm in the order of their pids
 * (the second fio of the baseline with the second fio of the new run:
 * pids differ from run to run); the rows of commands whose process was not
 * recorded with each other.  A row found in one run alone is shown, not
 * dropped.
 */
#ifndef NTP_COMPARE_BY_H
#define NTP_COMPARE_BY_H

#include <stddef.h>
#include <stdio.h>

#include "lib/diag/diag_by.h"

/* one queue or process of either run: its row in each (NULL: not in that run) */
struct ntp_compare_by_pair {
	char name[136];                           /* the runs' names, "A / B" where they differ */
	const struct ntp_diag_by_row *row[2];     /* the baseline's, the new run's */
	long index[2];                            /* their index in each run's rows; -1 none */
};

struct ntp_compare_by {
	enum ntp_diag_by_key key;                 /* NTP_DIAG_BY_NONE: no --by */
	const struct ntp_diag_by *run[2];         /* each run's rows (its diagnosis's "by") */
	struct ntp_compare_by_pair *pairs;        /* the baseline's order, then the new run's own */
	size_t n;
};

/* cb from base's and new_run's rows (both of one key): 0 or -ENOMEM */
int ntp_compare_by__make(struct ntp_compare_by *cb, const struct ntp_diag_by *base,
			 const struct ntp_diag_by *new_run);
void ntp_compare_by__free(struct ntp_compare_by *cb);

/* the text's table, within 100 columns but for long names; nothing without --by */
void ntp_compare_by__text(FILE *f, const struct ntp_compare_by *cb);
struct ntp_json;
/* the value of the comparison's "by" member: null without --by */
void ntp_compare_by__json(struct ntp_json *j, const struct ntp_compare_by *cb);
/* the page's table; nothing without --by */
void ntp_compare_by__html(FILE *f, const struct ntp_compare_by *cb);

#endif
