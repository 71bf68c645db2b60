/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload of `ntprof record -- COMMAND`: started once the programs are
 * attached, watched by the poll loop, stopped when the recording ends.
 */
#ifndef NTP_RECORD_CHILD_H
#define NTP_RECORD_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct ntp_record_child {
	pid_t pid;              /* 0: none, or reaped */
	int status;             /* wait status once reaped */
	bool reaped;
	const char *name;       /* argv[0] */
};

/*
 * Can argv[0] be run (found in $PATH, executable)?  Asked before anything is
 * loaded; 0, or NTP_EXIT_FAILURE after one error line.
 */
int ntp_record_child__check(const char *const *argv);
/*
 * fork + execvp(argv): returns 0 once the program runs, or NTP_EXIT_FAILURE
 * after one error line when it cannot be started (not found, not executable).
 */
int ntp_record_child__start(struct ntp_record_child *c, const char *const *argv);
/* has it exited?  Reaps it without blocking; true once reaped */
bool ntp_record_child__exited(struct ntp_record_child *c);
/* signal it, wait up to grace_s, then SIGKILL; reaps it */
void ntp_record_child__stop(struct ntp_record_child *c, int sig, double grace_s);
/* one line on stderr: "COMMAND exited with status N" / "... killed by signal" */
void ntp_record_child__report(const struct ntp_record_child *c);

#endif
