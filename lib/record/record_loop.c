// SPDX-License-Identifier: GPL-2.0
/*
 * The poll loop and what ends it: SIGINT or SIGTERM, the end of -d, the
 * workload's exit, top's q (the view's poll), or an error.  Between those, it hands the rings' records
 * over, writes the intervals rows and commits about every second, and
 * prints a live line every -i.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "lib/record/record_priv.h"

#define POLL_MS 100
#define FLUSH_NS NTP_NSEC_PER_SEC
/* how often the controllers' states are read: a reset on loopback lasts longer */
#define CTRLS_NS (100 * 1000000ULL)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* SIGCHLD only has to break the ring buffer's epoll_wait */
static void on_child(int sig)
{
	(void)sig;
}

void ntp_record__install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: the signal must break the ring buffer's epoll_wait */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
}

int ntp_record__child_signal(const char *reason)
{
	if (!strcmp(reason, "sigint"))
		return SIGINT;
	return SIGTERM;
}

int ntp_record__loop(struct ntp_record_session *s, const char **reason)
{
	const struct ntp_record_opts *o = s->o;
	uint64_t end_ns = o->duration_s > 0 ?
			  s->start_ns + (uint64_t)(o->duration_s * NTP_NSEC_PER_SEC) : UINT64_MAX;
	uint64_t tick_ns = (uint64_t)(o->interval_s * NTP_NSEC_PER_SEC);
	uint64_t now, wait_ns;
	int err;

	for (;;) {
		now = ntp_record__clock_ns(CLOCK_MONOTONIC);
		if (stop_signal) {
			*reason = stop_signal == SIGINT ? "sigint" : "sigterm";
			return 0;
		}
		if (now >= end_ns) {
			*reason = "duration";
			return 0;
		}
		if (o->view && o->view->poll(o->view->ctx)) {
			*reason = "quit";
			return 0;
		}
		if (ntp_record_child__exited(&s->child)) {
			*reason = "workload";
			return 0;
		}
		if (now - s->last_flush_ns >= FLUSH_NS) {
			err = ntp_record__write_intervals(s, now);
			if (err) {
				*reason = "error";
				return err;
			}
			ntp_record__cost_tick(s, now);
		}
		if (s->live && now - s->last_tick_ns >= tick_ns)
			ntp_record__live_tick(s, now);
		/* a controller that left "live" since the last look: a reset */
		if (s->ctrls.n && now - s->ctrls_ns >= CTRLS_NS) {
			ntp_ctrls__tick(&s->ctrls);
			s->ctrls_ns = now;
		}
		wait_ns = POLL_MS * 1000000ULL;
		if (end_ns - now < wait_ns)
			wait_ns = end_ns - now;
		if (s->live && s->last_tick_ns + tick_ns - now < wait_ns)
			wait_ns = s->last_tick_ns + tick_ns - now;
		err = ntp_record__poll(s, (int)((wait_ns + 999999) / 1000000));
		if (err) {
			*reason = "error";
			return err;
		}
	}
}
