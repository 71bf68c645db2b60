/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of a recording on the command line, one parser for every
 * command that records: ntprof record and ntprof top (live).  A command
 * puts NTP_RECORD_CLI_OPTIONS in its option table, then turns what was
 * given into its struct ntp_record_opts with ntp_record_cli__apply, which
 * checks the combinations as ntprof-record(1) states them.  The options
 * come in two runs, so that a command's own can stand between them:
 *
 *	struct ntp_record_cli rc = NTP_RECORD_CLI_INIT;
 *	const struct ntp_option opts[] = {
 *		NTP_RECORD_CLI_WHAT(&rc),
 *		... the command's own ...
 *		NTP_RECORD_CLI_HOW(&rc),
 *		NTP_OPT_END(),
 *	};
 */
#ifndef NTP_RECORD_CLI_H
#define NTP_RECORD_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/cli/opt.h"
#include "lib/core/filter.h"
#include "lib/record/record_opts.h"

struct ntp_record_cli {
	const char *role, *transport;   /* -r, -t: one of their choices */
	uint64_t sample;                /* -s */
	const char *session, *io_type, *sizes;  /* the filters as given */
	bool kprobes, fentry, no_app;
	int verbose;                    /* -v, added to ntprof -v */
	struct ntp_filter filter;       /* the filters parsed: ntp_record_cli__apply */
};

#define NTP_RECORD_CLI_INIT { .role = "host", .transport = "tcp", .sample = 1000 }

/* the option group of --kprobes and --fentry, which exclude each other */
#define NTP_RECORD_CLI_GROUP_FLAVOUR 1

extern const char *const ntp_record_cli_roles[];        /* host, target, both */
extern const char *const ntp_record_cli_transports[];   /* tcp, rdma */

/*
 * -r and -t into role and transport (const char **, set to one of
 * ntp_record_cli_roles and ntp_record_cli_transports): every command that
 * records or counts commands (record, top, monitor)
 */
#define NTP_RECORD_CLI_ROLE_TRANSPORT(role, transport)                                          \
	NTP_OPT_CHOICE('r', "role", (role), "ROLE",                                              \
		       "host (default), target, or both (host and target on this machine)",      \
		       ntp_record_cli_roles),                                                    \
	NTP_OPT_CHOICE('t', "transport", (transport), "TRANSPORT",                               \
		       "the NVMe-oF transport: tcp (default) or rdma", ntp_record_cli_transports)

/* --session, --io-type and --size, as given, into session, io_type and sizes (const char **) */
#define NTP_RECORD_CLI_FILTERS(session, io_type, sizes)                                          \
	NTP_OPT_STRING(0, "session", (session), "nvmeXnY",                                       \
		       "only this namespace (all of its paths with native multipath)"),          \
	NTP_OPT_STRING(0, "io-type", (io_type), "read|write", "only reads or only writes"),      \
	NTP_OPT_STRING(0, "size", (sizes), "SIZES",                                              \
		       "only these I/O sizes, comma-separated (e.g. 4K,128K)")

/* --kprobes and --fentry into kprobes and fentry (bool *), which exclude each other */
#define NTP_RECORD_CLI_FLAVOUR(kprobes, fentry)                                                  \
	NTP_OPT_BOOL(0, "kprobes", (kprobes), "attach kprobes/kretprobes only",                  \
		     .group = NTP_RECORD_CLI_GROUP_FLAVOUR),                                     \
	NTP_OPT_BOOL(0, "fentry", (fentry),                                                      \
		     "attach fentry/fexit only, however long attaching takes",                   \
		     .group = NTP_RECORD_CLI_GROUP_FLAVOUR)

/* the entries of an option table, for c: what is recorded (role, transport, sample, filters) */
#define NTP_RECORD_CLI_WHAT(c)                                                                  \
	NTP_RECORD_CLI_ROLE_TRANSPORT(&(c)->role, &(c)->transport),                              \
	NTP_OPT_UINT('s', "sample", &(c)->sample, "N",                                           \
		     "record one command in N (default 1000)", 1, 1ULL << 31),                   \
	NTP_RECORD_CLI_FILTERS(&(c)->session, &(c)->io_type, &(c)->sizes)

/* ... and how: the hooks' flavour, the application's side, the verbosity */
#define NTP_RECORD_CLI_HOW(c)                                                                   \
	NTP_RECORD_CLI_FLAVOUR(&(c)->kprobes, &(c)->fentry),                                     \
	NTP_OPT_BOOL(0, "no-app", &(c)->no_app,                                                  \
		     "not the application's side: no h_app_* stamps, pid or comm (host; cheaper)"),\
	NTP_OPT_INCR('v', "verbose", &(c)->verbose, "say more, libbpf's log included; as ntprof -v")

/*
 * The filters given (NULL: not given) into f, checked (the namespace
 * looked up): 0, or the filter's NTP_EXIT_* code after one line.
 */
int ntp_record_cli__filter(struct ntp_filter *f, const char *session, const char *io_type,
			   const char *sizes);
/* the attach policy of --kprobes and --fentry */
enum ntp_attach_policy ntp_record_cli__attach(bool kprobes, bool fentry);

/*
 * What was given into o: the role, transport, sample rate, filters (o
 * points into c), attach policy and --no-app; -v added to the verbosity.
 * The filters are checked (the namespace looked up) here, before anything
 * is loaded.  0, or NTP_EXIT_USAGE (or the filter's code) after one line.
 */
int ntp_record_cli__apply(struct ntp_record_cli *c, struct ntp_record_opts *o);

#endif
