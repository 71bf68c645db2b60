/* SPDX-License-Identifier: GPL-2.0 */
/* Work shared by threads: the readers' parts, the estimate's passes. */
#ifndef NTP_JOBS_H
#define NTP_JOBS_H

#include <stddef.h>

/* the most jobs one call runs */
#define NTP_JOBS_MAX 8

/*
 * fn(&job k) for k < n (at most NTP_JOBS_MAX), job k being the k-th of the
 * array jobs of elements size bytes long.  Job 0 runs on the calling
 * thread and the others on threads of their own; a job whose thread cannot
 * start runs on the calling thread, after job 0.  Returns when every job
 * has.  The jobs report their results in their own elements.
 */
void ntp_jobs__run(void *(*fn)(void *), void *jobs, size_t size, int n);

#endif
