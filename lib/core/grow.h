/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An array grown by doubling as elements are appended one at a time: the
 * room for element n of *p (size bytes each) is made when n is 0 or a power
 * of two, so n appends cost O(n) copies in all.
 */
#ifndef NTP_GROW_H
#define NTP_GROW_H

#include <stddef.h>

/* room for element n of *p; 0, or -ENOMEM with *p unchanged */
int ntp_grow__for(void **p, size_t n, size_t size);

#endif
