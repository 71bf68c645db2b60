/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's commands one by one in the order of a --by key, for the
 * evidence per queue, process or CPU (lib/diag/diag_by.h): each command's
 * queue, process, CPU and its queue's io_cpu, end-to-end time, time held
 * in its queue, deferred send, error and the commands in flight on its
 * queue, read under the report's read filters from the same rows as
 * the model's evidence (model_evidence.h).
 */
#ifndef NTP_MODEL_BY_H
#define NTP_MODEL_BY_H

#include <stdbool.h>
#include <stdint.h>

struct ntp_report;
struct ntp_source;

/* what names a row of the evidence per key, and what a row counts the distinct values of */
enum ntp_by_part {
	NTP_BY_PART_QUEUE,        /* controller and qid */
	NTP_BY_PART_PROCESS,      /* pid (and comm), where the application's side was recorded */
	NTP_BY_PART_CPU,          /* the submitting CPU (host_io.cpu), where recorded */
	NTP_BY_PART_IO_CPU,       /* the queue's io_cpu (host_io.io_cpu), where recorded */
};

/*
 * The keys of --by, the one list: X(KEY, word, part, other, others, others_short, order)
 *   word          --by's word, the JSON's "key"
 *   part, other   what names a row; what the row counts the distinct values of
 *   others        those values in words; others_short, in a table's header
 *   order         the commands' order: the part's columns, then the other's
 *                 (by_ctrl, by_qid, by_pid, by_cpu, by_io_cpu: struct ntp_by_cmd's query)
 */
#define NTP_BY_KEYS(X)								\
	X(QUEUE, "queue", NTP_BY_PART_QUEUE, NTP_BY_PART_PROCESS, "processes", "procs",	\
	  "by_ctrl, by_qid, by_pid")						\
	X(PROCESS, "process", NTP_BY_PART_PROCESS, NTP_BY_PART_QUEUE, "queues", "queues",	\
	  "by_pid, by_ctrl, by_qid")						\
	X(CPU, "cpu", NTP_BY_PART_CPU, NTP_BY_PART_QUEUE, "queues", "queues",		\
	  "by_cpu, by_ctrl, by_qid")						\
	X(IO_CPU, "io_cpu", NTP_BY_PART_IO_CPU, NTP_BY_PART_QUEUE, "queues", "queues",	\
	  "by_io_cpu, by_ctrl, by_qid")

enum ntp_by_key {
#define NTP_BY_ENUM(k, ...) NTP_BY_##k,
	NTP_BY_KEYS(NTP_BY_ENUM)
#undef NTP_BY_ENUM
	NTP_BY_MAX
};

struct ntp_by_def {
	const char *word;
	enum ntp_by_part part, other;
	const char *others, *others_short;
	const char *order;
};

/* NTP_BY_KEYS as a table, in enum ntp_by_key's order */
extern const struct ntp_by_def ntp_by_defs[NTP_BY_MAX];

/* one host command as ntp_by__each gives it */
struct ntp_by_cmd {
	const char *ctrl, *comm;  /* "" where the file has NULL */
	int64_t qid;
	int64_t pid;              /* -1: not recorded */
	int64_t cpu, io_cpu;      /* the submitting CPU, the queue's io_cpu; -1: not recorded */
	int off_io_cpu;           /* cpu != io_cpu: 1, 0; -1 either not recorded */
	int64_t busy;             /* queue_in_flight, the commands in flight on its queue; -1 */
	int64_t e2e_ns;
	int64_t held_ns;          /* h_queue to h_done */
	int64_t delay_ns;         /* h_queue to the send */
	bool deferred;            /* the send was the queue's io_work's (host_io flag 32) */
	bool error;               /* status != 0 */
};

/* takes one command: 0, or a value that stops the stream and that ntp_by__each returns */
typedef int (*ntp_by_cmd_fn)(void *ctx, const struct ntp_by_cmd *c);

/*
 * The time the host rows of s's file i under r's read filters span: the
 * first one's start to the last one's end, when they are at least
 * NTP_BY_SPAN_MIN_N, else window (the filters' window of the recording);
 * into *span_ns.  The time over which Little's law takes a rate: a
 * recording that waited for its workload to start, or outlived it, would
 * spread the commands over time they did not run in.  0 or an NTP_EXIT_*
 * code after one error line.
 */
#define NTP_BY_SPAN_MIN_N 100
int ntp_by__span_ns(const struct ntp_report *r, struct ntp_source *s, int i, int64_t window,
		    int64_t *span_ns);

/*
 * The host commands of s's file i under r's read filters, to fn in key's
 * order (ntp_by_defs[key].order).  0, fn's value that stopped the
 * stream, or an NTP_EXIT_* code after one error line.
 */
int ntp_by__each(const struct ntp_report *r, struct ntp_source *s, int i, enum ntp_by_key key,
		 ntp_by_cmd_fn fn, void *ctx);

#endif
