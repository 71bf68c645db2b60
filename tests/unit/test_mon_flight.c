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

/* host command i of e2e_us: completed at T0 + done_ms */
static struct ntp_host_event slow_host(uint64_t i, uint64_t done_ms, uint64_t e2e_us)
{
	struct ntp_host_event e = host(i);

	e.h_done = T0 + done_ms * MS;
	e.h_start = e.h_done - e2e_us * 1000;
	e.h_queue = e.h_cmd_sent = e.h_recv = e.h_start;
	return e;
}

static void window__old_records_trimmed__young_kept(void **state)
{
	struct ntp_flight f;
	uint64_t i;

	(void)state;
	/* intervals of 10 ms, room for all */
	assert_int_equal(ntp_flight__init(&f, 100 * MS, 10 * MS, 1000), 0);
	for (i = 0; i < 300; i++) {
		struct ntp_host_event h = host(i);
		struct ntp_target_event t = target(i, i % 2);

		ntp_flight__add_host(&f, &h);
		ntp_flight__add_target(&f, &t);
	}
	/* now T0 + 300 ms: the window holds what completed from T0 + 200 ms on */
	ntp_flight__trim(&f, T0 + 300 * MS);
	assert_int_equal(f.host.held, 100);
	assert_int_equal(ntp_flight__host(&f, 0)->h_done, T0 + 200 * MS);
	assert_int_equal(ntp_flight__host(&f, 99)->h_done, T0 + 299 * MS);
	assert_null(ntp_flight__host(&f, 100));
	/* the target's completion is t_sent, or t_cmpl where the response was not seen */
	assert_int_equal(f.target.held, 100);
	assert_int_equal(ntp_flight__target(&f, 0)->t_cmpl, T0 + 200 * MS);
	assert_int_equal(ntp_flight__dropped(&f), 0);
	assert_int_equal(f.host.added, 300);
	ntp_flight__free(&f);
}

static int by_e2e_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void interval__more_than_its_bound__the_slowest_kept(void **state)
{
	uint64_t e2e[1000], kept[64];
	struct ntp_flight_cursor c = { 0 };
	const struct ntp_host_event *h;
	struct ntp_flight f;
	size_t i, n = 0;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 3600000 * MS, 1000 * MS, 64), 0);
	/* one interval, 1000 commands in a shuffled order of e2e (7919 is prime to 1000) */
	for (i = 0; i < 1000; i++) {
		struct ntp_host_event e = slow_host(i, 500, 1 + (i * 7919) % 1000);

		e2e[i] = e.h_done - e.h_start;
		ntp_flight__add_host(&f, &e);
	}
	assert_int_equal(f.host.held, 64);
	assert_int_equal(f.host.dropped, 1000 - 64);
	assert_int_equal(ntp_flight__dropped(&f), 1000 - 64);
	while ((h = ntp_flight__next_host(&f, &c)))
		kept[n++] = h->h_done - h->h_start;
	assert_int_equal(n, 64);
	qsort(e2e, 1000, sizeof(e2e[0]), by_e2e_desc);
	qsort(kept, 64, sizeof(kept[0]), by_e2e_desc);
	for (i = 0; i < 64; i++)
		assert_int_equal(kept[i], e2e[i]);
	ntp_flight__free(&f);
}

static void interval__each_its_own_slowest__oldest_first(void **state)
{
	struct ntp_flight_cursor c = { 0 };
	const struct ntp_host_event *h;
	struct ntp_flight f;
	uint64_t i, last_iv = 0, per_iv[8] = { 0 };

	(void)state;
	/* a window of 5 intervals of 100 ms, 3 commands of each kept */
	assert_int_equal(ntp_flight__init(&f, 500 * MS, 100 * MS, 3), 0);
	/* 8 intervals; the second's commands all slower than any other's */
	for (i = 0; i < 800; i++) {
		struct ntp_host_event e = slow_host(i, i, (i / 100 == 1 ? 1000 : 0) + i % 100 + 1);

		ntp_flight__add_host(&f, &e);
	}
	/* the slots are reused: 5 intervals and the one being filled are kept at most */
	assert_int_equal(f.host.held, 6 * 3);
	ntp_flight__trim(&f, T0 + 800 * MS);
	/* the window starts at 300 ms: intervals 3 to 7 */
	assert_int_equal(f.host.held, 5 * 3);
	while ((h = ntp_flight__next_host(&f, &c))) {
		uint64_t ms = (h->h_done - T0) / MS, iv = ms / 100;

		assert_true(iv >= last_iv);
		last_iv = iv;
		per_iv[iv]++;
		/* the interval's three slowest: its last three */
		assert_true(ms % 100 >= 97);
	}
	for (i = 3; i < 8; i++)
		assert_int_equal(per_iv[i], 3);
	ntp_flight__free(&f);
}

