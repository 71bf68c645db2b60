/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The read filters' options (model_filter.h says what each filters): their
 * callbacks, the entries report's, compare's, series' and dump's option
 * tables share, and the filters said as those options.
 */
#ifndef NTP_MODEL_FILTER_OPT_H
#define NTP_MODEL_FILTER_OPT_H

#include "lib/cli/opt.h"
#include "lib/model/model_filter.h"

/* the option callbacks; opt->value is the struct ntp_read_filter */
int ntp_read_filter__opt_session(const struct ntp_option *opt, const char *arg);
int ntp_read_filter__opt_io_type(const struct ntp_option *opt, const char *arg);
int ntp_read_filter__opt_size(const struct ntp_option *opt, const char *arg);
int ntp_read_filter__opt_qid(const struct ntp_option *opt, const char *arg);
int ntp_read_filter__opt_time(const struct ntp_option *opt, const char *arg);

/* the filters as their options ("--session nvme0n1 --size 4096"), into buf */
void ntp_read_filter__describe(const struct ntp_read_filter *f, char *buf, size_t len);

/*
 * The five entries of report's, compare's and dump's option tables, one
 * definition: long options only, as record's (-s, -t, -q... mean other
 * things in other commands).
 */
#define NTP_READ_FILTER_OPTIONS(f) \
	NTP_OPT_CALLBACK(0, "session", (f), "NAME[,NAME]", \
			 "only commands of these namespaces or paths (a target alone: devices)", \
			 ntp_read_filter__opt_session), \
	NTP_OPT_CALLBACK(0, "io-type", (f), "TYPE[,TYPE]", \
			 "only these I/O types: read, write, other", ntp_read_filter__opt_io_type, \
			 .values = (const char *const[]){ "read", "write", "other", NULL }), \
	NTP_OPT_CALLBACK(0, "size", (f), "SIZES", \
			 "only these I/O sizes, comma-separated (e.g. 4K,128K)", \
			 ntp_read_filter__opt_size), \
	NTP_OPT_CALLBACK(0, "qid", (f), "QID[,QID]", \
			 "only these queues: ids or ranges, e.g. 1-4,7", ntp_read_filter__opt_qid), \
	NTP_OPT_CALLBACK(0, "time", (f), "START,END", \
			 "only commands started in [START, END) s from the recording's start " \
			 "(either may be empty)", ntp_read_filter__opt_time)

#endif
