/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages to people.  Errors and warnings go to stderr as
 * "ntprof <cmd>: error: <what>: <why>", one line each.
 */
#ifndef NTP_ERR_H
#define NTP_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* the subcommand named in every message ("record", "report", ...) */
void ntp_err__set_cmd(const char *cmd);
const char *ntp_err__cmd(void);

/* 0 quiet, 1 normal, 2+ verbose (-v): libbpf's log is shown from 2 */
/* messages to f instead of stderr (NULL: stderr again), e.g. a fuzzer's /dev/null */
void ntp_err__set_stream(FILE *f);
void ntp_err__set_verbosity(int level);
int ntp_err__verbosity(void);

/*
 * The text of the last ntp_error() (what followed "error: "), copied into
 * buf (cut to len - 1 bytes); returns its length, 0 when none since the
 * start or the last clear.  The JSON error document carries it.
 */
size_t ntp_err__last(char *buf, size_t len);
void ntp_err__clear_last(void);

void ntp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ntp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ntp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* "ntprof <cmd>: ..." at verbosity >= 1 */
void ntp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* only at verbosity >= 2 */

#endif
