// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder without a kernel: its window (lib/monitor/mon_flight.c)
 * fed records as the ring buffer hands them over, and its snapshot
 * (lib/monitor/mon_snapshot.c) written into a directory and read back with
 * the readers' own open (lib/ntp/db_read.h): a finished recording whose
 * rows are the window's records and whose meta says what it is.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "lib/cli/exit.h"
#include "lib/collect/collector.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"
#include "lib/monitor/mon_flight.h"
#include "lib/monitor/mon_snapshot.h"

#define MS 1000000ULL
#define T0 (5000 * MS)

/* host command i: completed at T0 + i ms, its stages 100 us each */
static struct ntp_host_event host(uint64_t i)
{
	uint64_t done = T0 + i * MS;
	struct ntp_host_event e = {
		.kind = NTP_EV_HOST_IO, .h_start = done - 400000, .h_queue = done - 300000,
		.h_cmd_sent = done - 250000, .h_recv = done - 100000, .h_done = done,
		.bytes = 4096, .nsid = 1, .cid = (__u16)i, .qid = 1, .opcode = 2, .ctrl_instance = 0,
		.slba = i,
	};
	return e;
}

static struct ntp_target_event target(uint64_t i, bool sent)
{
	uint64_t cmpl = T0 + i * MS;
	struct ntp_target_event e = {
		.kind = NTP_EV_TARGET_IO, .t_recv = cmpl - 200000, .t_submit = cmpl - 150000,
		.t_cmpl = cmpl, .t_sent = sent ? cmpl + 10000 : 0, .bytes = 4096, .nsid = 1,
		.cid = (__u16)i, .qid = 1, .cntlid = 1, .opcode = 2, .slba = i,
	};
	return e;
}

static void window__old_records_trimmed__young_kept(void **state)
{
	struct ntp_flight f;
	uint64_t i;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 100 * MS, 1000), 0);
	for (i = 0; i < 300; i++) {
		struct ntp_host_event h = host(i);
		struct ntp_target_event t = target(i, i % 2);

		ntp_flight__add_host(&f, &h);
		ntp_flight__add_target(&f, &t);
	}
	/* now T0 + 300 ms: the window holds what completed from T0 + 200 ms on */
	ntp_flight__trim(&f, T0 + 300 * MS);
	assert_int_equal(f.host.n, 100);
	assert_int_equal(ntp_flight__host(&f, 0)->h_done, T0 + 200 * MS);
	assert_int_equal(ntp_flight__host(&f, 99)->h_done, T0 + 299 * MS);
	assert_null(ntp_flight__host(&f, 100));
	/* the target's completion is t_sent, or t_cmpl where the response was not seen */
	assert_int_equal(f.target.n, 100);
	assert_int_equal(ntp_flight__target(&f, 0)->t_cmpl, T0 + 200 * MS);
	assert_int_equal(f.host.dropped + f.target.dropped, 0);
	assert_int_equal(f.host.added, 300);
	ntp_flight__free(&f);
}

static void window__bound__oldest_pushed_out_and_counted(void **state)
{
	struct ntp_flight f;
	uint64_t i;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 3600000 * MS, 64), 0);
	for (i = 0; i < 1000; i++) {
		struct ntp_host_event h = host(i);

		ntp_flight__add_host(&f, &h);
	}
	ntp_flight__trim(&f, T0 + 1000 * MS);
	assert_int_equal(f.host.n, 64);
	assert_int_equal(f.host.dropped, 1000 - 64);
	for (i = 0; i < 64; i++)
		assert_int_equal(ntp_flight__host(&f, i)->cid, 1000 - 64 + i);
	ntp_flight__free(&f);
}

/* tick at T0 + ms: every counter of side s at ms x (s + 1) */
static struct ntp_flight_tick tick(uint64_t ms)
{
	struct ntp_flight_tick t = { .t_ns = T0 + ms * MS };
	int s;

