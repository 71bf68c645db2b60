// SPDX-License-Identifier: GPL-2.0
/*
 * The join's progress on stderr, as perf shows its own: nothing unless
 * stderr is a terminal and the join has taken more than a second, then one
 * line rewritten in place at most ten times a second, erased at the end so
 * that what follows (a report on stdout, an error) starts on a clean line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/join/join_base.h"

#define QUIET_S 1.0
#define EVERY_S 0.1

struct ntp_jprogress {
	int tty, shown;
	double start, last;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct ntp_jprogress *ntp_jprogress__new(void)
{
	struct ntp_jprogress *p = calloc(1, sizeof(*p));

	if (p) {
		p->tty = isatty(STDERR_FILENO) && ntp_err__verbosity() > 0;
		p->start = now();
	}
	return p;
}

void ntp_jprogress__set(struct ntp_jprogress *p, const char *what, uint64_t done, uint64_t total)
{
	double t;

	if (!p || !p->tty)
		return;
	t = now();
	if (t - p->start < QUIET_S || t - p->last < EVERY_S)
		return;
	p->last = t;
	p->shown = 1;
	if (total)
		fprintf(stderr, "\r[ ntprof %s: joining: %s: %3.0f%% ]\033[K", ntp_err__cmd(), what,
			100.0 * (double)(done < total ? done : total) / (double)total);
	else
		fprintf(stderr, "\r[ ntprof %s: joining: %s ]\033[K", ntp_err__cmd(), what);
	fflush(stderr);
}

void ntp_jprogress__end(struct ntp_jprogress *p)
{
	if (p && p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = 0;
	}
}
