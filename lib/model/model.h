/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one model of a report, for every kind of recording: a host recording
 * alone, a target alone, host and target joined (a pair, several files, one
 * "-r both" file).  model_load.c reads the files' headers (model_header.c)
 * and streams their commands into the groups (model_scan.c for a host
 * recording's summary, model_view.c for every other view);
 * report_text.c and report_json.c print it, and compare pairs two of them.
 * model.c has the computations on a group every printer shares.
 */
#ifndef NTP_REPORT_MODEL_H
#define NTP_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/stage_table.h"
#include "lib/core/stats.h"
#include "lib/model/model_source.h"
#include "lib/join/join.h"

struct ntp_read_filter;
struct ntp_evidence;

/* a stage as the reports name it; a view is the stages of one kind of report */
/*
 * a stage as a view shows it: its names from the table of stages
 * (lib/core/stage_table.h), and what it holds in this view's words
 */
struct ntp_view_stage {
	const char *text;         /* its label: the row in the text report (one word) */
	const char *json;         /* its key: "stage" in the JSON, the CSV's columns */
	const char *what;         /* what it holds, for the notes */
	enum ntp_stage id;
};

struct ntp_view {
	const char *name;         /* "summary" | "detail" */
	int nstages;
	const struct ntp_view_stage *stages;
};

struct ntp_report_hook {
	char *side, *point, *hook, *flavour, *reason;
};

struct ntp_report_header {
	const char *path;
	int64_t schema_version;       /* the file's user_version */
	char *role, *transport, *kernel_release, *hostname, *start_time;
	char *recorded_by;            /* the ntprof version that wrote the file */
	int64_t sample_one_in;        /* N of "one command in N"; 0 when unknown */
	/* record's filters (meta filter_*): NULL when not used; sizes "4096,131072" */
	char *filter_session, *filter_io_type, *filter_sizes;
	int64_t hash_version;         /* 0 when unknown */
	int64_t duration_ns;          /* 0 when unknown */
	const char *duration_source;  /* which data gave duration_ns */
	struct ntp_report_hook *hooks;
	size_t nhooks;
	/* sums over the intervals table */
	uint64_t seen, sampled, lost_ringbuf, lost_map;
	uint64_t rows;                /* commands in host_io */
	/* ntprof's own cost, meta bpf_*: -1 when the file has none (ntprof-ntp(5)) */
	int64_t bpf_runs, bpf_run_ns, bpf_commands, bpf_window_ns;
	/* kprobe hits the kernel skipped, meta host_/target_kprobe_missed: -1 when absent */
	int64_t kprobe_missed, t_kprobe_missed;
};

/* ntprof's own cost, from a header's bpf_* */
struct ntp_report_cost {
	double ns_per_command;        /* BPF run time per command seen while measured */
	double commands_per_s;        /* the recording's rate (or the window's, without a host side) */
	double cpu_percent;           /* ns_per_command x commands_per_s, in % of one CPU */
};

/* NTP_VIEW_MAX_STAGES: model_source.h, whose rows have as many */

/*
 * Why a command is impossible (ntprof-report(1), Impossible commands): such
 * a command is counted in its group and left out of the group's statistics.
 */
enum ntp_impossible {
	NTP_IMPOSSIBLE_BACKWARDS,     /* a stage or the end-to-end latency below 0 */
	NTP_IMPOSSIBLE_NOT_NUMBER,    /* NULL, text or a real where an integer time belongs */
	NTP_IMPOSSIBLE_OVERFLOW,      /* its arithmetic leaves 64 bits */
	NTP_IMPOSSIBLE_MAX,
};

/*
 * The application's stages around the view's (ntprof-report(1), "The
 * application's stages"): submit before the first, complete and reap after
 * the last, and the application's end-to-end latency, of the group's
 * commands that have the application's stamps (h_app_submit and
 * h_app_done) only.  A command without a reap has reap 0 (its app e2e ends
 * at h_app_done).  Per command submit + e2e + complete + reap = app e2e.
 */
enum ntp_app_stage { NTP_APP_SUBMIT, NTP_APP_COMPLETE, NTP_APP_REAP, NTP_APP_STAGES };

struct ntp_report_app {
	struct ntp_summary e2e, stage[NTP_APP_STAGES];   /* e2e: the app e2e */
	/* exact sums; window: the (window's) end-to-end of the same commands */
	int64_t sum_e2e, sum_window, sum_stage[NTP_APP_STAGES];
	uint64_t reaped;              /* of e2e.n: with a reap */
	uint64_t mismatched;          /* commands whose stages do not add up to the app e2e */
	uint64_t impossible;          /* with stamps that go backwards or are no number: left out */
};

/*
 * A group's tail (ntprof-report(1), DIAGNOSIS): its commands whose
 * end-to-end latency is above the highest percentile of the run's list
 * whose change the group's n can test (lib/core/stat_table.h, min_n), and
 * their stages' means, from which the diagnosis names the stage that
 * dominates the tail.  stat 0 (NTP_STAT_N): no percentile is testable at
 * the group's n, nothing else is set.
 */
struct ntp_report_tail {
	int stat;                     /* enum ntp_stat: the percentile's slot; 0: none */
	int64_t above_ns;             /* that percentile of the end-to-end latency */
	uint64_t n;                   /* commands above it */
	double e2e_mean;              /* their end-to-end mean, ns */
	double *stage_mean;           /* their stages' means, ns: the group's nstages */
};

/*
 * The commands of one group and their stages, in every report: the view's
 * nstages summaries only (a host view has 3 of NTP_VIEW_MAX_STAGES), since
 * a recording may have a group per command; the sums past them stay 0.
 */
struct ntp_report_group {
	int host_file;                /* the file the group's commands came from, from 1 */
	char *io_type;                /* read | write | other */
	int64_t bytes;
	char *ns;                     /* namespace disk, nvmeXnY; a target alone: its device */
	/* a target alone: e2e is the residence; stage: nstages of them */
	struct ntp_summary e2e, *stage;
	int nstages;
	/* exact integer sums, for the check that the stages add up */
	int64_t sum_e2e, sum_stage[NTP_VIEW_MAX_STAGES];
	uint64_t mismatched;          /* commands whose stages do not add up to e2e */
	uint64_t impossible[NTP_IMPOSSIBLE_MAX];  /* commands left out, by why */
	double est_rate;              /* commands/s, estimated: n * N / duration; < 0 unknown */
	struct ntp_report_tail tail;  /* its slowest commands' stages */
	/*
	 * commands counted with a stage below 0 (a joined stage: clock or
	 * pairing), per stage: nstages of them.  It and tail.stage_mean live in
	 * the block of stage[], so that a group costs its view's stages only
	 */
	uint64_t *negative;
	struct ntp_report_app app;    /* all 0 without the application's stamps */
};

/* what a report is of: decided by the files' roles and their number */
enum ntp_report_kind {
	NTP_REPORT_HOST,          /* one host recording */
	NTP_REPORT_TARGET,        /* one target recording alone: residence for end-to-end */
	NTP_REPORT_JOINED,        /* host and target joined: a pair, several, or one "-r both" */
};

/*
 * The stages a report shows (model_view.c has each view's stages, in the
 * words of NVMe/TCP and of NVMe/RDMA).
 */
enum ntp_view_kind {
	NTP_VIEW_HOST,            /* a host recording alone: block, driver, network* */
	NTP_VIEW_HOST_DETAIL,     /* the sub-stages a host recording alone has */
	NTP_VIEW_JOINED,          /* block, driver, network, target driver, storage */
	NTP_VIEW_JOINED_DETAIL,   /* the sub-stages of a joined command: nine, eight over RDMA */
	NTP_VIEW_TARGET,          /* a target recording alone: target driver, storage */
	NTP_VIEW_TARGET_DETAIL,   /* its sub-stages: target-rx, storage, target-tx */
	NTP_VIEW_MAX,
};

/* one recording of a report: its header, and which sides it holds */
struct ntp_report_file {
	struct ntp_report_header hdr;   /* seen..lost_map, rows: the host side */
	int sides;                      /* enum ntp_side */
	/* the target side's intervals and target_io rows */
	uint64_t t_seen, t_sampled, t_lost_ringbuf, t_lost_map, t_rows;
	/* the host side's evidence for the diagnosis (model_evidence.h); NULL not gathered */
	struct ntp_evidence *evidence;
};

/* a stage boundary this recording's hooks could not place as the view wants */
struct ntp_stage_gap {
	int file;                 /* from 1 */
	const char *point;        /* h_cmd_sent, t_sent, ... */
	char *hook;               /* the hook it got, "none" when none */
	const char *stages;       /* the sub-stages it bounds */
	const char *what;         /* "not separated: ..." or "approximate: ..." */
};

/*
 * The one model of a report, whatever the recordings: model_load.c fills
 * it, report_text.c and report_json.c print it, compare pairs two of them.
 * A host recording alone is the same model with the host's stages
 * (network* standing for the network and the target).
 */
struct ntp_report {
	enum ntp_report_kind kind;
	enum ntp_view_kind view;
	int rdma;                 /* NVMe/RDMA recordings (meta transport): RDMA words */
	struct ntp_report_file *files;
	int nfiles;
	/* joined only: the clock pairs and what the join matched */
	struct ntp_join_pair *pairs;
	int npairs;
	struct ntp_join_counts counts;
	struct ntp_stage_gap *gaps;     /* --stages=detail only */
	size_t ngaps;
	struct ntp_report_group *groups;   /* ordered: host file, namespace, I/O type, size */
	size_t ngroups;
	uint64_t total;                 /* commands over all groups, hidden ones included */
	/* groups left out by --percent-limit (ntp_report_load.percent_limit): not in groups */
	size_t nhidden;
	double percent_limit;
	/* the read filters the rows were read through (model_filter.h); NULL: none */
	const struct ntp_read_filter *filter;
	bool histograms;                /* the summaries have their log2 buckets */
	/*
	 * some command has the application's stamps: the reports show the
	 * application's stages (ntprof-report(1)); false, they are as before
	 */
	bool app;
};

/* the version of report's and compare's JSON documents (ntprof-report(1), JSON) */
#define NTP_REPORT_FORMAT_VERSION 2

#define NTP_REPORT_WARN_PCT 99.0
/* a target recording alone: what its total is, and what it cannot show */
#define NTP_REPORT_RESIDENCE \
	"the command on the target: received to response sent, less an R2T write's data wait"
#define NTP_REPORT_RESIDENCE_RDMA \
	"the command on the target: received to response posted, less the RDMA READ of a " \
	"write's data"
#define NTP_REPORT_TARGET_NOTE \
	"a target recording alone has the target's stages only; the network and host stages " \
	"(block, driver(h), network) need the host's recording: ntprof report HOST.ntp TARGET.ntp"

/* a header's text as every printer shows it: "unknown" where the file has none */
static inline const char *ntp_report__or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

/* model.c: the small computations every printer shares */
/*
 * A group of file's io_type, bytes and ns, with nstages stage summaries, all
 * else 0 (its rate unknown); 0 or -ENOMEM (nothing held).  Its free frees
 * what it holds, not g.
 */
int ntp_report_group__init(struct ntp_report_group *g, int file, const char *io_type,
			   int64_t bytes, const char *ns, int nstages);
void ntp_report_group__free(struct ntp_report_group *g);
int64_t ntp_report__round_ns(double ns);          /* means are shown as whole ns */
/* the end-to-end mean minus the means of g's first nstages stages, in ns: time no stage explains */
double ntp_report__stages_unattributed_ns(const struct ntp_report_group *g, int nstages);
/* do g's first nstages stages add up to its end-to-end latency, command by command? */
int ntp_report__sum_ok(const struct ntp_report_group *g, int nstages);
/* the application's stages add up to the app e2e, command by command (g->app.e2e.n > 0) */
int ntp_report__app_sum_ok(const struct ntp_report_group *g);
/* a stage of the application's side in the printers' words (model_app.c) */
extern const struct ntp_view_stage ntp_report__app_stages[NTP_APP_STAGES];
extern const struct ntp_view_stage ntp_report__app_total;
/* an app stage's share of the group's app e2e mean, in % (NAN without one) */
double ntp_report__app_share_pct(const struct ntp_report_group *g, double mean_ns);
/* g's impossible commands, all reasons */
uint64_t ntp_report__impossible(const struct ntp_report_group *g);
/* the name of a reason, as the text report and the JSON give it */
const char *ntp_report__impossible_name(enum ntp_impossible why);
double ntp_report__share_pct(const struct ntp_report_group *g, double mean_ns);

/* what a report of a source of this kind is: a host or a target alone, or joined */
enum ntp_report_kind ntp_report__kind(enum ntp_kind k);

/* model_view.c: the stages of r's view, in the words of r's transport */
const struct ntp_view *ntp_report__view(const struct ntp_report *r);
/* what a target's residence is, over r's transport */
const char *ntp_report__residence(const struct ntp_report *r);
/* the total's row label: "end-to-end", or a target alone's "residence" */
const char *ntp_report__total_label(const struct ntp_report *r);
/* matched commands in percent of the host's rows; NAN with no host rows */
double ntp_report__matched_pct(const struct ntp_report *r);

#endif
