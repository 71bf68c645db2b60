/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What report computes from recordings, and what every view of it reads:
 * report_query.c and report_scan.c load a recording alone into struct
 * ntp_report, report_join.c and report_view.c joined recordings (and the
 * detailed stages) into struct ntp_jreport; report_text.c, report_json.c,
 * report_jtext.c and report_jjson.c print them, and compare reads the same
 * model.  The groups, their tables and their JSON objects are one code for
 * every report (report_groups.c, report_text_tables.c, report_json_group.c).
 * report_model.c has the computations on a group every printer shares.
 */
#ifndef NTP_REPORT_MODEL_H
#define NTP_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/stats.h"
#include "lib/join/join.h"
#include "lib/report/report_opts.h"

/* the host stages (ntprof-design(7), STAGES), in the order of host_stages' columns */
enum ntp_stage {
	NTP_STAGE_BLOCK,
	NTP_STAGE_DRIVER,
	NTP_STAGE_NETWORK_STAR,   /* network + target: a host-only recording */
	NTP_STAGE_MAX,
};

/* a stage as the reports name it; a view is the stages of one kind of report */
struct ntp_view_stage {
	const char *text;         /* row label in the text report (one word) */
	const char *json;         /* "stage" value in the JSON */
	const char *what;         /* what it holds, for the notes; NULL: no note */
};

struct ntp_view {
	const char *name;         /* "summary" | "detail" */
	int nstages;
	const struct ntp_view_stage *stages;
};

/* report_model.c: the stages of a recording alone, the columns of host_stages */
extern const struct ntp_view_stage ntp_stage_names[NTP_STAGE_MAX];
/* the note on network* wherever a host recording's stages are shown */
#define NTP_REPORT_NETWORK_STAR_NOTE \
	"the network and the target together (a host-only recording cannot tell them apart)"

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
};

/* ntprof's own cost, from a header's bpf_* */
struct ntp_report_cost {
	double ns_per_command;        /* BPF run time per command seen while measured */
	double commands_per_s;        /* the recording's rate (or the window's, without a host side) */
	double cpu_percent;           /* ns_per_command x commands_per_s, in % of one CPU */
};

/* the most stages a view of a group has (report_view.c's joined detail) */
#define NTP_VIEW_MAX_STAGES 9

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
 * The commands of one group and their stages, in every report: a recording
 * alone has NTP_STAGE_MAX stages, the views of report_view.c theirs; the
 * entries past a report's stages stay 0.
 */
struct ntp_report_group {
	int host_file;                /* the host-side file, from 1 (a recording alone: 1) */
	char *io_type;                /* read | write | other */
	int64_t bytes;
	char *ns;                     /* namespace disk, nvmeXnY; a target alone: its device */
	/* a target alone: e2e is the residence */
	struct ntp_summary e2e, stage[NTP_VIEW_MAX_STAGES];
	/* exact integer sums, for the check that the stages add up */
	int64_t sum_e2e, sum_stage[NTP_VIEW_MAX_STAGES];
	uint64_t mismatched;          /* commands whose stages do not add up to e2e */
	uint64_t impossible[NTP_IMPOSSIBLE_MAX];  /* commands left out, by why */
	double est_rate;              /* commands/s, estimated: n * N / duration; < 0 unknown */
};

struct ntp_report {
	struct ntp_report_header hdr;
	struct ntp_report_group *groups;  /* ordered: namespace, I/O type, size */
	size_t ngroups;
	uint64_t total;               /* sampled commands over all groups */
};

/* a header's text as every printer shows it: "unknown" where the file has none */
static inline const char *ntp_report__or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

/* report_model.c: the small computations every printer shares */
int64_t ntp_report__round_ns(double ns);          /* means are shown as whole ns */
/* the end-to-end mean minus the means of g's first nstages stages, in ns: time no stage explains */
double ntp_report__stages_unattributed_ns(const struct ntp_report_group *g, int nstages);
/* do g's first nstages stages add up to its end-to-end latency, command by command? */
int ntp_report__sum_ok(const struct ntp_report_group *g, int nstages);
/* g's impossible commands, all reasons */
uint64_t ntp_report__impossible(const struct ntp_report_group *g);
/* the name of a reason, as the text report and the JSON give it */
const char *ntp_report__impossible_name(enum ntp_impossible why);
double ntp_report__share_pct(const struct ntp_report_group *g, double mean_ns);
/* is group g, of total sampled commands, shown under o's --percent-limit? */
int ntp_report__shown(const struct ntp_report_group *g, uint64_t total,
		      const struct ntp_report_opts *o);