static void interval__trim_inside_one__the_rest_a_heap_again(void **state)
{
	struct ntp_flight f;
	uint64_t i;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 1000 * MS, 1000 * MS, 10), 0);
	/* in one interval, the slower the later */
	for (i = 0; i < 10; i++) {
		struct ntp_host_event e = slow_host(i, 100 + i * 10, 100 + i);

		ntp_flight__add_host(&f, &e);
	}
	/* the window from 150 ms: five left, the fastest of them (e2e 105 us) first out */
	ntp_flight__trim(&f, T0 + 1150 * MS);
	assert_int_equal(f.host.held, 5);
	for (i = 0; i < 5; i++) {
		struct ntp_host_event e = slow_host(20 + i, 900, 106 + i);

		ntp_flight__add_host(&f, &e);
	}
	assert_int_equal(f.host.held, 10);
	{
		struct ntp_host_event e = slow_host(30, 900, 200);

		ntp_flight__add_host(&f, &e);
	}
	for (i = 0; i < 10; i++)
		assert_true(ntp_flight__host(&f, i)->h_done - ntp_flight__host(&f, i)->h_start !=
			    105000);
	assert_int_equal(f.host.dropped, 1);
	ntp_flight__free(&f);
}

static void interval__record_older_than_the_window__late(void **state)
{
	struct ntp_flight f;
	struct ntp_host_event a = slow_host(0, 5000, 10), b = slow_host(1, 1000, 10);

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 2000 * MS, 1000 * MS, 10), 0);
	ntp_flight__add_host(&f, &a);
	/* 4 intervals before, in the slot that interval 5's now holds... */
	b.h_done = T0 + 2000 * MS;
	b.h_start = b.h_done - 10000;
	ntp_flight__add_host(&f, &b);
	assert_int_equal(f.host.late, 1);
	assert_int_equal(f.host.held, 1);
	assert_int_equal(ntp_flight__dropped(&f), 1);
	ntp_flight__free(&f);
}

/*
 * The bound whatever the rate: 100 intervals of 100000 commands each
 * against a bound of 10 an interval; what is held never passes
 * nslot x 10, and every command offered is held or counted
 */
static void bound__rate_far_above_it__held_bounded_and_counted(void **state)
{
	struct ntp_flight f;
	uint64_t i, most = 0;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 3000 * MS, 1000 * MS, 10), 0);
	for (i = 0; i < 100 * 100000ULL; i++) {
		struct ntp_host_event e = slow_host(i, i / 100, 1 + (i * 7919) % 100000);

		ntp_flight__add_host(&f, &e);
		if (i % 1000 == 0)
			ntp_flight__trim(&f, T0 + (i / 100) * MS);
		if (f.host.held > most)
			most = f.host.held;
	}
	assert_true(most <= 4 * 10);
	assert_int_equal(f.host.held + f.host.aged + f.host.dropped + f.host.late, f.host.added);
	/* of each of 100 intervals 10 kept: the rest dropped */
	assert_int_equal(f.host.dropped, 100 * (100000 - 10));
	assert_int_equal(f.host.added, 100 * 100000ULL);
	ntp_flight__free(&f);
}

/* one side's slots, byte for byte: records, counts and intervals */
static void assert_side_equal(const struct ntp_flight_side *a, const struct ntp_flight_side *b)
{
	assert_int_equal(a->held, b->held);
	assert_memory_equal(a->n, b->n, a->nslot * sizeof(*a->n));
	assert_memory_equal(a->iv, b->iv, a->nslot * sizeof(*a->iv));
	assert_memory_equal(a->buf, b->buf, a->nslot * a->cap * a->esz);
}

