/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording's meta keys (ntprof-ntp(5), META KEYS), defined once: each
 * key's name, its type, when record writes it, and whether recordings to
 * be joined must agree on it.  record writes them and report reads them
 * through the accessors below, by enum, so a key is spelled and typed in
 * one place; tests/integration/test_meta_keys.py holds the man page to the
 * table.  (perf's feat_ops table is the model.)
 */
#ifndef NTP_DB_META_H
#define NTP_DB_META_H

#include <stdint.h>
#include <sqlite3.h>

struct ntp_writer;

enum ntp_meta_key {
	NTP_META_ROLE,
	NTP_META_TRANSPORT,
	NTP_META_SAMPLE_ONE_IN,
	NTP_META_HASH_VERSION,
	NTP_META_KERNEL_RELEASE,
	NTP_META_HOSTNAME,
	NTP_META_BOOT_ID,
	NTP_META_START_REALTIME_NS,
	NTP_META_START_NS,
	NTP_META_COMMAND_LINE,
	NTP_META_NTPROF_VERSION,
	NTP_META_FILTER_SESSION,
	NTP_META_FILTER_IO_TYPE,
	NTP_META_FILTER_SIZES,
	NTP_META_STOP_NS,
	NTP_META_DURATION_NS,
	NTP_META_STOP_REASON,
	NTP_META_BPF_RUNS,
	NTP_META_BPF_RUN_NS,
	NTP_META_BPF_COMMANDS,
	NTP_META_BPF_WINDOW_NS,
	NTP_META_START_TIME,
	NTP_META_HOST_FABRIC_COMMANDS,
	NTP_META_TARGET_FABRIC_COMMANDS,
	NTP_META_HOST_KPROBE_MISSED,
	NTP_META_TARGET_KPROBE_MISSED,
	NTP_META_HOST_PROG_MISSED,
	NTP_META_TARGET_PROG_MISSED,
	NTP_META_HOST_IO_QUEUES,
	NTP_META_HOST_QUEUE_DEPTH,
	NTP_META_HOST_CTRL_RESETS,
	NTP_META_SPOOLED,
	NTP_META_FLIGHT_SNAPSHOT,
	NTP_META_FLIGHT_WINDOW_NS,
	NTP_META_FLIGHT_DROPPED,
	NTP_META_MAX,
};

enum ntp_meta_type {
	NTP_META_TEXT,
	NTP_META_INT,
};

/* when record writes a key */
enum ntp_meta_when {
	NTP_META_AT_START,        /* once the programs are attached and the file is open */
	NTP_META_AT_STOP,         /* when recording ends: absent from a killed recording */
	NTP_META_IF_GIVEN,        /* at the start, only when its option was given */
	NTP_META_NEVER,           /* not written by record; read where a file has it */
	NTP_META_AT_SNAPSHOT,     /* not by record: by monitor's flight recorder, in its snapshots */
};

struct ntp_meta_desc {
	const char *key;
	enum ntp_meta_type type;
	enum ntp_meta_when when;
	/*
	 * Joined recordings must agree on the key: what a refusal calls it and
	 * the hint it gives; NULL when they need not.  agree_exit: the refusal's
	 * exit code (lib/cli/exit.h), NTP_EXIT_MISMATCH when 0.
	 */
	const char *agree, *agree_hint;
	int agree_exit;
};

extern const struct ntp_meta_desc ntp_meta[NTP_META_MAX];

/* the writer's setters for a key of this table: ntp_meta__set_text/_int, lib/ntp/db_write.h */
/* the reader's getters (lib/ntp/db_read.h): the value (text: caller frees), NULL or def when absent */
char *ntp_meta__text(sqlite3 *db, enum ntp_meta_key k);
int64_t ntp_meta__int(sqlite3 *db, enum ntp_meta_key k, int64_t def);
/* the same of the recording open in db as schema ("main", or an ATTACHed name) */
char *ntp_meta__text_in(sqlite3 *db, const char *schema, enum ntp_meta_key k);
int64_t ntp_meta__int_in(sqlite3 *db, const char *schema, enum ntp_meta_key k, int64_t def);
/*
 * The same of the target side's meta that a joined recording (ntprof join)
 * keeps as it was, in join_meta: NULL or def when the file has none
 */
char *ntp_meta__target_text_in(sqlite3 *db, const char *schema, enum ntp_meta_key k);
int64_t ntp_meta__target_int_in(sqlite3 *db, const char *schema, enum ntp_meta_key k,
				int64_t def);

#endif
