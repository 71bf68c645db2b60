// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/core/jobs.h"

void ntp_jobs__run(void *(*fn)(void *), void *jobs, size_t size, int n)
{
	pthread_t th[NTP_JOBS_MAX];
	int started[NTP_JOBS_MAX] = { 0 };

	if (n < 1)
		return;
	for (int k = 1; k < n && k < NTP_JOBS_MAX; k++)
		started[k] = !pthread_create(&th[k], NULL, fn, (char *)jobs + k * size);
	fn(jobs);
	for (int k = 1; k < n; k++) {
		if (k < NTP_JOBS_MAX && started[k])
			pthread_join(th[k], NULL);
		else
			fn((char *)jobs + k * size);	/* no thread: in turn */
	}
}

int ntp_jobs__threads(void)
{
	const char *env = getenv("NTPROF_THREADS");
	long n = 0;

	if (env && *env) {
		char *end;

		n = strtol(env, &end, 10);
		if (*end || n < 1)
			n = 0;	/* not a number from 1: as unset */
	}
	if (!n)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > NTP_JOBS_MAX ? NTP_JOBS_MAX : (int)n;
}
