/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The diagnosis's rules, written once (ntprof-report(1), DIAGNOSIS): what
 * evidence names which cause, each rule with its threshold.  Nothing here
 * reads a recording: diag.c gathers the evidence of a group or of the
 * whole recording into struct ntp_diag_evidence, ntp_diag__decide applies
 * the rules in the table's order, and the first that holds is the cause
 * its line names (every one that holds is kept, for the JSON).
 * tests/unit/test_diag_rules.c holds each rule at its threshold, on both
 * sides of it.
 */
#ifndef NTP_DIAG_RULES_H
#define NTP_DIAG_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/stage_table.h"

/* the causes, in the order their rules are tried */
enum ntp_diag_cause {
	NTP_DIAG_INSUFFICIENT,    /* too few commands to test any percentile of the list */
	NTP_DIAG_CLOCK,           /* clock doubt: the join's estimate, never the network */
	NTP_DIAG_ERRORS,          /* errors or retries: non-zero status, controller resets */
	NTP_DIAG_SATURATED,       /* a queue full to its depth: commands wait for a slot */
	NTP_DIAG_STARVED,         /* one queue's worker carries several submitters' commands */
	NTP_DIAG_DEFERRED,        /* sends left to the queue's io_work, and late */
	NTP_DIAG_NETWORK,         /* slow or lossy network */
	NTP_DIAG_BACKEND,         /* the backend's own time: storage dominates, not saturated */
	NTP_DIAG_NONE,            /* no bottleneck beyond the device's own time */
	NTP_DIAG_NCAUSES,
};

/* the thresholds, each used by one rule (ntprof-report(1), DIAGNOSIS, lists them) */
#define NTP_DIAG_DOMINANT_PCT 50.0      /* a stage dominates at this share of the mean or tail */
#define NTP_DIAG_CLOCK_NEGATIVE_PCT 1.0 /* joined commands with a stage below 0, % of n */
#define NTP_DIAG_CLOCK_DRIFT 400e-6     /* |drift| the join estimated: beyond a real clock's */
#define NTP_DIAG_CLOCK_TOL_PCT 25.0     /* the join's tolerance, % of the network mean */
#define NTP_DIAG_CLOCK_TOL_MIN_NS 10000.0 /* ... and at least this */
#define NTP_DIAG_CLOCK_UNPAIRED_PCT 10.0 /* rows of each side left unpaired, % of its rows */
#define NTP_DIAG_SATURATED_FULL 0.9     /* in flight / depth */
#define NTP_DIAG_TAG_WAIT_FULL 0.5      /* ... with the host block layer dominating: tag waits */
#define NTP_DIAG_STARVED_INFLIGHT 8.0   /* commands in flight on one queue */
#define NTP_DIAG_STARVED_SUBMITTERS 2   /* processes submitting to it */
#define NTP_DIAG_DEFERRED_SHARE_PCT 50.0 /* commands whose send was deferred, % of n */
#define NTP_DIAG_DEFERRED_DELAY 2.0     /* their send delay over the inline sends' */
#define NTP_DIAG_DEFERRED_MIN_INLINE 10 /* inline sends needed to compare with */
#define NTP_DIAG_LOSSY_TAIL 10.0        /* the network's tail mean over its median: lossy */
#define NTP_DIAG_SLOW_NETWORK_NS 500e3  /* the network's median: slow (a fabric's is tens of us) */

/* what the evidence says of a resource the stages belong to */
enum ntp_diag_part {
	NTP_DIAG_PART_HOST_BLOCK,
	NTP_DIAG_PART_HOST_DRIVER,
	NTP_DIAG_PART_NETWORK,        /* network, or a host alone's network* (with the target) */
	NTP_DIAG_PART_TARGET_DRIVER,
	NTP_DIAG_PART_STORAGE,
	NTP_DIAG_NPARTS,
};