/*
 * The kernel's filter (bpf/ntp_mon.h) fed the floor as user space writes it
 * before each record: the window it leaves is the window of every record,
 * and what it kept off is what that window dropped
 */
static void floor__filtered_stream__the_same_window(void **state)
{
	struct ntp_flight all, some;
	uint64_t i, x = 12345, filtered = 0;

	(void)state;
	assert_int_equal(ntp_flight__init(&all, 3000 * MS, NTP_FLIGHT_INTERVAL_NS, 16), 0);
	assert_int_equal(ntp_flight__init(&some, 3000 * MS, NTP_FLIGHT_INTERVAL_NS, 16), 0);
	for (i = 0; i < 20000; i++) {
		/* 5 s of commands, a few completed late by up to 1.2 s; e2e of 1..400 us, ties many */
		uint64_t done = i / 4, e2e;
		struct ntp_host_event e;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		e2e = 1 + (x >> 33) % 400;
		if ((x >> 20) % 50 == 0 && done > 1200)
			done -= (x >> 40) % 1200;
		e = slow_host(i, done, e2e);
		ntp_flight__add_host(&all, &e);
		if (ntp_mon_floor_drops(ntp_flight__floor(&some, 0), e.h_start, e.h_done, e.h_recv))
			filtered++;
		else
			ntp_flight__add_host(&some, &e);
	}
	/* the filter did its job: most of the 20000 never crossed */
	assert_true(filtered > 15000);
	assert_side_equal(&all.host, &some.host);
	assert_int_equal(all.host.dropped + all.host.late, some.host.dropped + some.host.late + filtered);
	some.host.filtered = filtered;
	assert_int_equal(ntp_flight__dropped(&all), ntp_flight__dropped(&some));
	ntp_flight__free(&all);
	ntp_flight__free(&some);
}

static void floor__interval_not_full__none(void **state)
{
	struct ntp_flight f;
	struct ntp_target_event t = target(1, true);
	uint64_t i;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 3000 * MS, NTP_FLIGHT_INTERVAL_NS, 4), 0);
	assert_int_equal(ntp_flight__floor(&f, 0), 0);
	for (i = 0; i < 3; i++) {
		struct ntp_host_event e = slow_host(i, 10, 100 + i);

		ntp_flight__add_host(&f, &e);
	}
	assert_int_equal(ntp_flight__floor(&f, 0), 0);
	/* the fourth fills it: the floor is its fastest, 100 us, of interval T0's second */
	{
		struct ntp_host_event e = slow_host(3, 20, 300);

		ntp_flight__add_host(&f, &e);
		assert_int_equal(ntp_flight__floor(&f, 0),
				 ntp_mon_floor_pack(e.h_done / NTP_FLIGHT_INTERVAL_NS + 1, 100000));
		/* a command of that second at or under it is dropped, above it or of the next not */
		assert_true(ntp_mon_floor_drops(ntp_flight__floor(&f, 0), e.h_done - 100000, e.h_done, 0));
		assert_false(ntp_mon_floor_drops(ntp_flight__floor(&f, 0), e.h_done - 100001, e.h_done, 0));
		assert_false(ntp_mon_floor_drops(ntp_flight__floor(&f, 0), e.h_done - 1,
						 e.h_done + NTP_FLIGHT_INTERVAL_NS, 0));
	}
	/* the next second's first command: its interval is not full, no floor */
	{
		struct ntp_host_event e = slow_host(4, 1010, 300);

		ntp_flight__add_host(&f, &e);
		assert_int_equal(ntp_flight__floor(&f, 0), 0);
	}
	/* each side its own */
	ntp_flight__add_target(&f, &t);
	assert_int_equal(ntp_flight__floor(&f, 1), 0);
	ntp_flight__free(&f);
	/* another interval than the kernel's: never a floor */
	assert_int_equal(ntp_flight__init(&f, 3000 * MS, 10 * MS, 1), 0);
	ntp_flight__add_target(&f, &t);
	assert_int_equal(ntp_flight__floor(&f, 1), 0);
	ntp_flight__free(&f);
}

