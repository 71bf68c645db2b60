/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The groups of the interval being read: each group's samples of that
 * interval only, summarized and handed to the printers when the interval
 * ends, then emptied (their memory kept for the next).  What a series
 * holds is one interval's samples, whatever the length of the recording.
 */
#ifndef NTP_SERIES_ACC_H
#define NTP_SERIES_ACC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/model/model_groups.h"
#include "lib/series/series_model.h"

/* one command as a scan reads it, in the order of its start */
struct ntp_series_row {
	int file;                     /* the file of its start's clock, from 1 */
	const char *io_type, *ns;
	int64_t bytes;
	int64_t t_ns;                 /* its start: h_start, or a target alone's t_recv */
	int64_t e2e, stage[NTP_VIEW_MAX_STAGES];
};

struct ntp_series_acc {
	struct ntp_series *s;
	const struct ntp_series_out *outs;
	int nouts;
	int nstages;
	struct ntp_report_group *g;   /* the groups seen so far, in order of first sight */
	struct ntp_group_acc *smp;    /* their samples of the current interval */
	const struct ntp_report_group **order;   /* scratch: an interval's groups in report order */
	size_t n, cap, last;
	bool fixed;                   /* the groups were given (--top): a row of another is left out */
	uint64_t left_out;            /* rows left out so */
	bool open;                    /* an interval has rows */
	int file;                     /* the current interval's file */
	int64_t interval;             /* and its index */
};

void ntp_series_acc__init(struct ntp_series_acc *a, struct ntp_series *s,
			  const struct ntp_series_out *outs, int nouts, int nstages);
/*
 * Only the groups of keep[0..n) (their keys: host_file, io_type, bytes,
 * ns) are summarized from now on; the rows of others are counted in
 * a->left_out.  Before the first row.  0 or an NTP_EXIT_* code.
 */
int ntp_series_acc__keep(struct ntp_series_acc *a, const struct ntp_report_group *keep, size_t n);
/* one row; an interval it ends is printed first.  0 or an NTP_EXIT_* code */
int ntp_series_acc__add(struct ntp_series_acc *a, const struct ntp_series_row *row);
/* prints the last interval; 0 or an NTP_EXIT_* code */
int ntp_series_acc__flush(struct ntp_series_acc *a);
void ntp_series_acc__free(struct ntp_series_acc *a);

#endif
