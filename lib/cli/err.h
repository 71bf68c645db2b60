/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages to people.  Errors and warnings go to stderr as
 * "ntprof <cmd>: error: <what>: <why>", one line each.
 */
#ifndef NTP_ERR_H
#define NTP_ERR_H

#include <stdarg.h>
#include <stdbool.h>
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

/*
 * On the calling thread, errors are held instead of printed: the first
 * one's text (what followed "error: ") goes into buf, which is emptied
 * now; the others are dropped, and none becomes ntp_err__last.  For checks
 * run at once on several threads whose failures must be told as a run one
 * after another would tell them: the caller prints the first failing
 * check's held text with ntp_error("%s", buf).  len 0 prints them again.
 */
void ntp_err__hold(char *buf, size_t len);

/*
 * Errors and warnings of every thread held instead of printed, from
 * ntp_err__defer() (a second call changes nothing) to ntp_err__undefer(),
 * which gives the first error's text (empty when none), prints the
 * warnings held when warnings is true (else drops them), and prints again;
 * no held error becomes ntp_err__last.  A thread's own hold (ntp_err__hold)
 * comes first.  For a reader whose files are still being checked: damage
 * the check finds is the one thing to tell, not what the damage made the
 * reader say (lib/model/model_source.h, ntp_source__verdict).
 */
void ntp_err__defer(void);
void ntp_err__undefer(char *buf, size_t len, bool warnings);
/* between ntp_err__defer() and ntp_err__undefer() */
bool ntp_err__deferring(void);

void ntp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ntp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ntp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* "ntprof <cmd>: ..." at verbosity >= 1 */
void ntp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* only at verbosity >= 2 */

#endif
