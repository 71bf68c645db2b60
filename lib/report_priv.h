/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What report computes from a recording, shared by its parts: report_query.c
 * loads and summarizes, report_text.c and report_json.c print the same model,
 * so the text and the JSON cannot disagree.  The groups, their tables and
 * their JSON objects are one code for every report (report_groups.c,
 * report_text_tables.c, report_json_group.c), and compare reads recordings
 * and writes its JSON with report's parts.  Not an interface for others.
 */
#ifndef NTP_REPORT_PRIV_H
#define NTP_REPORT_PRIV_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>
#include <sys/types.h>

#include "lib/join.h"
#include "lib/report.h"
#include "lib/stats.h"

/* the host stages of ntprof-model §1, in the order of host_stages' columns */
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

/* report_query.c: the stages of a recording alone, the columns of host_stages */
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

/* report_query.c: false when the file holds no cost (or no command was seen meanwhile) */
bool ntp_report__cost(const struct ntp_report_header *h, struct ntp_report_cost *c);

/* the most stages a view of a group has (report_view.c's joined detail) */
#define NTP_VIEW_MAX_STAGES 9

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

/* report_query.c: reads db (open, checked) into r; an NTP_EXIT_* code */
int ntp_report__load(struct ntp_report *r, sqlite3 *db, const char *path);
void ntp_report__free(struct ntp_report *r);

/*
 * report_scan.c: every command of host_stages into r->groups, summarized and
 * ordered, and r->total.  An NTP_EXIT_* code.
 */
int ntp_report__scan(struct ntp_report *r, sqlite3 *db);
/*
 * report_groups.c: the groups a scan fills, row by row, with the samples of
 * each until they are summarized: one set per reader (thread).  nstages is
 * set before the first row.  The rows of a group are those of one host file,
 * I/O type, size and namespace.
 */
struct ntp_group_acc {
	struct ntp_samples e2e, stage[NTP_VIEW_MAX_STAGES];
};

struct ntp_group_set {
	struct ntp_report_group *g;
	struct ntp_group_acc *acc;
	size_t n, cap, last;
	int nstages;
};

/* the index of the row's group, new if need be; -1 without memory */
ssize_t ntp_group_set__find(struct ntp_group_set *set, int file, const char *io_type,
			    int64_t bytes, const char *ns);
/* one command into group k: its end-to-end latency and nstages stage values; -ENOMEM */
int ntp_group_set__add(struct ntp_group_set *set, size_t k, int64_t e2e, const int64_t *stage);
/* moves src's samples into dst's groups; -ENOMEM */
int ntp_group_set__merge(struct ntp_group_set *dst, struct ntp_group_set *src);
/* summarizes and orders the groups, which *groups takes; set is left empty */
void ntp_group_set__finish(struct ntp_group_set *set, struct ntp_report_group **groups,
			   size_t *ngroups);
void ntp_group_set__free(struct ntp_group_set *set);
/* the report's order of groups: namespace, reads before writes before others, size */
int ntp_report__group_cmp(const struct ntp_report_group *x, const struct ntp_report_group *y);

/* report_sql.c: prints "PATH: WHAT: sqlite's message"; NTP_EXIT_CORRUPT for damage, else _FAILURE */
int ntp_report__db_fail(sqlite3 *db, const char *path, const char *what);
/*
 * report_sql.c: sql prepared and stepped to its first row, which *st holds
 * for the caller to read and finalize; else the failure printed as
 * ntp_report__db_fail prints it and its code.
 */
int ntp_report__one_row(sqlite3 *db, const char *path, const char *sql, const char *what,
			sqlite3_stmt **st);
/*
 * report_sql.c: the end of a loop over st's rows, which stopped at step
 * result rc, or at -ENOMEM for want of memory: st finalized, a failure
 * printed as "PATH: WHAT: why".  0 or an NTP_EXIT_* code.
 */
int ntp_report__rows_end(sqlite3 *db, const char *path, sqlite3_stmt *st, int rc,
			 const char *what);

/*
 * report_jsonout.c: where -j's JSON goes, for report and compare.  what names
 * the document in errors ("report", "comparison"); open gives NULL without
 * -j, stdout for "-".  The error document's message is "PATH: CAUSE", cut
 * at cut - 1 bytes; mismatch is the cause of NTP_EXIT_MISMATCH.
 */
int ntp_report__json_open(FILE **f, const char *path, const char *what);
void ntp_report__json_error(FILE *f, int code, const char *path, const char *mismatch,
			    size_t cut);
int ntp_report__json_close(FILE *f, const char *path, const char *what);

/* report.c: do a and b name one file?  Is one file among paths twice (then one line)? */
int ntp_report__same_file(const char *a, const char *b);
int ntp_report__check_twice(const char *const *paths, int n);

/* helpers shared by the printers of every report (report_query.c) */
int64_t ntp_report__round_ns(double ns);          /* means are shown as whole ns */
/* the end-to-end mean minus the means of g's first nstages stages, in ns: time no stage explains */
double ntp_report__stages_unattributed_ns(const struct ntp_report_group *g, int nstages);
/* do g's first nstages stages add up to its end-to-end latency, command by command? */
int ntp_report__sum_ok(const struct ntp_report_group *g, int nstages);
double ntp_report__share_pct(const struct ntp_report_group *g, double mean_ns);
/* is group g, of total sampled commands, shown under o's --percent-limit? */
int ntp_report__shown(const struct ntp_report_group *g, uint64_t total,
		      const struct ntp_report_opts *o);
/* the same for a recording alone: its NTP_STAGE_MAX stages, its total */
double ntp_report__unattributed_ns(const struct ntp_report_group *g);
int ntp_report__group_shown(const struct ntp_report *r, const struct ntp_report_group *g,
			    const struct ntp_report_opts *o);
