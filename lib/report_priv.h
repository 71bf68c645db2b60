/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What report computes from a recording, shared by its parts: report_query.c
 * loads and summarizes, report_text.c and report_json.c print the same model,
 * so the text and the JSON cannot disagree.  Not an interface for others.
 */
#ifndef NTP_REPORT_PRIV_H
#define NTP_REPORT_PRIV_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

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

struct ntp_stage_name {
	const char *text;         /* column label in the text report */
	const char *json;         /* key in the JSON document */
};
extern const struct ntp_stage_name ntp_stage_names[NTP_STAGE_MAX];

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
};

struct ntp_report_group {
	char *io_type;                /* read | write | other */
	int64_t bytes;
	char *ns;                     /* namespace disk, nvmeXnY */
	struct ntp_summary e2e, stage[NTP_STAGE_MAX];
	/* exact integer sums, for the check that the stages add up */
	int64_t sum_e2e, sum_stage[NTP_STAGE_MAX];
	uint64_t mismatched;          /* commands whose stages do not add up to e2e */
	double est_rate;              /* commands/s, estimated: n * N / duration; < 0 unknown */
};

struct ntp_report {
	struct ntp_report_header hdr;
	struct ntp_report_group *groups;  /* ordered: namespace, I/O type, size */
	size_t ngroups;
	uint64_t total;               /* sampled commands over all groups */
};

/* report_query.c: reads db (open, checked) into r; an NTP_EXIT_* code */
int ntp_report__load(struct ntp_report *r, sqlite3 *db, const char *path);
void ntp_report__free(struct ntp_report *r);

/*
 * report_scan.c: every command of host_stages into r->groups, summarized and
 * ordered, and r->total.  An NTP_EXIT_* code.
 */
int ntp_report__scan(struct ntp_report *r, sqlite3 *db);
/* prints "PATH: WHAT: sqlite's message"; NTP_EXIT_CORRUPT for damage, else _FAILURE */
int ntp_report__db_fail(sqlite3 *db, const char *path, const char *what);

/* report.c: do a and b name one file?  Is one file among paths twice (then one line)? */
int ntp_report__same_file(const char *a, const char *b);
int ntp_report__check_twice(const char *const *paths, int n);

/* helpers shared by the printers (report_query.c) */
int64_t ntp_report__round_ns(double ns);          /* means are shown as whole ns */
/* the end-to-end mean minus the stage means, in ns: time no stage explains */
double ntp_report__unattributed_ns(const struct ntp_report_group *g);
double ntp_report__share_pct(const struct ntp_report_group *g, double mean_ns);
/* is group g shown under o's --percent-limit? */
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

struct ntp_json;
/* report_json.c: a summary's seven _ns members; one file's members (commands: the host side) */
void ntp_report__json_summary(struct ntp_json *j, const struct ntp_summary *s);
void ntp_report__json_file(struct ntp_json *j, const struct ntp_report_header *h);

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

#define NTP_VIEW_MAX_STAGES 9

struct ntp_view_stage {
	const char *text;         /* row label in the text report (one word) */
	const char *json;         /* "stage" value in the JSON */
	const char *what;         /* what it holds, for the notes */
};

enum ntp_view_kind {
	NTP_VIEW_JOINED,          /* block, driver, network, target driver, storage */
	NTP_VIEW_JOINED_DETAIL,   /* the sub-stages of a joined command: nine, eight over RDMA */
	NTP_VIEW_HOST_DETAIL,     /* the sub-stages a host recording alone has */
	NTP_VIEW_TARGET,          /* a target recording alone: target driver, storage */
	NTP_VIEW_TARGET_DETAIL,   /* its sub-stages: target-rx, storage, target-tx */
	NTP_VIEW_MAX,
};

struct ntp_view {
	const char *name;         /* "summary" | "detail" */
	int nstages;
	const struct ntp_view_stage *stages;
};

struct ntp_jgroup {
	int host_file;            /* number of the host-side file, from 1 */
	char *io_type;
	int64_t bytes;
	char *ns;                 /* a target alone: its backend device */
	struct ntp_summary e2e, stage[NTP_VIEW_MAX_STAGES];  /* a target alone: e2e = residence */
	int64_t sum_e2e, sum_stage[NTP_VIEW_MAX_STAGES];
	uint64_t mismatched;      /* commands whose stages do not add up to e2e */
	double est_rate;          /* commands/s; < 0 unknown */
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
	struct ntp_jgroup *groups;   /* ordered: host file, namespace, I/O type, size */
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

double ntp_jreport__unattributed_ns(const struct ntp_jreport *r, const struct ntp_jgroup *g);
double ntp_jreport__share_pct(const struct ntp_jgroup *g, double mean_ns);
int ntp_jreport__group_shown(const struct ntp_jreport *r, const struct ntp_jgroup *g,
			     const struct ntp_report_opts *o);
int ntp_jreport__sum_ok(const struct ntp_jreport *r, const struct ntp_jgroup *g);
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
