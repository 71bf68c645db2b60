/* SPDX-License-Identifier: GPL-2.0 */
/* Work shared by threads: the readers' parts, the estimate's passes. */
#ifndef NTP_JOBS_H
#define NTP_JOBS_H

#include <stddef.h>

/* the most threads one call starts (with the caller's) */
#define NTP_JOBS_MAX 8

/*
 * fn(&job k) for k < n, job k being the k-th of the array jobs of elements
 * size bytes long.  Job 0 runs on the calling thread and jobs 1 to
 * NTP_JOBS_MAX - 1 on threads of their own; a job beyond, or one whose
 * thread cannot start, runs on the calling thread after job 0.  Returns
 * when every job has (at once for n < 1).  The jobs report their results
 * in their own elements.
 */
void ntp_jobs__run(void *(*fn)(void *), void *jobs, size_t size, int n);

/*
 * The threads a reader may share its work among: $NTPROF_THREADS when it is
 * a number from 1 (ntprof(1), ENVIRONMENT), else the CPUs online; at most
 * NTP_JOBS_MAX.  Each reader takes fewer where its work is small.
 */
int ntp_jobs__threads(void);

#endif