/* the same for a recording alone: its NTP_STAGE_MAX stages, its total */
double ntp_report__unattributed_ns(const struct ntp_report_group *g);
int ntp_report__group_shown(const struct ntp_report *r, const struct ntp_report_group *g,
			    const struct ntp_report_opts *o);

/* ---- report on joined recordings, and the detailed stages ------------------
 *
 * The other view of the same numbers: a group's stages are one of the views
 * below (report_view.c), read row by row from temp.joined of lib/join/join.h (a
 * host and a target recording joined), from host_io with host_stages
 * (--stages=detail on a host recording), or from target_io with
 * target_stages (a target recording alone, where the residence on the
 * target stands for the end-to-end latency).  report_join.c loads it,
 * report_jtext.c and report_jjson.c print it.
 */

enum ntp_view_kind {
	NTP_VIEW_JOINED,          /* block, driver, network, target driver, storage */
	NTP_VIEW_JOINED_DETAIL,   /* the sub-stages of a joined command: nine, eight over RDMA */
	NTP_VIEW_HOST_DETAIL,     /* the sub-stages a host recording alone has */
	NTP_VIEW_TARGET,          /* a target recording alone: target driver, storage */
	NTP_VIEW_TARGET_DETAIL,   /* its sub-stages: target-rx, storage, target-tx */
	NTP_VIEW_MAX,
};

struct ntp_jfile {
	struct ntp_report_header hdr;   /* seen..lost_map, rows: the host side */
	int sides;                      /* enum ntp_join_side */
	/* the target side's intervals and target_io rows */
	uint64_t t_seen, t_sampled, t_lost_ringbuf, t_lost_map, t_rows;
};

/* a stage boundary this recording's hooks could not place as the view wants */
struct ntp_stage_gap {
	int file;                 /* from 1 */
	const char *point;        /* h_cmd_sent, t_sent, ... */
	char *hook;               /* the hook it got, "none" when none */
	const char *stages;       /* the sub-stages it bounds */
	const char *what;         /* "not separated: ..." or "approximate: ..." */
};

/* what a jreport is of */
enum ntp_jreport_kind {
	NTP_JREPORT_JOINED,       /* host and target recordings joined */
	NTP_JREPORT_HOST,         /* one host recording, --stages=detail */
	NTP_JREPORT_TARGET,       /* one target recording alone */
};

struct ntp_jreport {
	enum ntp_view_kind view;
	int joined;               /* 0: --stages=detail on one host recording, or a target alone */
	int target_only;          /* one target recording: residence for end-to-end */
	int rdma;                 /* NVMe/RDMA recordings (meta transport): RDMA sub-stages */
	struct ntp_jfile *files;
	int nfiles;
	struct ntp_join_pair *pairs;
	int npairs;
	struct ntp_join_counts counts;
	struct ntp_stage_gap *gaps;
	size_t ngaps;
	struct ntp_report_group *groups;   /* ordered: host file, namespace, I/O type, size */
	size_t ngroups;
	uint64_t total;
};

#define NTP_JREPORT_WARN_PCT 99.0
/* a target recording alone: what its total is, and what it cannot show */
#define NTP_JREPORT_RESIDENCE \
	"the command on the target: received to response sent, less an R2T write's data wait"
#define NTP_JREPORT_RESIDENCE_RDMA \
	"the command on the target: received to response posted, less the RDMA READ of a " \
	"write's data"
#define NTP_JREPORT_TARGET_NOTE \
	"a target recording alone has the target's stages only; the network and host stages " \
	"(block, driver(h), network) need the host's recording: ntprof report HOST.ntp TARGET.ntp"

#endif
