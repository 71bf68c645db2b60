/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One recording session (lib/record/record_session.h), shared by its
 * parts in this folder.  Not an interface for others.
 *
 *	record_session.c   ntp_record__run(): the sequence, start to close
 *	record_collect.c   the collectors: prepare, start, poll, counters, stop
 *	record_events.c    one record's way: the filters again, live lines, writer
 *	record_live.c      the live lines on stdout
 *	record_loop.c      the poll loop and what ends it (signals, -d, workload)
 *	record_meta.c      the meta and hooks rows, at the start and at the end
 *	record_summary.c   the progress lines on stderr
 *	record_child.c     the workload (lib/record/record_child.h)
 *	record_proc.c      the one-line files of /proc, /sys, configfs (record_proc.h)
 */
#ifndef NTP_RECORD_PRIV_H
#define NTP_RECORD_PRIV_H

#include <stdint.h>
#include <time.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "lib/collect/collector.h"     /* NTP_COST_WINDOW_NS, NTP_COST_COMMANDS */
#include "lib/core/filter.h"
#include "lib/record/record_child.h"
#include "lib/record/record_backend.h"
#include "lib/record/record_ctrls.h"
#include "lib/record/record_ids.h"
#include "lib/record/record_opts.h"

struct ntp_collector;

#define NTP_NSEC_PER_SEC 1000000000ULL

/* one collector's side of the recording */
struct ntp_record_side {
	const char *name;               /* "host" / "target" */
	struct ntp_collector *c;        /* NULL: this side is not recorded */
	uint64_t prev[NTP_CNT_MAX];     /* the counters at the last intervals row */
};

struct ntp_record_session {
	const struct ntp_record_opts *o;
	struct ntp_writer *w;
	struct ntp_record_side host, target;
	struct ntp_live *live;
	struct ntp_live_match *match;   /* -r both with live lines */
	struct ntp_record_child child;
	uint64_t start_ns, last_flush_ns, last_tick_ns;
	/* -r both --session: the namespace's backend on this machine's target, or
	 * (when configfs does not tell) the cntlid of each of its controllers */
	char tgt_device[NTP_DISK_NAME_LEN];
	uint16_t cntlids[NTP_FILTER_MAX_CTRLS];
	unsigned int ncntlids;
	int live_err;                   /* the live lines failed once: said, not again */
	/*
	 * after detaching (ntp_record__drain): a record the writer refuses
	 * (it failed, and counts the record lost) does not stop the rings
	 * being emptied
	 */
	bool draining;
	struct ntp_nvmf_ids ids;        /* the nvmf_ids rows written (record_meta.c) */
	/*
	 * ntprof's own cost: the kernel's BPF run-time statistics, on from the
	 * start until NTP_COST_WINDOW_NS have passed and NTP_COST_COMMANDS
	 * commands were seen (bpf_enable_stats() keeps them on while stats_fd
	 * is open; -1: refused or over), since they cost two clock reads per
	 * program run themselves.  Then summed over the programs, with the
	 * commands seen meanwhile.
	 */
	int stats_fd;
	bool have_cost;
	uint64_t bpf_runs, bpf_run_ns, bpf_commands, bpf_window_ns;
	/* the host's controllers of the transport: their queues, their resets (ctrls.n 0: none) */
	struct ntp_ctrls ctrls;
	uint64_t ctrls_ns;              /* when their states were last read */
	/* the target's backend devices: their counters each interval (backends.n 0: none) */
	struct ntp_backends backends;
};


static inline uint64_t ntp_record__clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NTP_NSEC_PER_SEC + ts.tv_nsec;
}

/* record_collect.c: each returns 0 or an NTP_EXIT_* code after one error line */
int ntp_record__prepare_collectors(struct ntp_record_session *s);
int ntp_record__start_collectors(struct ntp_record_session *s);
void ntp_record__stop_collectors(struct ntp_record_session *s);
void ntp_record__free_collectors(struct ntp_record_session *s);
int ntp_record__programs(const struct ntp_record_session *s);
/*
 * Turn the kernel's BPF statistics on before the attach; read them and turn
 * them off at now, when the window is over or at the end (after the detach).
 */
void ntp_record__cost_start(struct ntp_record_session *s);
void ntp_record__cost_end(struct ntp_record_session *s, uint64_t now);
/* after an intervals row: end the statistics when the window is over */
void ntp_record__cost_tick(struct ntp_record_session *s, uint64_t now);
/* hand every ready record of both rings over; waits up to timeout_ms first */
int ntp_record__poll(struct ntp_record_session *s, int timeout_ms);
/*
 * After detaching, even after an error: hand over every record still in
 * the rings, and those parked for a hook, so that each is written or
 * counted lost.  The first error, or 0.
 */
int ntp_record__drain(struct ntp_record_session *s);
/* one intervals row per side with the counters' growth since the last, then commit */
int ntp_record__write_intervals(struct ntp_record_session *s, uint64_t now);

/* record_events.c */
/* -r both --session: how to tell the namespace's records on the target side */
int ntp_record__prepare_filter(struct ntp_record_session *s);
int ntp_record__on_host_event(void *ctx, const struct ntp_host_event *e);
int ntp_record__on_target_event(void *ctx, const struct ntp_target_event *e);

/* record_live.c */
int ntp_record__prepare_live(struct ntp_record_session *s);
/* the live lines failed (-errno): say so once, print no more */
void ntp_record__live_failed(struct ntp_record_session *s, int err);
void ntp_record__live_tick(struct ntp_record_session *s, uint64_t now);
/* the last line, with every host event still waiting for its target's */
void ntp_record__live_end(struct ntp_record_session *s, uint64_t stop_ns);
void ntp_record__free_live(struct ntp_record_session *s);

/* record_loop.c */
void ntp_record__install_signals(void);
/* poll until a signal, -d, the workload's exit or an error; 0 or NTP_EXIT_* */
int ntp_record__loop(struct ntp_record_session *s, const char **reason);
/* the signal the workload gets for a stop reason */
int ntp_record__child_signal(const char *reason);

/* record_meta.c: each returns 0 or an NTP_EXIT_* code after one error line */
int ntp_record__write_hooks(struct ntp_record_session *s);
int ntp_record__write_start_meta(struct ntp_record_session *s, uint64_t start_real_ns);
int ntp_record__write_stop_meta(struct ntp_record_session *s, uint64_t stop_ns, const char *reason);
/*
 * The machine's NVMe over Fabrics names (record_ids.h) of the sides
 * recorded, those not written yet: at the start, and again at the stop
 * for controllers, ports or namespaces that came meanwhile.
 */
int ntp_record__write_ids(struct ntp_record_session *s);

/* record_summary.c */
void ntp_record__print_start(const struct ntp_record_session *s, uint64_t t0);
void ntp_record__print_summary(const struct ntp_record_session *s, uint64_t stop_ns);
/*
 * Each side's cross-check (ntp_collector__blind) on its last counters: one
 * error line for a side that saw far too few of the commands that flowed,
 * and NTP_EXIT_BLIND; else 0.
 */
int ntp_record__crosscheck(const struct ntp_record_session *s);

#endif
