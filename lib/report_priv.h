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

#endif
