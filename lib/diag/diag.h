/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The diagnosis of a report (ntprof-report(1), DIAGNOSIS): for each group
 * and for the recording as a whole, the stage that dominates the mean and
 * the tail, the cause the evidence supports (diag_rules.h) and the
 * evidence's numbers.  Made from the report model (the stages, the tail,
 * the join's clock, and what its scan gathered beside the stages: each
 * command's status, send deferral, queue and submitting process,
 * lib/model/model_evidence.h) and from the recordings' meta and counters
 * (the queues' depths, the controllers' resets, the backend's).  report,
 * compare and series print it; nothing here prints.
 */
#ifndef NTP_DIAG_H
#define NTP_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/diag/diag_by.h"
#include "lib/diag/diag_rules.h"
#include "lib/model/model.h"
#include "lib/model/model_source.h"

/* the diagnosis of one group, or of the recording */
struct ntp_diag_line {
	const struct ntp_report_group *g;   /* NULL: the recording as a whole */
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;
};

/*
 * What the recordings could tell: each false one is "not recorded in this
 * file" in the text's notes, null in the JSON, and the rules that need it
 * do not hold
 */
struct ntp_diag_sources {
	bool host;                /* a host side: else none of these applies */
	bool deferral;            /* NVMe/TCP's send hook: host_io flag 32 */
	bool submitters;          /* host_io.pid: the processes submitting to a queue */
	bool queue_depth;         /* meta host_queue_depth */
	bool resets;              /* meta host_ctrl_resets */
	bool target;              /* a target side: else backend does not apply */
	bool backend;             /* the backend_stats table */
	bool engine;              /* the fleet's engine: the stages alone, none of the above */
};

struct ntp_diag_gather;

/*
 * The recording's line, made at once; each group's, from what was
 * gathered, when it is asked for (ntp_diag__group): lines of every group
 * at once would cost a report of many groups more than its model
 */
struct ntp_diag {
	struct ntp_diag_line all;         /* the recording */
	size_t ngroups;                   /* r's groups: lines 0 .. ngroups - 1 */
	const struct ntp_report *r;       /* the report made of */
	struct ntp_diag_gather *gather;   /* what the recordings hold beside the stages */
	struct ntp_diag_sources has;
	struct ntp_diag_by by;            /* --by: per queue or process; key NONE without */
};

/*
 * d made of r, loaded from s (which stays open while d is used): 0 or an
 * NTP_EXIT_* code after one error line.
 */
int ntp_diag__make(struct ntp_diag *d, const struct ntp_report *r, struct ntp_source *s);
void ntp_diag__free(struct ntp_diag *d);
/* group k's line (of r->groups[k]) into l */
void ntp_diag__group(const struct ntp_diag *d, size_t k, struct ntp_diag_line *l);

/*
 * The text of one line, at most width columns (cut with "..."; 0: not
 * cut): "storage 71% of tail, saturated queue (nvme0 q1 ~30 in
 * flight / 32)"; the group's name before it is the printer's.
 */
void ntp_diag__text(const struct ntp_diag_line *l, char *buf, size_t len, size_t width);
/* the cause as the text names it: "saturated queue", "lossy network" */
const char *ntp_diag__cause_text(const struct ntp_diag_line *l);
/* the evidence behind the cause, one phrase: "nvme0 q1 ~30 in flight / 32"; "" none */
void ntp_diag__evidence_text(const struct ntp_diag_line *l, char *buf, size_t len);
/* the stage at index i of l's evidence: its text label in r's view */
const char *ntp_diag__stage_label(const struct ntp_diag_line *l, int i);
/*
 * What a line is of, as the text names it: "read 4KiB nvme0n1 p90 2.1ms"
 * (the group, its tail's percentile and that percentile's value), or
 * "recording"
 */
void ntp_diag__label(const struct ntp_diag_line *l, char *buf, size_t len);
/*
 * The i-th (from 0) evidence the recordings lack, as the notes name it:
 * "queue depth: not recorded in this file (no host queue is saturated)",
 * "... in the engine ..." of the fleet's engine, written into buf; NULL
 * past the last
 */
const char *ntp_diag__missing(const struct ntp_diag *d, size_t i, char *buf, size_t len);
/* d's line of group g (a pointer into the report d was made of) into l: l, or NULL: none */
const struct ntp_diag_line *ntp_diag__line_of(const struct ntp_diag *d,
					      const struct ntp_report_group *g,
					      struct ntp_diag_line *l);
/*
 * What changed and why, one line for a group in two runs (either NULL:
 * not in that run), at most width columns: the group's name, then the
 * baseline's cause and "->" where the new run's differs, then the new
 * run's text: "read 4KiB nvme0n1: none -> saturated queue: driver 64% of
 * tail, saturated queue (nvme0 q1 ~30 in flight / 32)"
 */
void ntp_diag__change_text(const struct ntp_diag_line *base, const struct ntp_diag_line *new_line,
			   char *buf, size_t len, size_t width);
/* the whole line: label, ": ", text, at most width columns */
void ntp_diag__full_text(const struct ntp_diag_line *l, char *buf, size_t len, size_t width);

/* the columns a text line of the diagnosis takes at most, its "# " included */
#define NTP_DIAG_TEXT_WIDTH 100

struct ntp_json;
/* d as the value of the documents' "diagnosis" member */
void ntp_diag__json(struct ntp_json *j, const struct ntp_diag *d);
/* d as a page's table under the heading title */
void ntp_diag__html(FILE *f, const struct ntp_diag *d, const char *title);

#endif
