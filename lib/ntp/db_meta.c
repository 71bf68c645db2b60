// SPDX-License-Identifier: GPL-2.0
/* The meta keys of a recording, and their typed accessors (lib/ntp/db_meta.h). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/fmt/safe_text.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"

const struct ntp_meta_desc ntp_meta[NTP_META_MAX] = {
	[NTP_META_ROLE] = { "role", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_TRANSPORT] = { "transport", NTP_META_TEXT, NTP_META_AT_START,
				 "transport", "both sides must record the same transport (-t)" },
	[NTP_META_SAMPLE_ONE_IN] = { "sample_one_in", NTP_META_INT, NTP_META_AT_START,
				     "sample rate one in", "record both sides with the same -s" },
	[NTP_META_HASH_VERSION] = { "hash_version", NTP_META_INT, NTP_META_AT_START,
				    "sampling hash version",
				    "record both sides with the same ntprof version", NTP_EXIT_HASH },
	[NTP_META_KERNEL_RELEASE] = { "kernel_release", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_HOSTNAME] = { "hostname", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_BOOT_ID] = { "boot_id", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_START_REALTIME_NS] = { "start_realtime_ns", NTP_META_INT, NTP_META_AT_START },
	[NTP_META_START_NS] = { "start_ns", NTP_META_INT, NTP_META_AT_START },
	[NTP_META_COMMAND_LINE] = { "command_line", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_NTPROF_VERSION] = { "ntprof_version", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_FILTER_SESSION] = { "filter_session", NTP_META_TEXT, NTP_META_IF_GIVEN },
	[NTP_META_FILTER_IO_TYPE] = { "filter_io_type", NTP_META_TEXT, NTP_META_IF_GIVEN },
	[NTP_META_FILTER_SIZES] = { "filter_sizes", NTP_META_TEXT, NTP_META_IF_GIVEN },
	[NTP_META_STOP_NS] = { "stop_ns", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_DURATION_NS] = { "duration_ns", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_STOP_REASON] = { "stop_reason", NTP_META_TEXT, NTP_META_AT_STOP },
	/* ntprof's own cost: at the stop, when the kernel kept the BPF statistics */
	[NTP_META_BPF_RUNS] = { "bpf_runs", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_BPF_RUN_NS] = { "bpf_run_ns", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_BPF_COMMANDS] = { "bpf_commands", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_BPF_WINDOW_NS] = { "bpf_window_ns", NTP_META_INT, NTP_META_AT_STOP },
	/* a wall-clock start as text, from writers other than record: shown as it is */
	[NTP_META_START_TIME] = { "start_time", NTP_META_TEXT, NTP_META_NEVER },
	/*
	 * Each side's cross-check, at the stop: the I/O commands counted apart
	 * from the decision; and the kprobe hits the kernel skipped, where
	 * kprobes were attached and the kernel tells (6.7+)
	 */
	[NTP_META_HOST_FABRIC_COMMANDS] = { "host_fabric_commands", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_TARGET_FABRIC_COMMANDS] = { "target_fabric_commands", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_HOST_KPROBE_MISSED] = { "host_kprobe_missed", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_TARGET_KPROBE_MISSED] = { "target_kprobe_missed", NTP_META_INT, NTP_META_AT_STOP },
	/* the runs of the side's programs the kernel skipped (their recursion misses) */
	[NTP_META_HOST_PROG_MISSED] = { "host_prog_missed", NTP_META_INT, NTP_META_AT_STOP },
	[NTP_META_TARGET_PROG_MISSED] = { "target_prog_missed", NTP_META_INT, NTP_META_AT_STOP },
	/*
	 * The host's queues, the capacity the diagnosis holds their commands
	 * in flight against (ntprof-report(1), DIAGNOSIS): each recorded
	 * controller's I/O queues and their depth, "nvme0=2 nvme1=4" and
	 * "nvme0=128 nvme1=128", from sysfs at the start; the controller
	 * resets seen while recording, at the stop
	 */
	[NTP_META_HOST_IO_QUEUES] = { "host_io_queues", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_HOST_QUEUE_DEPTH] = { "host_queue_depth", NTP_META_TEXT, NTP_META_AT_START },
	[NTP_META_HOST_CTRL_RESETS] = { "host_ctrl_resets", NTP_META_INT, NTP_META_AT_STOP },
	/* the commands taken from the spool into the file, with them (lib/ntp/db_write.c) */
	[NTP_META_SPOOLED] = { "spooled", NTP_META_INT, NTP_META_AT_STOP },
	/*
	 * A flight recorder's snapshot (ntprof monitor --flight): what asked
	 * for it ("SIGUSR2", "POST /snapshot", "trigger e2e.p99>5ms: 7.1 ms"),
	 * the window it keeps, and the commands of the window the recorder's
	 * size bound pushed out (0: the snapshot holds every sampled command
	 * of its window)
	 */
	[NTP_META_FLIGHT_SNAPSHOT] = { "flight_snapshot", NTP_META_TEXT, NTP_META_AT_SNAPSHOT },
	[NTP_META_FLIGHT_WINDOW_NS] = { "flight_window_ns", NTP_META_INT, NTP_META_AT_SNAPSHOT },
	[NTP_META_FLIGHT_DROPPED] = { "flight_dropped", NTP_META_INT, NTP_META_AT_SNAPSHOT },
};

