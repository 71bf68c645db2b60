// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof top's two sources (lib/top/top.h).  Both feed the live
 * aggregation of record's lines and draw it each interval; the terminal is
 * taken after everything that can fail on the command line or the input
 * did, and left on every way out.
 *
 * The replay: events in the order of their start, each interval's those
 * that started before its end on the recording's clock, from where
 * report's --time counts (lib/top/top_replay.h), drawn when the wall clock
 * reaches that end divided by the speed: interval k holds what report
 * --time (k-1)I,kI reads (the first, what ,I reads).  A pause stops the
 * replay's clock.  At the end the last, shorter interval is drawn and the
 * screen stays until q.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/record/live.h"
#include "lib/record/record_session.h"
#include "lib/top/top.h"
#include "lib/top/top_replay.h"
#include "lib/top/top_screen.h"

#define NSEC 1000000000.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NSEC;
}

/* an event into the aggregation, or into the matcher that hands l its pairs (-r both) */
static int add(struct ntp_live *l, struct ntp_live_match *m, const struct ntp_host_event *h,
	       const struct ntp_target_event *t)
{
	if (m) {
		if (h)
			ntp_live_match__add_host(m, h);
		else
			ntp_live_match__add_target(m, t);
		return 0;
	}
	return h ? ntp_live__add_host(l, h) : ntp_live__add_target(l, t);
}

/*
 * Keys until the wall clock reaches due (the pause pushes due on by its
 * length): 1 on q, SIGINT or SIGTERM, else 0.
 */
static int wait_keys(struct ntp_top_view *v, double *due)
{
	for (;;) {
		double left = *due - now_s(), paused_at;
		int key;

		if (left <= 0 && !v->paused)
			return 0;
		paused_at = now_s();
		/* paused: until a key; else until due, an hour at a time (due may be infinite) */
		key = ntp_top_screen__key(v->scr, v->paused ? -1 : left > 3600 ? 3600 * 1000 :
					  (int)ceil(left * 1000));
		if (v->paused)
			*due += now_s() - paused_at;
		if (key < 0 || (key > 0 && ntp_top_view__key(v, key)))
			return 1;
		if (key == 0)
			ntp_top_view__draw(v);  /* the size may have changed */
	}
}

static int replay(struct ntp_top_view *v, struct ntp_top_replay *r, struct ntp_live *l,
		  struct ntp_live_match *m, const struct ntp_top_opts *o)
{
	const struct ntp_host_event *h;
	const struct ntp_target_event *t;
	const int64_t t0 = ntp_top_replay__origin(r);
	int64_t end = t0;       /* the latest start added */
	uint64_t key, boundary;
	double start = now_s(), due;
	int have, err;

	have = ntp_top_replay__next(r, &h, &t, &key);
	if (have < 0)
		return -have;
	ntp_top_view__draw(v);
	for (uint64_t k = 1; have > 0; k++) {
		boundary = (uint64_t)t0 + (uint64_t)llround((double)k * o->interval_s * NSEC);
		while (have > 0 && key < boundary) {
			int64_t at = (int64_t)(h ? h->h_start : t->t_recv);

			if (at > end)
				end = at;
			err = add(l, m, h, t);
			if (err)
				return NTP_EXIT_FAILURE;
			have = ntp_top_replay__next(r, &h, &t, &key);
		}
		if (have < 0)
			return -have;
		if (m)
			ntp_live_match__expire(m, have ? boundary : UINT64_MAX);
		due = start + (double)k * o->interval_s / o->speed;
		if (wait_keys(v, &due))
			return 0;
		start = due - (double)k * o->interval_s / o->speed;
		if (have) {
			err = ntp_top_view__tick(v, l, (double)k * o->interval_s, o->interval_s);
		} else {
			/* the last interval ends with the latest start */
			double from = (double)(k - 1) * o->interval_s;
			double to = fmax((double)(end - t0) / NSEC, from);

			err = ntp_top_view__tick(v, l, to, to - from);
		}
		if (err) {
			ntp_error("%s", strerror(-err));
			return NTP_EXIT_FAILURE;
		}
	}
	v->ended = true;
	ntp_top_view__draw(v);
	due = INFINITY;
	while (!wait_keys(v, &due))
		;
	return 0;
}