static void floor__above_what_it_holds__clamped_to_drop_less(void **state)
{
	uint64_t done = 300 * NTP_FLIGHT_INTERVAL_NS + 5, iv = 301;  /* 300 s: past the largest floor */
	uint64_t f = ntp_mon_floor_pack(iv, NTP_MON_FLOOR_NS_MAX + 1000);

	(void)state;
	/* 0: no floor, whatever the command */
	assert_false(ntp_mon_floor_drops(0, 1, done, 0));
	assert_true(ntp_mon_floor_drops(f, done - NTP_MON_FLOOR_NS_MAX, done, 0));
	assert_false(ntp_mon_floor_drops(f, done - NTP_MON_FLOOR_NS_MAX - 1, done, 0));
	/* a command without its start ranks 0: dropped under any floor of its interval */
	assert_true(ntp_mon_floor_drops(ntp_mon_floor_pack(iv, 0), 0, done, 0));
	/* its completion from the alternative stamp when the first is missing */
	assert_true(ntp_mon_floor_drops(ntp_mon_floor_pack(iv, 10), done - 10, 0, done));
	assert_false(ntp_mon_floor_drops(ntp_mon_floor_pack(iv + 1, 10), done - 10, 0, done));
}

static void window__no_room__refused(void **state)
{
	struct ntp_flight f;

	(void)state;
	assert_int_not_equal(ntp_flight__init(&f, MS, MS, 0), 0);
	assert_int_not_equal(ntp_flight__init(&f, MS, 0, 10), 0);
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
	assert_int_equal(ntp_flight__init(&f, 2500 * MS, 1000 * MS, 10), 0);
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
	assert_int_equal(ntp_flight__init(&f, 100 * MS, 10 * MS, 250), 0);
	for (i = 0; i <= 300; i += 50) {
		struct ntp_flight_tick t = tick(i);

		ntp_flight__tick(&f, &t);
	}
	/* more than a batch of rows kept, so that the writer flushes on the way */
	for (i = 0; i < 9000; i++) {
		struct ntp_host_event h = host(i / 30);
		struct ntp_target_event t = target(i / 30, true);

		ntp_flight__add_host(&f, &h);
		ntp_flight__add_target(&f, &t);
	}
	ntp_flight__trim(&f, T0 + 300 * MS);
	/* 10 intervals of 10 ms, 300 commands each of one e2e: the first 250 each kept */
	assert_int_equal(f.host.held, 2500);
	assert_int_equal(ntp_snapshot__write(&f, &m, dir, "flight-1.ntp"), 0);
	/* published whole: the file alone, nothing beside it */
	assert_int_equal(entries(names, sizeof(names)), 1);
	assert_string_equal(names, "flight-1.ntp");

	snprintf(path, sizeof(path), "%s/flight-1.ntp", dir);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(count(db, "SELECT count(*) FROM host_io"), 2500);
	assert_int_equal(count(db, "SELECT count(*) FROM target_io"), 2500);
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
	assert_int_equal(ntp_meta__int(db, NTP_META_FLIGHT_DROPPED, -1), 2 * 30 * 50);
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
	assert_int_equal(ntp_flight__init(&f, MS, MS, 10), 0);
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
	assert_int_equal(ntp_flight__init(&f, MS, MS, 10), 0);
	assert_int_equal(ntp_snapshot__write(&f, &m, gone, "x.ntp"), NTP_EXIT_FAILURE);
	assert_int_equal(access(gone, F_OK), -1);
	ntp_flight__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window__old_records_trimmed__young_kept),
		cmocka_unit_test(interval__more_than_its_bound__the_slowest_kept),
		cmocka_unit_test(interval__each_its_own_slowest__oldest_first),
		cmocka_unit_test(interval__trim_inside_one__the_rest_a_heap_again),
		cmocka_unit_test(interval__record_older_than_the_window__late),
		cmocka_unit_test(bound__rate_far_above_it__held_bounded_and_counted),
		cmocka_unit_test(floor__filtered_stream__the_same_window),
		cmocka_unit_test(floor__interval_not_full__none),
		cmocka_unit_test(floor__above_what_it_holds__clamped_to_drop_less),
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