	for (s = 0; s < 2; s++) {
		t.seen[s] = 10 * ms * (uint64_t)(s + 1);
		t.sampled[s] = ms * (uint64_t)(s + 1);
		t.lost_ringbuf[s] = ms / 100;
		t.lost_map[s] = ms / 50;
	}
	return t;
}

static void ticks__trimmed_to_the_one_before_the_window(void **state)
{
	struct ntp_flight f;
	uint64_t ms;

	(void)state;
	/* a window of 2.5 s: 5 ticks of the counters, a second apart */
	assert_int_equal(ntp_flight__init(&f, 2500 * MS, 10), 0);
	for (ms = 0; ms <= 10000; ms += 1000) {
		struct ntp_flight_tick t = tick(ms);

		ntp_flight__tick(&f, &t);
	}
	/* fewer kept than given: the ring's bound (a tick a second, and three) */
	assert_int_equal(f.ntick, 5);
	assert_int_equal(ntp_flight__tick_at(&f, 0)->t_ns, T0 + 6000 * MS);
	ntp_flight__trim(&f, T0 + 10000 * MS);
	/* the window starts at 7.5 s: the tick of 7 s begins its first interval */
	assert_int_equal(f.ntick, 4);
	assert_int_equal(ntp_flight__tick_at(&f, 0)->t_ns, T0 + 7000 * MS);
	assert_int_equal(ntp_flight__tick_at(&f, 3)->t_ns, T0 + 10000 * MS);
	assert_null(ntp_flight__tick_at(&f, 4));
	ntp_flight__free(&f);
}

static void window__no_room__refused(void **state)
{
	struct ntp_flight f;

	(void)state;
	assert_int_not_equal(ntp_flight__init(&f, MS, 0), 0);
}

static char dir[] = "/tmp/ntprof-flight-XXXXXX";

static int setup_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ntprof-flight-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512];

	(void)state;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))) {
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	return rmdir(dir);
}

/* the names in dir, sorted and space-separated; how many */
static int entries(char *out, size_t len)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, alphasort), i, k = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			snprintf(out + strlen(out), len - strlen(out), "%s%s", k++ ? " " : "", v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return k;
}

