/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrays that may reach hundreds of megabytes (a join's rows and sort
 * buffers, a stage's samples): malloc, calloc and realloc that also ask the
 * kernel for transparent huge pages, where it gives them only on request
 * (/sys/kernel/mm/transparent_hugepage/enabled says "madvise", Debian's
 * default).  Freed with free().  Why: mem.c.
 */
#ifndef NTP_MEM_H
#define NTP_MEM_H

#include <stddef.h>

void *ntp_mem__alloc(size_t len);
void *ntp_mem__calloc(size_t n, size_t size);
void *ntp_mem__realloc(void *p, size_t len);

#endif