int ntp_top__replay(const struct ntp_top_opts *o, const char *path)
{
	struct ntp_top_screen scr = { 0 };
	struct ntp_top_view v = { .scr = &scr, .source = path, .sort = o->sort, .by = o->by,
				  .interval_s = o->interval_s, .speed = o->speed };
	struct ntp_top_replay *r;
	struct ntp_live *l = NULL;
	struct ntp_live_match *m = NULL;
	int err = ntp_top_replay__open(&r, path);

	if (err)
		return err;
	if (ntp_top_replay__has_host(r) && ntp_top_replay__has_target(r))
		v.mode = NTP_LIVE_JOINED;
	else if (ntp_top_replay__has_target(r))
		v.mode = NTP_LIVE_TARGET;
	else
		v.mode = NTP_LIVE_HOST;
	if (!ntp_top_replay__has_host(r) && !ntp_top_replay__has_target(r)) {
		ntp_error("%s: no command recorded: nothing to show", path);
		return ntp_top_replay__close(r, NTP_EXIT_FAILURE);
	}
	l = ntp_live__new(v.mode, ntp_top_replay__sample_one_in(r));
	if (l && v.mode == NTP_LIVE_JOINED)
		m = ntp_live_match__new(NTP_LIVE_MATCH_CAPACITY, NTP_LIVE_MATCH_HOLD_NS,
					ntp_live__on_pair, l);
	if (!l || (v.mode == NTP_LIVE_JOINED && !m)) {
		ntp_error("%s", strerror(errno));
		err = NTP_EXIT_FAILURE;
		goto out;
	}
	ntp_live__keep_total(l);
	if (ntp_live__set_by(l, o->by)) {
		ntp_error("%s: a target recording: --by needs the host's commands", path);
		err = NTP_EXIT_USAGE;
		goto out;
	}
	err = ntp_top_screen__check();
	err = err ?: ntp_top_screen__take(&scr, true);
	if (!err)
		err = replay(&v, r, l, m, o);
	ntp_top_screen__leave(&scr);
out:
	ntp_top_view__free(&v);
	ntp_live_match__free(m);
	ntp_live__free(l);
	return ntp_top_replay__close(r, err);
}

/* ---- live ----------------------------------------------------------------- */

static int live_tick(void *ctx, struct ntp_live *l, double elapsed_s, double interval_s)
{
	return ntp_top_view__tick(ctx, l, elapsed_s, interval_s);
}

/* the keys that came since the last poll; true on q */
static bool live_poll(void *ctx)
{
	struct ntp_top_view *v = ctx;
	int key;

	while ((key = ntp_top_screen__key(v->scr, 0)) > 0)
		if (ntp_top_view__key(v, key))
			return true;
	return key < 0;
}

int ntp_top__live(const struct ntp_top_opts *o, struct ntp_record_opts *ro, const char *path)
{
	struct ntp_top_screen scr = { 0 };
	struct ntp_top_view v = { .scr = &scr, .source = "live", .sort = o->sort, .by = o->by,
				  .interval_s = o->interval_s };
	const struct ntp_record_view rv = { .ctx = &v, .by = o->by, .tick = live_tick,
					    .poll = live_poll };
	int err;

	v.mode = ro->role == NTP_RECORD_BOTH ? NTP_LIVE_JOINED :
		 ro->role == NTP_RECORD_TARGET ? NTP_LIVE_TARGET : NTP_LIVE_HOST;
	ro->live = true;
	ro->view = &rv;
	ro->interval_s = o->interval_s;
	/* record's own handlers end the session on SIGINT and SIGTERM */
	err = ntp_top_screen__take(&scr, false);
	if (!err) {
		ntp_top_view__draw(&v);
		err = ntp_record__run(ro, path);
	}
	ntp_top_screen__leave(&scr);
	ntp_top_view__free(&v);
	return err;
}
