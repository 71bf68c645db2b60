/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a host file's commands hold beside their stages, gathered in the
 * model's scan for the diagnosis (lib/diag/diag.h): per group and NVMe
 * queue, the errors, the sends deferred to the queue's io_work (host_io
 * flag 32) and inline with their delays; per queue, the commands, the mean
 * h_queue to h_done and the processes submitting to it; and the span of
 * the commands' times.  Read under the report's read filters, from the
 * same rows as the groups.
 *
 * Rows are keyed as SQL's GROUP BY keys them (NULL apart from '') and
 * given in its order: io_type, bytes, namespace, controller, qid for the
 * (group, queue) rows; controller, qid for the queues.
 */
#ifndef NTP_MODEL_EVIDENCE_H
#define NTP_MODEL_EVIDENCE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ntp_report;
struct ntp_source;

/* one (group, queue) or one queue: the texts "" where SQL's NULL (null_*) */
struct ntp_evidence_row {
	char *io_type, *ns, *ctrl;
	bool null_io, null_ns, null_ctrl;
	int64_t bytes, qid;
	uint64_t n, errors, deferred, inline_sends, mean_n;
	uint64_t off_cpu, on_cpu;         /* sent off the queue's io_cpu (cpu != io_cpu), on it */
	int64_t first_status;     /* the lowest non-zero status (has_status) */
	bool has_status;
	double deferred_sum, inline_sum;  /* h_queue to the send, as SQLite's total() sums */
	double off_cpu_sum, on_cpu_sum;   /* the same, of those off and on io_cpu */
	double mean_sum;          /* h_queue to h_done, a queue's */
	int pids;                 /* a queue's distinct processes */
	/* while scanning: the queue's row (index) and the group's next row (index + 1, 0 none) */
	size_t qi, next;
};

struct ntp_evidence {
	struct ntp_evidence_row *groups;  /* (group, queue) rows */
	size_t ngroups;
	struct ntp_evidence_row *queues;  /* queue rows */
	size_t nqueues;
	bool pid;                 /* the file has the processes (host_io pid and comm) */
	uint64_t rows;            /* the commands read */
	int64_t first_start, last_done;   /* min h_start_ns, max h_done_ns; INT64_MAX, MIN none */
};

/* a reader's evidence while it scans: ntp_evidence__acc_* */
struct ntp_evidence_acc;

/*
 * The columns the scan adds after its own for ntp_evidence__add, from a
 * FROM made by ntp_evidence__from: controller, qid, status, deferred, the
 * process, sent off the queue's io_cpu.  The times are the stage points the scan reads anyway: a view's
 * column named twice is computed twice.
 */
#define NTP_EVIDENCE_COLS "controller, qid, status, ev_deferred, ev_pid, ev_off_cpu"

/*
 * A row as the scan read it: io_type, bytes and namespace (columns 0 to 2),
 * the points h_start_ns, h_queue_ns, sent_ns, h_done_ns (all integers:
 * ints; else they are read again from their columns as SQL gives them),
 * and NTP_EVIDENCE_COLS from column first
 */
struct ntp_evidence_in {
	const unsigned char *io_type, *ns;    /* NULL: SQL's NULL */
	int64_t bytes;
	int64_t start, queue, sent, done;
	bool ints;
	int col_start, col_queue, col_sent, col_done;
	int first;
	/*
	 * The row's group in the scan's own groups (index + 1; 0 none): its
	 * rows are then found by it, not by a hash of the key's texts
	 */
	size_t group;
};

/* the evidence columns a file's host_io may hold (older files lack some) */
enum ntp_evidence_cols {
	NTP_EVIDENCE_PID = 1 << 0,        /* pid and comm: the processes */
	NTP_EVIDENCE_CPU = 1 << 1,        /* cpu and io_cpu */
	NTP_EVIDENCE_BUSY = 1 << 2,       /* queue_in_flight: the commands in flight on the queue */
};

/* which of them schema's host_io holds: NTP_EVIDENCE_* or'ed */
unsigned ntp_evidence__cols(sqlite3 *db, const char *schema);

/*
 * The host rows of view (host_stages or host_app_stages, as named on the
 * connection) over schema's host_io, with every column of view and
 * ev_deferred (flag 32: the send was io_work's), ev_pid and ev_comm, ev_cpu,
 * ev_io_cpu and ev_off_cpu (cpu != io_cpu; NULL where either is) and ev_busy
 * (queue_in_flight), as a FROM: "(SELECT ...)".  A column whose NTP_EVIDENCE_*
 * bit is not in cols is NULL.
 */
void ntp_evidence__from(char *buf, size_t len, const char *view, const char *schema,
			unsigned cols);

/*
 * An accumulator that holds at most max_rows (group, queue) rows (0: no
 * bound): the model's scan gathers the evidence beside the groups' samples
 * while the rows are few, and leaves it to a scan of its own, made once
 * the samples are freed, when many groups would raise the peak memory.
 */
struct ntp_evidence_acc *ntp_evidence__acc_new(size_t max_rows);
/* ntp_evidence__add: a's rows past its max_rows */
#define NTP_EVIDENCE_FULL 1
/* NTP_EVIDENCE_MAX_ROWS: the model's scan's bound, about 250 bytes a row */
#define NTP_EVIDENCE_MAX_ROWS 1024
/* st's row, as in, into a: 0, -ENOMEM, or NTP_EVIDENCE_FULL: a is past its bound, to be dropped */
int ntp_evidence__add(struct ntp_evidence_acc *a, sqlite3_stmt *st, const struct ntp_evidence_in *in);
/* src's rows into dst (src unchanged): 0 or -ENOMEM */
int ntp_evidence__merge(struct ntp_evidence_acc *dst, const struct ntp_evidence_acc *src);
/* a's rows, in GROUP BY's order, into a new *out (a freed either way): 0 or -ENOMEM */
int ntp_evidence__finish(struct ntp_evidence_acc *a, bool pid, struct ntp_evidence **out);
void ntp_evidence__acc_free(struct ntp_evidence_acc *a);
void ntp_evidence__free(struct ntp_evidence *e);

/*
 * r->files[i].evidence of the host side of s's file i, by a scan of its
 * own, for the kinds whose model is not made by one scan of the file's
 * host rows (joined, --stages=detail), and for a host file of more
 * (group, queue) rows than NTP_EVIDENCE_MAX_ROWS.  0 or an NTP_EXIT_* code after one
 * error line.
 */
int ntp_evidence__scan(struct ntp_report *r, struct ntp_source *s, int i);

#endif