/* a queue's commands in flight against its depth */
struct ntp_diag_queue {
	bool known;               /* any evidence of it at all */
	char name[80];            /* "nvme0 q1" (a host queue), "backend", "backend /dev/nullb0" */
	double inflight;          /* commands/s x mean time (Little's law), else counted */
	bool measured;            /* the backend's own counters (iostat's aqu-sz), not Little's */
	int64_t depth;            /* its capacity as the recording states it; <= 0 unknown */
	int submitters;           /* processes submitting to it; 0 unknown */
	const char *submitter;    /* what submitters counts: "processes"; NULL unknown */
};

#define NTP_DIAG_MAX_STAGES 9

/* the evidence of one group, or of a recording's groups together */
struct ntp_diag_evidence {
	uint64_t n;                   /* commands */
	/* the tail: above this percentile of the list (lib/core/stat_table.h); 0: none testable */
	int tail_stat;
	uint64_t tail_n;
	int64_t tail_above_ns;
	uint64_t min_n;               /* the commands the lowest listed percentile needs */
	/* the view's stages: their ids, and shares of the end-to-end mean and of the tail's */
	int nstages;
	enum ntp_stage stage[NTP_DIAG_MAX_STAGES];
	double mean_ns[NTP_DIAG_MAX_STAGES], tail_ns[NTP_DIAG_MAX_STAGES];
	double e2e_mean_ns, e2e_tail_ns;
	uint64_t negative[NTP_DIAG_MAX_STAGES];   /* commands with the stage below 0 */
	bool host_alone;              /* network* holds the target too */
	bool target_alone;            /* a target recording alone: a group is a device's */
	/* the join's clock estimate (joined only) */
	bool joined;
	bool clock_estimated;         /* false: too few pairs agreed */
	double drift, tol_ns;
	double unpaired_pct;          /* the lesser of the two sides' unpaired rows, % */
	/* errors: commands completed with a non-zero status, their first status */
	uint64_t errors;
	int64_t first_status;
	int64_t resets;               /* controller resets seen while recording; -1 not recorded */
	/* the queues: the busiest host queue, the backend */
	struct ntp_diag_queue host_queue, backend;
	/* sends: deferred to io_work (flag 32, or sent on another CPU than submitted) */
	bool sends_known;             /* the recording can tell (NVMe/TCP with the send hooks) */
	uint64_t deferred, inline_sends;
	double deferred_delay_ns, inline_delay_ns;   /* mean h_queue to sent of each */
	/*
	 * the cause in nvme-tcp: sent from another CPU than the queue's io_cpu
	 * (host_io cpu != io_cpu), of the commands with both recorded, and the
	 * mean h_queue to sent of those off and on io_cpu
	 */
	uint64_t off_io_cpu, on_io_cpu;
	double off_io_cpu_delay_ns, on_io_cpu_delay_ns;
	/* the network's median, for lossiness (the tail's mean is tail_ns) */
	int64_t network_p50_ns;
};

/* ntp_diag_verdict.why when joined stages went below 0 */
#define NTP_DIAG_WHY_UNPAIRED "both sides unpaired"
#define NTP_DIAG_WHY_NEGATIVE "stages below 0"

/* the verdict on one piece of evidence */
struct ntp_diag_verdict {
	enum ntp_diag_cause cause;    /* the first rule that holds */
	unsigned int holds;           /* every rule that holds: 1 << cause */
	int mean_stage, tail_stage;   /* the stages (indexes) with the largest share; -1 */
	double mean_pct, tail_pct;    /* their shares, % */
	int part;                     /* enum ntp_diag_part the cause is in; -1 none */
	bool lossy;                   /* NTP_DIAG_NETWORK: the tail far above the median */
	const char *why;              /* NTP_DIAG_CLOCK: which clock evidence */
};

struct ntp_diag_rule {
	enum ntp_diag_cause cause;
	const char *key;              /* JSON: "saturated_queue" */
	const char *text;             /* text: "saturated queue" */
	const char *rule;             /* the rule, with its threshold, for -v and the docs */
};

extern const struct ntp_diag_rule ntp_diag_rules[NTP_DIAG_NCAUSES];

/* the rules applied to e, in order */
void ntp_diag__decide(const struct ntp_diag_evidence *e, struct ntp_diag_verdict *v);


#endif
