/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntprof top (ntprof-top(1)): a full-screen view of the live aggregation
 * (lib/record/live.h), refreshed each interval, of a recording made now
 * (the recording session of lib/record, its collectors attached) or of a
 * recording replayed at its recorded pace or faster.
 */
#ifndef NTP_TOP_H
#define NTP_TOP_H

#include "lib/record/record_opts.h"
#include "lib/top/top_view.h"

struct ntp_top_opts {
	double interval_s;        /* -i: the refresh, > 0 */
	double speed;             /* --speed: the replay's pace over the recorded one, > 0 */
	enum ntp_top_sort sort;   /* the first sort */
	enum ntp_live_by by;      /* --by: the rows' key */
};

/*
 * replay path (the recording opened first, then the terminal checked):
 * 0 (q, SIGINT, SIGTERM) or an NTP_EXIT_* code after one line
 */
int ntp_top__replay(const struct ntp_top_opts *o, const char *path);
/*
 * record into path as ntp_record__run does, ro's live aggregation drawn
 * (ro->live and ro->view are set here); its exit codes
 */
int ntp_top__live(const struct ntp_top_opts *o, struct ntp_record_opts *ro, const char *path);

#endif
