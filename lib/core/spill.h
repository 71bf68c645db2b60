/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch file of fixed-size records, each at the place its index says.
 * It holds what would otherwise stay in memory for a while (the join's
 * stages of every host command, from the reading of the files to the
 * matching: lib/join/join_keep.c), in the page cache the kernel may write out, as
 * sort(1) does with its runs.  Several threads write it at once, each a run
 * of consecutive records through a buffer of its own, and read it back the
 * same way.  The file is in $TMPDIR (/tmp when unset) and unlinked at once,
 * so nothing is left behind whatever happens to the process.
 */
#ifndef NTP_SPILL_H
#define NTP_SPILL_H

#include <stddef.h>
#include <stdint.h>

struct ntp_spill {
	int fd;
	size_t recsz;
	int err;		/* why it could not be made: an errno */
	char dir[4096];		/* where the file is, for the error line */
};

/* a new empty scratch file for records of recsz bytes; 0 or -errno (s->err, s->dir set) */
int ntp_spill__open(struct ntp_spill *s, size_t recsz);
/* the file gone (nothing to do for one never opened); s may be opened again */
void ntp_spill__close(struct ntp_spill *s);

/*
 * Records first, first + 1, ... of s, written or read in that order by one
 * thread.  Writes are whole once ntp_spill_run__end() returned 0.  A read
 * past what was written is an error (EIO), as is any error of the file.
 */
struct ntp_spill_run {
	const struct ntp_spill *s;
	int writing;
	uint64_t at;		/* the index of buf's first record */
	unsigned char *buf;
	size_t cap, len, pos;	/* bytes: room, held (read: read), next read's place */
	int err;		/* the first errno; nothing is written or read after it */
};

int ntp_spill_run__start(struct ntp_spill_run *r, const struct ntp_spill *s, uint64_t first,
			 int writing);
/* the next record written; 0 or -errno */
int ntp_spill_run__put(struct ntp_spill_run *r, const void *rec);
/* the next record (valid until the next call), NULL on error (r->err) */
const void *ntp_spill_run__get(struct ntp_spill_run *r);
/* a writer's last records written; its buffer freed.  0 or -errno (r->err) */
int ntp_spill_run__end(struct ntp_spill_run *r);

#endif
