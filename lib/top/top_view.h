/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ntprof top shows (ntprof-top(1), THE SCREEN): the groups of the
 * live aggregation (lib/record/live.h) of the last interval or of the whole
 * run, sorted by a key the user picks, and the keys that change it.  The
 * same for a recording replayed and for a live one.
 */
#ifndef NTP_TOP_VIEW_H
#define NTP_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/record/live.h"
#include "lib/top/top_screen.h"

enum ntp_top_sort {
	NTP_TOP_SORT_SHARE,       /* s: the group's share of all groups' summed end-to-end */
	NTP_TOP_SORT_P99,         /* p: p99, largest first */
	NTP_TOP_SORT_MEAN,        /* m: mean, largest first */
	NTP_TOP_SORT_N,           /* n: commands, most first */
	NTP_TOP_SORT_GROUP,       /* g: the report's order (namespace, I/O type, size) */
};

/* what one tick took from the aggregation */
struct ntp_top_frame {
	struct ntp_live_row *rows, *all;        /* the interval's, the whole run's */
	size_t nrows, nall;
	double elapsed_s;         /* the interval's end, into the run */
	double span_s;            /* its length */
};

/*
 * A pause freezes what is shown; the ticks that come meanwhile (live: the
 * recording goes on) go on taking the aggregation's intervals into latest,
 * each replacing the one before, and the whole run keeps growing, so that
 * the end of the pause shows at once the latest interval and the whole run
 * up to its end, as if there had been no pause.
 */
struct ntp_top_view {
	struct ntp_top_screen *scr;
	const char *source;       /* the recording's path, or "live" */
	enum ntp_live_mode mode;
	enum ntp_live_by by;      /* the rows: groups, queues or processes */
	enum ntp_top_sort sort;
	bool total;               /* the whole run, not the last interval */
	bool paused;              /* the shown frame is kept as it is */
	bool ended;               /* the replay reached the recording's end */
	double speed;             /* the replay's; 0 live */
	double interval_s;        /* -i */
	struct ntp_top_frame shown;
	struct ntp_top_frame latest;    /* taken while paused; rows NULL and nrows 0 when none */
	bool have_latest;
	unsigned long missed;     /* ticks taken while paused */
};

/*
 * The interval that ends now, elapsed_s into the run and interval_s long:
 * its rows and the whole run's taken from l (into latest when paused), l's
 * next interval started, the screen drawn.  0 or -ENOMEM.
 */
int ntp_top_view__tick(struct ntp_top_view *v, struct ntp_live *l, double elapsed_s,
		       double interval_s);
/*
 * a key: the sort, the span, pause (its end shows the latest frame taken
 * meanwhile); true for q.  Other keys are ignored.
 */
bool ntp_top_view__key(struct ntp_top_view *v, int key);
void ntp_top_view__draw(struct ntp_top_view *v);
void ntp_top_view__free(struct ntp_top_view *v);

#endif
