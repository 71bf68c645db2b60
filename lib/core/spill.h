/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch file of fixed-size records: written once in order, then read
 * back in the same order.  It holds what would otherwise stay in memory for
 * a while (the join's target stages, read ahead: lib/join/join_ahead.c), in
 * the page cache the kernel may write out, as sort(1) does with its runs.
 * The file is in $TMPDIR (/tmp when unset) and unlinked at once, so
 * nothing is left behind whatever happens to the process.
 */
#ifndef NTP_SPILL_H
#define NTP_SPILL_H

#include <stddef.h>
#include <stdint.h>

struct ntp_spill {
	int fd;
	size_t recsz;
	unsigned char *buf;
	size_t len, pos;	/* bytes in buf; the next read's place in buf */
	uint64_t nrec;		/* records written */
	int reading;		/* rewound: buf holds what was read, not what is to be written */
	int err;		/* the first errno; nothing is written or read after it */
	char dir[4096];		/* where the file is, for the error line */
};

/* a new empty scratch file for records of recsz bytes; 0 or -errno (s->err, s->dir set) */
int ntp_spill__open(struct ntp_spill *s, size_t recsz);
/* one record appended, before the first rewind; 0 or -errno */
int ntp_spill__put(struct ntp_spill *s, const void *rec);
/* done writing (or reading): reading starts at the first record; 0 or -errno */
int ntp_spill__rewind(struct ntp_spill *s);
/* the next record (valid until the next call), NULL at the end or on error (s->err) */
const void *ntp_spill__next(struct ntp_spill *s);
/* the file gone; s may be opened again */
void ntp_spill__close(struct ntp_spill *s);

#endif
