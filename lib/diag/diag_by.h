/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The evidence per queue, process or CPU (ntprof-report(1), --by): the
 * host's commands grouped by their NVMe queue (controller, qid), by
 * their submitting process (pid and comm, where the application's side
 * was recorded), by the CPU that submitted them or by their queue's
 * io_cpu (where recorded), each row's commands, estimated rate, commands in flight
 * by Little's law against the queue's depth, end-to-end mean and tail,
 * errors, deferred sends and sends off the queue's io_cpu; a total row; and the imbalance between the
 * rows (the largest rate and tail over their medians).
 */
#ifndef NTP_DIAG_BY_H
#define NTP_DIAG_BY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/cli/opt.h"
#include "lib/model/model.h"
#include "lib/model/model_by.h"
#include "lib/model/model_source.h"

/* no --by, then each of the model's keys (NTP_BY_KEYS, lib/model/model_by.h) */
enum ntp_diag_by_key {
	NTP_DIAG_BY_NONE,
#define NTP_DIAG_BY_ENUM(k, ...) NTP_DIAG_BY_##k,
	NTP_BY_KEYS(NTP_DIAG_BY_ENUM)
#undef NTP_DIAG_BY_ENUM
};

/* the model's definition of key (not NTP_DIAG_BY_NONE): its words, parts and order */
static inline const struct ntp_by_def *ntp_diag_by__def(enum ntp_diag_by_key key)
{
	return &ntp_by_defs[key - NTP_DIAG_BY_QUEUE];
}

/* --by's words, in enum order from NTP_DIAG_BY_QUEUE, NULL-terminated */
extern const char *const ntp_diag_by_names[];
/* the key of a --by word; NTP_DIAG_BY_NONE for NULL */
enum ntp_diag_by_key ntp_diag_by__key(const char *name);
/* the --by word of key; NULL for NTP_DIAG_BY_NONE */
const char *ntp_diag_by__word(enum ntp_diag_by_key key);

/*
 * The --by entry of report's, compare's and series' option tables, one
 * definition: v a const char ** set to one of ntp_diag_by_names, help
 * what the command makes of it.
 */
#define NTP_DIAG_BY_OPTION(v, help) \
	NTP_OPT_CHOICE(0, "by", (v), "KEY", (help), ntp_diag_by_names)

struct ntp_diag_by_row {
	char name[64];            /* "nvme0 q1", "fio 1234", "1:nvme0 q1" with several host files */
	int file;                 /* the host file, from 1; 0 the total */
	char ctrl[32];            /* a queue's; "" otherwise */
	int64_t qid;              /* a queue's; -1 otherwise */
	int64_t pid;              /* a process's; -1 otherwise or not recorded */
	char comm[32];            /* a process's */
	int64_t cpu;              /* a CPU's (--by cpu or io_cpu); -1 otherwise or not recorded */
	uint64_t n, errors, deferred;
	/*
	 * Sent from another CPU than the queue's io_cpu (cpu != io_cpu), of the
	 * where_known commands with both recorded, and the mean h_queue to sent
	 * of those sent off and on io_cpu (NAN none)
	 */
	uint64_t where_known, off_io_cpu;
	double off_delay_ns, on_delay_ns;
	/*
	 * host_io queue_in_flight: the commands in flight on the queue as each
	 * was set up, measured, of the busy_n commands that have it: their mean
	 * (NAN none) and largest
	 */
	uint64_t busy_n;
	double busy_mean;
	int64_t busy_max;
	double rate;              /* commands/s, estimated (n x N / duration); < 0 unknown */
	double inflight;          /* rate x mean h_queue to h_done (Little); < 0 unknown */
	int64_t depth;            /* a queue's depth (meta host_queue_depth); -1 not stated */
	double mean_ns;           /* end-to-end */
	int64_t tail_ns;          /* the end-to-end at the tail percentile; -1: too few commands */
	double deferred_delay_ns; /* mean h_queue to sent of the deferred sends; NAN none */
	int others;               /* a queue's processes, a process's queues */
};

struct ntp_diag_by {
	enum ntp_diag_by_key key;
	int tail_stat;            /* enum ntp_stat: the percentile of tail_ns (ntp_stat__tail) */
	struct ntp_diag_by_row *rows;
	size_t n;
	struct ntp_diag_by_row total;
	double rate_imbalance;    /* the largest row's rate over the rows' median; NAN < 2 rows */
	double tail_imbalance;    /* the same of tail_ns, of the rows that have it */
	bool host;                /* the report has a host side (else no rows) */
	bool pid_recorded;        /* a command's process is recorded in some file */
	bool cpu_recorded;        /* a command's CPU is recorded in some file */
	bool io_cpu_recorded;     /* a command's io_cpu is recorded in some file */
};

/*
 * b made of the host rows of r's files in s, under r's read filters
 * (key NTP_DIAG_BY_NONE: b empty): 0 or an NTP_EXIT_* code after one
 * error line.
 */
int ntp_diag_by__make(struct ntp_diag_by *b, enum ntp_diag_by_key key,
		      const struct ntp_report *r, struct ntp_source *s);
void ntp_diag_by__free(struct ntp_diag_by *b);

/* the text's table (rows unprefixed, the rest "# "); nothing for NTP_DIAG_BY_NONE */
void ntp_diag_by__text(FILE *f, const struct ntp_diag_by *b);
struct ntp_json;
/* the value of the report's "by" member: null for NTP_DIAG_BY_NONE */
void ntp_diag_by__json(struct ntp_json *j, const struct ntp_diag_by *b);
/* the page's table; nothing for NTP_DIAG_BY_NONE */
void ntp_diag_by__html(FILE *f, const struct ntp_diag_by *b);

#endif
