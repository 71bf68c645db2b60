// SPDX-License-Identifier: GPL-2.0
/*
 * One recording session, start to close: the order of its parts
 * (lib/record/record_priv.h) and what is undone after an error.  See
 * lib/record/record_session.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "lib/ntp/db_write.h"
#include "lib/record/record_child.h"
#include "lib/record/record_priv.h"
#include "lib/record/record_session.h"

/* how long the workload may take to exit after record signals it */
#define CHILD_GRACE_S 5.0

int ntp_record__run(const struct ntp_record_opts *o, const char *path)
{
	struct ntp_record_session s = { .o = o, .host = { .name = "host" },
					.target = { .name = "target" }, .stats_fd = -1 };
	const char *reason = "error";
	uint64_t t0, stop_ns;
	int err, err2;

	ntp_record__install_signals();
	err = ntp_record__prepare_filter(&s);
	err = err ?: ntp_record__prepare_collectors(&s);
	err = err ?: ntp_record__prepare_live(&s);
	if (err)
		goto out;
	/*
	 * Attach before the writer opens (and moves an existing FILE to
	 * FILE.old): a refused attach leaves the user's files alone.  Records
	 * wait in the ring buffers until the first poll.
	 */
	t0 = ntp_record__clock_ns(CLOCK_MONOTONIC);
	ntp_record__cost_start(&s);
	err = ntp_record__start_collectors(&s);
	if (err)
		goto out;
	s.start_ns = ntp_record__clock_ns(CLOCK_MONOTONIC);
	err = ntp_writer__open(&s.w, path);
	if (err)
		goto out;
	ntp_record__print_start(&s, t0);
	err = ntp_record__write_hooks(&s);
	err = err ?: ntp_record__write_start_meta(&s, ntp_record__clock_ns(CLOCK_REALTIME));
	err = err ?: ntp_record__write_ids(&s);
	err = err ?: ntp_writer__flush(s.w);
	if (err)
		goto out;
	s.last_flush_ns = s.last_tick_ns = s.start_ns;

	if (o->workload)
		err = ntp_record_child__start(&s.child, o->workload);
	if (!err)
		err = ntp_record__loop(&s, &reason);
	/* the end is when we stopped asking, not after detaching (which may wait for RCU) */
	stop_ns = ntp_record__clock_ns(CLOCK_MONOTONIC);
	/* the workload goes first, so that it does not outlive us */
	ntp_record_child__stop(&s.child, ntp_record__child_signal(reason), CHILD_GRACE_S);
	ntp_record__stop_collectors(&s);
	ntp_record__cost_end(&s, stop_ns);     /* a recording shorter than the window */
	/* after an error too: each record left in the rings is written or counted lost */
	err2 = ntp_record__drain(&s);
	err = err ?: err2;
	if (err)
		reason = "error";
	/* even after an error: keep what can still be written (a full disk may refuse it) */
	err2 = ntp_record__write_intervals(&s, stop_ns);
	err2 = err2 ?: ntp_record__write_stop_meta(&s, stop_ns, reason);
	err2 = err2 ?: ntp_record__write_ids(&s);
	err = err ?: err2;
	ntp_record__live_end(&s, stop_ns);
	ntp_record__print_summary(&s, stop_ns);
	ntp_record_child__report(&s.child);
	/* a collector blind to the commands that flowed: the recording is kept, the exit says so */
	err2 = ntp_record__crosscheck(&s);
	err = err ?: err2;
out:
	/* an error before the loop: detach what start attached (after the loop: nothing left) */
	ntp_record__stop_collectors(&s);
	if (s.stats_fd >= 0)
		close(s.stats_fd);
	if (s.w) {
		err2 = ntp_writer__close(s.w);
		err = err ?: err2;
	}
	ntp_record__free_live(&s);
	ntp_record__free_collectors(&s);
	ntp_nvmf_ids__free(&s.ids);
	return err;
}
