// SPDX-License-Identifier: GPL-2.0
/*
 * The join's big arrays handed from one phase to the next (join_base.h):
 * the rows read, the sort's buffer, the candidates, the slots and matches
 * each live for a phase or two, and most of the next phase's arrays are
 * about the size of one just freed.  Given back to the C library, a block
 * that big goes back to the kernel (the join has glibc map every block of
 * 1 MiB and more on its own: join.c), and the next one is new memory,
 * every page of it zeroed again by the kernel, and in a virtual machine
 * whose host took the freed memory back (free page reporting) made again
 * by the host too.
 *
 * So a block freed between phases is kept here, and the next array of
 * about its size takes it, pages and all.  A bigger array gets a new block,
 * and the smaller one is freed, not grown: what it holds is not wanted,
 * and growing it is no saving.  realloc asks the kernel to move a mapped
 * block's pages, but the grown part is then faulted a small page at a
 * time, and a block that starts on a 2 MiB boundary (lib/core/mem.c) the
 * kernel does not move at all (6.18: EFAULT), so glibc copies the whole
 * of it into new pages.  One block is
 * kept, and one more than twice the size asked for is not handed out, so
 * that what the pool holds stays near what the phases had in use; it is
 * freed before the summaries, which allocate their own.  One block kept
 * saves about a quarter of a large join's new pages for a few percent of
 * its peak; a second saves few more pages for a much higher peak
 * (bench/README.md).
 */
#include <malloc.h>
#include <stdlib.h>

#include "lib/core/mem.h"
#include "lib/join/join_base.h"

/* below this, blocks come from the C library's heap, which keeps them anyway */
#define SPARE_MIN ((size_t)1 << 20)

void ntp_jspares__init(struct ntp_jspares *sp)
{
	*sp = (struct ntp_jspares){ .n = 0 };
	pthread_mutex_init(&sp->lock, NULL);
}

/* spare i out of the pool; returns it */
static void *unkeep(struct ntp_jspares *sp, int i)
{
	void *p = sp->p[i];

	sp->p[i] = sp->p[--sp->n];
	sp->cap[i] = sp->cap[sp->n];
	return p;
}

void *ntp_jspares__take(struct ntp_jspares *sp, size_t len)
{
	int fit = -1, big = -1;
	void *p;

	if (len < SPARE_MIN)
		return malloc(len ? len : 1);
	pthread_mutex_lock(&sp->lock);
	for (int i = 0; i < sp->n; i++) {
		if (sp->cap[i] >= len && sp->cap[i] / 2 <= len &&
		    (fit < 0 || sp->cap[i] < sp->cap[fit]))
			fit = i;
		if (sp->cap[i] < len && (big < 0 || sp->cap[i] > sp->cap[big]))
			big = i;
	}
	if (fit >= 0) {
		p = unkeep(sp, fit);
		pthread_mutex_unlock(&sp->lock);
		return p;
	}
	p = big >= 0 ? unkeep(sp, big) : NULL;
	pthread_mutex_unlock(&sp->lock);
	/* what the smaller block held is not wanted: freed, not grown (see above) */
	free(p);
	return ntp_mem__alloc(len);
}

void ntp_jspares__give(struct ntp_jspares *sp, void *p)
{
	size_t cap;
	int least = -1;

	if (!p)
		return;
	cap = malloc_usable_size(p);
	if (cap < SPARE_MIN) {
		free(p);
		return;
	}
	pthread_mutex_lock(&sp->lock);
	if (sp->n < NTP_JSPARES) {
		sp->p[sp->n] = p;
		sp->cap[sp->n++] = cap;
		p = NULL;
	} else {
		/* the pool full: the least of its blocks and this one goes */
		for (int i = 0; i < sp->n; i++)
			if (sp->cap[i] < cap && (least < 0 || sp->cap[i] < sp->cap[least]))
				least = i;
		if (least >= 0) {
			void *out = sp->p[least];

			sp->p[least] = p;
			sp->cap[least] = cap;
			p = out;
		}
	}
	pthread_mutex_unlock(&sp->lock);
	free(p);
}

void ntp_jspares__drop(struct ntp_jspares *sp)
{
	pthread_mutex_lock(&sp->lock);
	while (sp->n)
		free(unkeep(sp, sp->n - 1));
	pthread_mutex_unlock(&sp->lock);
}

void ntp_jspares__fini(struct ntp_jspares *sp)
{
	ntp_jspares__drop(sp);
	pthread_mutex_destroy(&sp->lock);
}
