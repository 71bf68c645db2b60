// SPDX-License-Identifier: GPL-2.0
/* A scratch file of fixed-size records (lib/core/spill.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/spill.h"
#include "lib/core/tmpdir.h"

/* a whole number of records, about a megabyte: few system calls */
#define SPILL_BUF (1u << 20)

static int fail(struct ntp_spill *s, int e)
{
	if (!s->err)
		s->err = e ? e : EIO;
	return -s->err;
}

int ntp_spill__open(struct ntp_spill *s, size_t recsz)
{
	char path[sizeof(s->dir) + 32];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->recsz = recsz;
	if (snprintf(s->dir, sizeof(s->dir), "%s", ntp_tmpdir()) >= (int)sizeof(s->dir))
		return fail(s, ENAMETOOLONG);
	if (!recsz || recsz > SPILL_BUF)
		return fail(s, EINVAL);
	snprintf(path, sizeof(path), "%s/ntprof-XXXXXX", s->dir);
	s->fd = mkostemp(path, O_CLOEXEC);
	if (s->fd < 0)
		return fail(s, errno);
	unlink(path);
	s->buf = malloc(SPILL_BUF / recsz * recsz);
	if (!s->buf)
		return fail(s, ENOMEM);
	return 0;
}

static int flush(struct ntp_spill *s)
{
	size_t off = 0;

	while (off < s->len) {
		ssize_t w = write(s->fd, s->buf + off, s->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail(s, w < 0 ? errno : ENOSPC);
		off += (size_t)w;
	}
	s->len = 0;
	return 0;
}

int ntp_spill__put(struct ntp_spill *s, const void *rec)
{
	if (s->err)
		return -s->err;
	if (s->reading)
		return fail(s, EINVAL);
	if (s->len + s->recsz > SPILL_BUF && flush(s))
		return -s->err;
	memcpy(s->buf + s->len, rec, s->recsz);
	s->len += s->recsz;
	s->nrec++;
	return 0;
}

int ntp_spill__rewind(struct ntp_spill *s)
{
	if (s->err || (!s->reading && flush(s)))
		return -s->err;
	s->reading = 1;
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return fail(s, errno);
	s->len = s->pos = 0;
	return 0;
}

const void *ntp_spill__next(struct ntp_spill *s)
{
	const void *rec;

	if (s->err)
		return NULL;
	if (s->pos + s->recsz > s->len) {
		size_t keep = s->len - s->pos, cap = SPILL_BUF / s->recsz * s->recsz;

		/* a record read in part stays at the front (a short read can split one) */
		memmove(s->buf, s->buf + s->pos, keep);
		s->len = keep;
		s->pos = 0;
		while (s->len < s->recsz) {
			ssize_t r = read(s->fd, s->buf + s->len, cap - s->len);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				fail(s, errno);
				return NULL;
			}
			if (!r) {
				if (s->len)	/* the file ends inside a record */
					fail(s, EIO);
				return NULL;
			}
			s->len += (size_t)r;
		}
	}
	rec = s->buf + s->pos;
	s->pos += s->recsz;
	return rec;
}

void ntp_spill__close(struct ntp_spill *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	s->fd = -1;
	s->buf = NULL;
	s->len = s->pos = 0;
}