/* "4KiB", "128KiB", "1MiB", "512B" */
void ntp_report__size_str(int64_t bytes, char *buf, size_t len);

/* report_text.c / report_json.c: 0 or an NTP_EXIT_* code */
int ntp_report__print_text(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o);
int ntp_report__print_json(const struct ntp_report *r, FILE *f, const struct ntp_report_opts *o);

/* ---- the text tables, shared by every text printer (report_table.c) ----- */

enum ntp_cell_kind {
	NTP_CELL_NONE,            /* no value: "-" */
	NTP_CELL_STR,
	NTP_CELL_INT,
	NTP_CELL_DOUBLE,
};

struct ntp_cell {
	enum ntp_cell_kind kind;
	const char *s;
	int64_t i;
	double d;
};

struct ntp_col {
	const char *name;
	int width;                /* negative: left-aligned */
	const char *fmt;          /* printf format of one value of the cell's kind */
};

/* "# title title ...", aligned, or joined by sep */
void ntp_report__print_titles(FILE *f, const struct ntp_col *cols, int n, const char *sep);
void ntp_report__print_row(FILE *f, const struct ntp_col *cols, int n, const struct ntp_cell *cells,
			   const char *sep);
struct ntp_cell ntp_report__str_cell(const char *s);
struct ntp_cell ntp_report__int_cell(int64_t i);
struct ntp_cell ntp_report__dbl_cell(double d);
/* ns shown in us */
struct ntp_cell ntp_report__us_cell(int64_t ns);

/*
 * report_text_tables.c: the tables of groups of every text report.  The
 * end-to-end table, with the host file's column (several files) or without;
 * ns_title: "namespace", or a target's "device".  A group's stage table: a
 * row per stage, what no stage explains, the total ("end-to-end", or a
 * target's "residence"), and the check that the stages add up.
 */
void ntp_report__print_group_titles(FILE *f, bool file_col, const char *ns_title, const char *sep);
void ntp_report__print_group_row(FILE *f, const struct ntp_report_group *g, bool file_col,
				 const char *sep);
void ntp_report__print_stage_table(FILE *f, const struct ntp_report_group *g,
				   const struct ntp_view_stage *stages, int nstages,
				   const char *total, const char *sep);

struct ntp_json;
/* report_json.c: a summary's seven _ns members; one file's members (commands: the host side) */
void ntp_report__json_summary(struct ntp_json *j, const struct ntp_summary *s);
void ntp_report__json_file(struct ntp_json *j, const struct ntp_report_header *h);
/* report_json.c, parts of a file's members: which file, path to duration_ns; its hooks array */
void ntp_report__json_file_id(struct ntp_json *j, const struct ntp_report_header *h);
void ntp_report__json_hooks(struct ntp_json *j, const struct ntp_report_header *h);
/* report_json.c: "stage_notes": what each stage that has a note holds, and a target's residence */
void ntp_report__json_stage_notes(struct ntp_json *j, const struct ntp_view_stage *stages,
				  int nstages, const char *residence);
/* report_json.c: the commands one side of a file saw, as the object name */
void ntp_report__json_counts(struct ntp_json *j, const char *name, uint64_t seen,
			     uint64_t sampled, uint64_t lost_ringbuf, uint64_t lost_map,
			     uint64_t rows);
/*
 * report_json_group.c: a group's object with its first nstages stages; file:
 * with the host file's number; target: a target alone's keys ("device",
 * "residence").
 */
void ntp_report__json_group(struct ntp_json *j, const struct ntp_report_group *g,
			    const struct ntp_view_stage *stages, int nstages, bool file,
			    bool target);

/* report_query.c: only the header of the recording open as db; an NTP_EXIT_* code */
int ntp_report__load_header(struct ntp_report_header *h, sqlite3 *db, const char *path);
void ntp_report__free_header(struct ntp_report_header *h);

/* the header lines of one recording (report_text.c), with a prefix for each line */
void ntp_report__print_file_header(const struct ntp_report_header *h, FILE *f, const char *indent);

/* ---- report on joined recordings, and the detailed stages ------------------
 *
 * The other view of the same numbers: a group's stages are one of the views
 * below (report_view.c), read row by row from temp.joined of lib/join.h (a
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

/* report_join.c: load the model of that kind (one file unless joined); an NTP_EXIT_* code */
int ntp_jreport__load(struct ntp_jreport *r, const char *const *paths, int n,
		      enum ntp_jreport_kind kind, int detail);
void ntp_jreport__free(struct ntp_jreport *r);

/* report_view.c: the rows of db's query into r->groups; an NTP_EXIT_* code */
int ntp_jreport__scan(struct ntp_jreport *r, sqlite3 *db, const char *path);
/* report_view.c: the gaps of file fi (from 0), from its hooks */
int ntp_jreport__find_gaps(struct ntp_jreport *r, int fi);
/* report_view.c: the stages of r's view, in the words of r's transport (set by the scan) */
const struct ntp_view *ntp_jreport__view(const struct ntp_jreport *r);
/* report_view.c: what a target's residence is, over r's transport */
const char *ntp_jreport__residence(const struct ntp_jreport *r);

/* matched commands in percent of the host's rows; NAN with no host rows */
double ntp_jreport__matched_pct(const struct ntp_jreport *r);
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

int ntp_jreport__print_text(const struct ntp_jreport *r, FILE *f, const struct ntp_report_opts *o);
int ntp_jreport__print_json(const struct ntp_jreport *r, FILE *f, const struct ntp_report_opts *o);

#endif
