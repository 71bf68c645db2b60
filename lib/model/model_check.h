/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks a set of recordings passes before anything is read from it
 * (model_files.c makes them once, for every reader): each file's own
 * (lib/ntp/db_read.h), its meta, and whether the set can be joined.
 */
#ifndef NTP_MODEL_CHECK_H
#define NTP_MODEL_CHECK_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/join/join_types.h"

/* one file twice is a slip of the command line, not a join: NTP_EXIT_USAGE after one line */
int ntp_model__check_twice(const char *const *paths, int n);

/*
 * paths[0..n) checked as the reader checks a file, one after another;
 * host_rows[i] host_io's rows, which the check counts.  The first failure
 * in file order is printed and returned.  0 or an NTP_EXIT_* code.
 */
int ntp_model__check_files(const char *const *paths, int n, int64_t *host_rows);

/*
 * A recording alone must have meta rows (ntprof record writes them before
 * any command): 0, or NTP_EXIT_CORRUPT after one line.
 */
int ntp_model__check_meta(sqlite3 *db, const char *path);

/*
 * The files ATTACHed to db can be joined: known roles (files[i].role and
 * .sides are set from them), equal values of the meta keys that must
 * agree, a host side and a target side, a joined recording alone, and a
 * target side's tables.  NTP_EXIT_MISMATCH after one line, else 0.
 */
int ntp_model__check_joinable(sqlite3 *db, struct ntp_join_file *files, int n);

#endif
