/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A target recording's backend devices over the recording, where it has
 * their counters (the backend_stats table): each device's time-weighted
 * commands in flight (iostat's aqu-sz) and its queue's depth.
 */
#ifndef NTP_MODEL_BACKEND_H
#define NTP_MODEL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ntp_source;

struct ntp_backend_dev {
	char dev[64];
	double aqu;               /* time-weighted commands in flight: iostat's aqu-sz */
	int64_t depth;            /* nr_requests; -1 not read */
};

/*
 * s's file i's devices appended to (*v)[0..*n), grown as needed; *has set
 * when the file has the counters (left alone when not).  0, -ENOMEM (v
 * holds what was read), or an NTP_EXIT_* code after one error line.
 */
int ntp_backend__read(struct ntp_source *s, int i, bool *has, struct ntp_backend_dev **v,
		      size_t *n);

#endif
