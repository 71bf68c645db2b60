// SPDX-License-Identifier: GPL-2.0
/* Arrays grown by doubling (lib/core/grow.h). */
#include <errno.h>
#include <stdlib.h>

#include "lib/core/grow.h"

int ntp_grow__for(void **p, size_t n, size_t size)
{
	size_t cap = n ? 2 * n : 1;
	void *q;

	if (n & (n - 1))
		return 0;
	if (cap < n || (size && cap > (size_t)-1 / size))
		return -ENOMEM;
	q = realloc(*p, cap * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}
