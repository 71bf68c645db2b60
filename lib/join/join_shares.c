// SPDX-License-Identifier: GPL-2.0
/*
 * What the shares of one pair's keys find at once (lib/join/join_base.h,
 * ntp_join__chunks): each share writes its elements into a region of one
 * array, sized for about one a host row, and past that into a buffer of
 * its own; put end to end in share order, they are what one merge over all
 * the keys finds, in the same order.  No copy of the whole unless a share
 * outgrew its region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/jobs.h"
#include "lib/join/join_base.h"

/* a region's room beyond one element a host row */
#define SLACK 64

int ntp_jshares__open(struct ntp_jshares *sh, void **array, size_t *n, size_t elsz,
		      const struct ntp_jchunk *c, int nshares)
{
	size_t room = *n;
	void *a;

	memset(sh, 0, sizeof(*sh));
	sh->array = array;
	sh->n = n;
	sh->elsz = elsz;
	sh->nshares = nshares;
	for (int k = 0; k < nshares; k++)
		room += c[k].h1 - c[k].h0 + SLACK;
	a = realloc(*array, (room ? room : 1) * elsz);
	if (!a)
		return -ENOMEM;
	*array = a;
	for (size_t k = 0, at = 0; k < (size_t)nshares; k++) {
		struct ntp_jshare *s = &sh->share[k];

		s->at = *n + at;
		s->cap = c[k].h1 - c[k].h0 + SLACK;
		at += s->cap;
	}
	return 0;
}

void *ntp_jshares__put(struct ntp_jshares *sh, int k)
{
	struct ntp_jshare *s = &sh->share[k];

	if (s->n < s->cap)
		return (unsigned char *)*sh->array + (s->at + s->n++) * sh->elsz;
	if (s->on == s->ocap) {
		size_t ncap = s->ocap ? 2 * s->ocap : 4096;
		void *o = realloc(s->over, ncap * sh->elsz);

		if (!o)
			return NULL;
		s->over = o;
		s->ocap = ncap;
	}
	return (unsigned char *)s->over + s->on++ * sh->elsz;
}

int ntp_jshares__close(struct ntp_jshares *sh)
{
	unsigned char *a = *sh->array, *b;
	size_t total = *sh->n, to = *sh->n, over = 0;
	int err = 0;

	for (int k = 0; k < sh->nshares; k++) {
		total += sh->share[k].n + sh->share[k].on;
		over += sh->share[k].on;
	}
	if (!over) {
		/* every region down to the last one's end: each moves down, in share order */
		for (int k = 0; k < sh->nshares; k++) {
			const struct ntp_jshare *s = &sh->share[k];

			memmove(a + to * sh->elsz, a + s->at * sh->elsz, s->n * sh->elsz);
			sh->share[k].first = to;
			to += s->n;
		}
	} else if (!(b = malloc((total ? total : 1) * sh->elsz))) {
		err = -ENOMEM;
	} else {
		memcpy(b, a, *sh->n * sh->elsz);
		for (int k = 0; k < sh->nshares; k++) {
			const struct ntp_jshare *s = &sh->share[k];

			sh->share[k].first = to;
			memcpy(b + to * sh->elsz, a + s->at * sh->elsz, s->n * sh->elsz);
			to += s->n;
			memcpy(b + to * sh->elsz, s->over, s->on * sh->elsz);
			to += s->on;
		}
		free(a);
		*sh->array = b;
	}
	for (int k = 0; k < sh->nshares; k++) {
		free(sh->share[k].over);
		sh->share[k].over = NULL;
		sh->share[k].count = sh->share[k].n + sh->share[k].on;
	}
	if (!err)
		*sh->n = total;
	return err;
}
