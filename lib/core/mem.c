// SPDX-License-Identifier: GPL-2.0
/*
 * A sort scatters keys over an array of hundreds of megabytes, and a join
 * looks rows up by index all over another: with 4 KiB pages nearly every
 * such access misses the TLB, and every new page is a fault (which in a
 * virtual machine traps to the hypervisor).  A 2 MiB page covers 512 of
 * them: both reports, joined and host-only, run faster with huge pages on
 * the development VM (bench/README.md, "New pages and huge pages"; new
 * pages in a VM: join_base.c).
 *
 * The advice covers the block's whole pages; below 2 MiB it cannot help
 * and is not given.  It is advice: a kernel without transparent huge pages
 * refuses it, one set to "never" ignores it, and the array works as before.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/mem.h"

#define HUGE_MIN ((size_t)2 << 20)

static void *advise(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (!p || len < HUGE_MIN)
		return p;
	lo = (uintptr_t)p & ~(page - 1);
	hi = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	return p;
}

/*
 * A block of 2 MiB or more starts on a 2 MiB boundary: the kernel makes a
 * huge page only of a whole aligned 2 MiB of the mapping, and glibc's own
 * mapping starts a header past a small page's boundary, so that an 8 MiB
 * array allocated at once got three huge pages and 512 small ones.
 */
void *ntp_mem__alloc(size_t len)
{
	void *p;

	if (len < HUGE_MIN)
		return malloc(len ? len : 1);
	if (posix_memalign(&p, HUGE_MIN, len))
		return NULL;
	return advise(p, len);
}

void *ntp_mem__calloc(size_t n, size_t size)
{
	return advise(calloc(n ? n : 1, size ? size : 1), n * size);
}

/*
 * glibc does not move an aligned block's pages when it grows (its mremap
 * failed with EFAULT here, on 6.18): it copies the block into a new one,
 * unaligned, whose pages come small.  So an aligned block (ntp_mem__alloc's)
 * that grows is copied into a new aligned block; one that shrinks stays.
 */
void *ntp_mem__realloc(void *p, size_t len)
{
	size_t have;
	void *q;

	if (!p || (uintptr_t)p % HUGE_MIN || len <= (have = malloc_usable_size(p)))
		return advise(realloc(p, len ? len : 1), len);
	q = ntp_mem__alloc(len);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	free(p);
	return q;
}