/* where a value is: schema's meta, or the meta a joined recording keeps of its target side */
static const char *const meta_from[] = {
	"SELECT value FROM \"%s\".meta WHERE key = ?1",
	"SELECT value FROM \"%s\".join_meta WHERE side = 'target' AND key = ?1",
};

/* the value of key in schema's meta (from) as text (caller frees), NULL when absent */
static char *meta_text(sqlite3 *db, const char *schema, int from, const char *key)
{
	char sql[128];
	sqlite3_stmt *st;
	char *v = NULL;

	snprintf(sql, sizeof(sql), meta_from[from], schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		if (t)
			v = strdup((const char *)t);
	}
	sqlite3_finalize(st);
	return v;
}

/* the value of key in schema's meta (from) as an integer, def when absent or not one */
static int64_t meta_int(sqlite3 *db, const char *schema, int from, const char *key, int64_t def)
{
	sqlite3_stmt *st;
	int64_t v = def;
	char sql[128];

	snprintf(sql, sizeof(sql), meta_from[from], schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return def;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		switch (sqlite3_column_type(st, 0)) {
		case SQLITE_INTEGER:
			v = sqlite3_column_int64(st, 0);
			break;
		case SQLITE_TEXT: {
			/* a number written as text still counts, but only all of it */
			const char *t = (const char *)sqlite3_column_text(st, 0);
			char *end;
			long long x;

			if (!t)
				break;
			errno = 0;
			x = strtoll(t, &end, 10);
			if (end != t && !*end && !errno)
				v = x;
			break;
		}
		default:
			break;
		}
	}
	sqlite3_finalize(st);
	return v;
}

char *ntp_meta__text(sqlite3 *db, enum ntp_meta_key k)
{
	return ntp_meta__text_in(db, "main", k);
}

int64_t ntp_meta__int(sqlite3 *db, enum ntp_meta_key k, int64_t def)
{
	return ntp_meta__int_in(db, "main", k, def);
}

static char *text_in(sqlite3 *db, const char *schema, int from, enum ntp_meta_key k)
{
	char *v;

	assert(k < NTP_META_MAX && ntp_meta[k].type == NTP_META_TEXT);
	v = meta_text(db, schema, from, ntp_meta[k].key);
	/* a field of one line in every report: a file cannot forge lines or escapes */
	return v ? ntp_safe__clean_line(v) : NULL;
}

static int64_t int_in(sqlite3 *db, const char *schema, int from, enum ntp_meta_key k,
		      int64_t def)
{
	assert(k < NTP_META_MAX && ntp_meta[k].type == NTP_META_INT);
	return meta_int(db, schema, from, ntp_meta[k].key, def);
}

char *ntp_meta__text_in(sqlite3 *db, const char *schema, enum ntp_meta_key k)
{
	return text_in(db, schema, 0, k);
}

int64_t ntp_meta__int_in(sqlite3 *db, const char *schema, enum ntp_meta_key k, int64_t def)
{
	return int_in(db, schema, 0, k, def);
}

char *ntp_meta__target_text_in(sqlite3 *db, const char *schema, enum ntp_meta_key k)
{
	return text_in(db, schema, 1, k);
}

int64_t ntp_meta__target_int_in(sqlite3 *db, const char *schema, enum ntp_meta_key k,
				int64_t def)
{
	return int_in(db, schema, 1, k, def);
}