static int64_t count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void snapshot__window_written__a_finished_recording(void **state)
{
	/* a side with no hooks to write: what the snapshot takes of a collector */
	static const struct ntp_collector side = { .name = "host" };
	struct ntp_flight f;
	struct ntp_snapshot_meta m = {
		.role = "both", .transport = NTP_TRANSPORT_TCP, .sample_one_in = 1,
		.command_line = "ntprof monitor -r both --flight DIR", .reason = "SIGUSR2",
		.start_ns = T0 + 200 * MS, .stop_ns = T0 + 300 * MS, .start_realtime_ns = 1,
		.host = &side, .target = &side,
	};
	char path[512], names[512], *text;
	sqlite3 *db;
	uint64_t i;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 100 * MS, 5000), 0);
	for (i = 0; i <= 300; i += 50) {
		struct ntp_flight_tick t = tick(i);

		ntp_flight__tick(&f, &t);
	}
	/* more than a batch of rows, so that the writer flushes on the way */
	for (i = 0; i < 9000; i++) {
		struct ntp_host_event h = host(i / 30);
		struct ntp_target_event t = target(i / 30, true);

		ntp_flight__add_host(&f, &h);
		ntp_flight__add_target(&f, &t);
	}
	ntp_flight__trim(&f, T0 + 300 * MS);
	assert_int_equal(f.host.n, 3000);       /* 100 ms of 30 a ms */
	assert_int_equal(ntp_snapshot__write(&f, &m, dir, "flight-1.ntp"), 0);
	/* published whole: the file alone, nothing beside it */
	assert_int_equal(entries(names, sizeof(names)), 1);
	assert_string_equal(names, "flight-1.ntp");

	snprintf(path, sizeof(path), "%s/flight-1.ntp", dir);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(count(db, "SELECT count(*) FROM host_io"), 3000);
	assert_int_equal(count(db, "SELECT count(*) FROM target_io"), 3000);
	assert_int_equal(count(db, "SELECT min(e2e_ns) FROM host_stages"), 400000);
	assert_int_equal(count(db, "SELECT max(e2e_ns) FROM host_stages"), 400000);
	/* record's intervals: each side's counters from the tick at 200 ms (the window's start) */
	assert_int_equal(count(db, "SELECT count(*) FROM intervals"), 4);
	assert_int_equal(count(db, "SELECT sum(seen) FROM intervals WHERE side = 'host'"), 1000);
	assert_int_equal(count(db, "SELECT sum(sampled) FROM intervals WHERE side = 'target'"), 200);
	assert_int_equal(count(db, "SELECT sum(lost_ringbuf) FROM intervals WHERE side = 'host'"), 1);
	assert_int_equal(count(db, "SELECT sum(lost_map) FROM intervals WHERE side = 'target'"), 2);
	assert_int_equal(count(db, "SELECT min(t_ns) FROM intervals"), T0 + 250 * MS);
	text = ntp_meta__text(db, NTP_META_FLIGHT_SNAPSHOT);
	assert_string_equal(text, "SIGUSR2");
	free(text);
	text = ntp_meta__text(db, NTP_META_ROLE);
	assert_string_equal(text, "both");
	free(text);
	text = ntp_meta__text(db, NTP_META_STOP_REASON);
	assert_string_equal(text, "flight snapshot");
	free(text);
	assert_int_equal(ntp_meta__int(db, NTP_META_FLIGHT_WINDOW_NS, -1), 100 * MS);
	assert_int_equal(ntp_meta__int(db, NTP_META_FLIGHT_DROPPED, -1), 2 * (9000 - 5000));
	assert_int_equal(ntp_meta__int(db, NTP_META_DURATION_NS, -1), 100 * MS);
	assert_int_equal(ntp_meta__int(db, NTP_META_SAMPLE_ONE_IN, -1), 1);
	sqlite3_close(db);
	ntp_flight__free(&f);
}

static void snapshot__empty_window__a_recording_without_commands(void **state)
{
	struct ntp_flight f;
	struct ntp_snapshot_meta m = {
		.role = "host", .transport = NTP_TRANSPORT_TCP, .sample_one_in = 1000,
		.reason = "POST /snapshot", .start_ns = T0, .stop_ns = T0 + MS,
	};
	char path[512];
	sqlite3 *db;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, MS, 10), 0);
	assert_int_equal(ntp_snapshot__write(&f, &m, dir, "empty.ntp"), 0);
	snprintf(path, sizeof(path), "%s/empty.ntp", dir);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(count(db, "SELECT count(*) FROM host_io"), 0);
	sqlite3_close(db);
	ntp_flight__free(&f);
}

static void snapshot__directory_gone__failure_and_nothing_published(void **state)
{
	struct ntp_flight f;
	struct ntp_snapshot_meta m = { .role = "host", .reason = "SIGUSR2" };
	char gone[600];

	(void)state;
	snprintf(gone, sizeof(gone), "%s/no-such-dir", dir);
	assert_int_equal(ntp_flight__init(&f, MS, 10), 0);
	assert_int_equal(ntp_snapshot__write(&f, &m, gone, "x.ntp"), NTP_EXIT_FAILURE);
	assert_int_equal(access(gone, F_OK), -1);
	ntp_flight__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window__old_records_trimmed__young_kept),
		cmocka_unit_test(window__bound__oldest_pushed_out_and_counted),
		cmocka_unit_test(window__no_room__refused),
		cmocka_unit_test(ticks__trimmed_to_the_one_before_the_window),
		cmocka_unit_test_setup_teardown(snapshot__window_written__a_finished_recording,
						setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(snapshot__empty_window__a_recording_without_commands,
						setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(snapshot__directory_gone__failure_and_nothing_published,
						setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
