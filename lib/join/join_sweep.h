/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The point most of a set of closed intervals share (lib/join/join_est.c's
 * grid asks it once a drift): the estimate's inner loop.
 */
#ifndef NTP_JOIN_SWEEP_H
#define NTP_JOIN_SWEEP_H

#include <stddef.h>
#include <stdint.h>

/* what a max_overlap of up to n intervals needs; the caller fills starts and ends */
struct ntp_jsweep {
	uint64_t *starts, *ends, *tmp;	/* n each */
	size_t *cs, *ce, *cursor;	/* a count a bucket, and one more */
	struct ntp_jbound *bound;	/* a bucket's */
};

/* 0 or -ENOMEM (then ntp_jsweep__free frees what was made) */
int ntp_jsweep__init(struct ntp_jsweep *sw, size_t n);
void ntp_jsweep__free(struct ntp_jsweep *sw);

/*
 * Interval i is [starts[i], ends[i]], as keys of the same order as the
 * values (ends[i] >= starts[i]).  Returns the most intervals that share a
 * point, with *l the first start in key order where that many do and *r the
 * first end at or after it (their region); 0 for n 0 (*l, *r untouched).
 * What a sort of the starts and of the ends and one sweep over both give,
 * without sorting all of them.  Leaves starts and ends in no order.
 */
int64_t ntp_jsweep__max_overlap(struct ntp_jsweep *sw, size_t n, uint64_t *l, uint64_t *r);

#endif
