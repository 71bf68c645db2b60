// SPDX-License-Identifier: GPL-2.0
/* A scratch file of fixed-size records at their indexes (lib/core/spill.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/spill.h"
#include "lib/core/tmpdir.h"

/* a run's buffer: a whole number of records, about 256 KiB (few system calls, a few runs at once) */
#define RUN_BUF (1u << 18)

int ntp_spill__open(struct ntp_spill *s, size_t recsz)
{
	char path[sizeof(s->dir) + 32];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->recsz = recsz;
	if (snprintf(s->dir, sizeof(s->dir), "%s", ntp_tmpdir()) >= (int)sizeof(s->dir))
		s->err = ENAMETOOLONG;
	else if (!recsz || recsz > RUN_BUF)
		s->err = EINVAL;
	if (s->err)
		return -s->err;
	snprintf(path, sizeof(path), "%s/ntprof-XXXXXX", s->dir);
	s->fd = mkostemp(path, O_CLOEXEC);
	if (s->fd < 0) {
		s->err = errno;
		return -s->err;
	}
	unlink(path);
	return 0;
}

void ntp_spill__close(struct ntp_spill *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static int fail(struct ntp_spill_run *r, int e)
{
	if (!r->err)
		r->err = e ? e : EIO;
	return -r->err;
}

int ntp_spill_run__start(struct ntp_spill_run *r, const struct ntp_spill *s, uint64_t first,
			 int writing)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->writing = writing;
	r->at = first;
	if (s->fd < 0)
		return fail(r, s->err ? s->err : EBADF);
	r->cap = RUN_BUF / s->recsz * s->recsz;
	r->buf = malloc(r->cap);
	return r->buf ? 0 : fail(r, ENOMEM);
}

/* the buffer's records written at their place */
static int flush(struct ntp_spill_run *r)
{
	off_t off = (off_t)(r->at * r->s->recsz);
	size_t done = 0;

	while (done < r->len) {
		ssize_t w = pwrite(r->s->fd, r->buf + done, r->len - done, off + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail(r, w < 0 ? errno : ENOSPC);
		done += (size_t)w;
	}
	r->at += r->len / r->s->recsz;
	r->len = 0;
	return 0;
}

int ntp_spill_run__put(struct ntp_spill_run *r, const void *rec)
{
	if (r->err)
		return -r->err;
	if (!r->writing)
		return fail(r, EINVAL);
	if (r->len + r->s->recsz > r->cap && flush(r))
		return -r->err;
	memcpy(r->buf + r->len, rec, r->s->recsz);
	r->len += r->s->recsz;
	return 0;
}

/* the next buffer's worth from the file: at least one whole record, or an error */
static int fill(struct ntp_spill_run *r)
{
	off_t off;

	r->at += r->len / r->s->recsz;
	off = (off_t)(r->at * r->s->recsz);
	r->len = r->pos = 0;
	/* a short read may end inside a record: read on until it is whole */
	while (r->len < r->s->recsz) {
		ssize_t n = pread(r->s->fd, r->buf + r->len, r->cap - r->len, off + (off_t)r->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(r, n < 0 ? errno : EIO);	/* EIO: past what was written */
		r->len += (size_t)n;
	}
	r->len -= r->len % r->s->recsz;	/* a partial last record is read again next time */
	return 0;
}

const void *ntp_spill_run__get(struct ntp_spill_run *r)
{
	const void *rec;

	if (r->err)
		return NULL;
	if (r->writing) {
		fail(r, EINVAL);
		return NULL;
	}
	if (r->pos + r->s->recsz > r->len && fill(r))
		return NULL;
	rec = r->buf + r->pos;
	r->pos += r->s->recsz;
	return rec;
}

int ntp_spill_run__end(struct ntp_spill_run *r)
{
	if (r->writing && !r->err)
		flush(r);
	free(r->buf);
	r->buf = NULL;
	r->len = r->pos = 0;
	return -r->err;
}
