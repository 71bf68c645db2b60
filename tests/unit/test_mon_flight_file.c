// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's window on disk (lib/monitor/mon_flight_file.c): a
 * window synced, then read back by the next monitor's; a file of another
 * geometry or boot started anew; its size fixed whatever the rate.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lib/monitor/mon_flight.h"
#include "lib/monitor/mon_flight_file.h"

#define MS 1000000ULL
#define T0 (5000 * MS)

static char dir[] = "/tmp/ntprof-flight-file-XXXXXX";
static char path[256];

static int setup_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ntprof-flight-file-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, NTP_FLIGHT_FILE_NAME);
	return 0;
}

static int teardown_dir(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

/* host command i: e2e_us long, completed at T0 + done_ms */
static struct ntp_host_event host(uint64_t i, uint64_t done_ms, uint64_t e2e_us)
{
	struct ntp_host_event e = {
		.kind = NTP_EV_HOST_IO, .h_done = T0 + done_ms * MS, .bytes = 4096, .nsid = 1,
		.cid = (__u16)i, .qid = 1, .opcode = 2, .slba = i,
	};

	e.h_start = e.h_queue = e.h_cmd_sent = e.h_recv = e.h_done - e2e_us * 1000;
	return e;
}

static struct ntp_target_event target(uint64_t i, uint64_t done_ms)
{
	struct ntp_target_event e = {
		.kind = NTP_EV_TARGET_IO, .t_sent = T0 + done_ms * MS, .bytes = 4096, .nsid = 1,
		.cid = (__u16)i, .qid = 1, .cntlid = 1, .opcode = 2, .slba = i,
	};

	e.t_recv = e.t_submit = e.t_cmpl = e.t_sent - (i + 1) * 1000;
	return e;
}

/* the sum of the slba of every record kept, each side: which records they are */
static uint64_t slbas(const struct ntp_flight *f)
{
	struct ntp_flight_cursor hc = { 0 }, tc = { 0 };
	const struct ntp_host_event *h;
	const struct ntp_target_event *t;
	uint64_t sum = 0;

	while ((h = ntp_flight__next_host(f, &hc)))
		sum += h->slba * 3 + h->h_done - h->h_start;
	while ((t = ntp_flight__next_target(f, &tc)))
		sum += t->slba * 5;
	return sum;
}

static void file__window_synced__read_back_by_the_next(void **state)
{
	struct ntp_flight f, g;
	struct ntp_flight_file ff, gf;
	uint64_t i, sum;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 3000 * MS, 1000 * MS, 10), 0);
	assert_int_equal(ntp_flight_file__open(&ff, dir, &f, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(ff.loaded, 0);
	/* 2.5 intervals of 100 commands a side: 10 kept of each */
	for (i = 0; i < 250; i++) {
		struct ntp_host_event h = host(i, i * 10, 1 + (i * 37) % 100);
		struct ntp_target_event t = target(i, i * 10);

		ntp_flight__add_host(&f, &h);
		ntp_flight__add_target(&f, &t);
	}
	assert_int_equal(ntp_flight_file__sync(&ff, &f), 0);
	sum = slbas(&f);
	assert_int_equal(f.host.held, 30);
	ntp_flight_file__close(&ff);
	ntp_flight__free(&f);

	/* the next monitor's window: the same records */
	assert_int_equal(ntp_flight__init(&g, 3000 * MS, 1000 * MS, 10), 0);
	assert_int_equal(ntp_flight_file__open(&gf, dir, &g, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(gf.loaded, 60);
	/* from the first interval's start */
	assert_int_equal(gf.loaded_since_ns, T0);
	assert_int_equal(g.host.held, 30);
	assert_int_equal(g.target.held, 30);
	assert_int_equal(slbas(&g), sum);
	/* and a heap still: a slower command of the last interval takes the fastest's place */
	{
		struct ntp_host_event h = host(1000, 2400, 5000);

		ntp_flight__add_host(&g, &h);
	}
	assert_int_equal(g.host.held, 30);
	assert_int_equal(g.host.dropped, 1);
	assert_int_equal(slbas(&g) > sum, 1);
	/* trimmed on the window: the first interval out, written as empty */
	ntp_flight__trim(&g, T0 + 4000 * MS);
	assert_int_equal(g.host.held, 20);
	assert_int_equal(ntp_flight_file__sync(&gf, &g), 0);
	ntp_flight_file__close(&gf);
	ntp_flight__free(&g);
	assert_int_equal(ntp_flight__init(&g, 3000 * MS, 1000 * MS, 10), 0);
	assert_int_equal(ntp_flight_file__open(&gf, dir, &g, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(g.host.held, 20);
	assert_int_equal(g.target.held, 20);
	ntp_flight_file__close(&gf);
	ntp_flight__free(&g);
}

/* a window of cap records a second, one host command of each of 10 seconds, synced */
static void write_one(size_t cap)
{
	struct ntp_flight f;
	struct ntp_flight_file ff;
	uint64_t i;

	assert_int_equal(ntp_flight__init(&f, 10000 * MS, 1000 * MS, cap), 0);
	assert_int_equal(ntp_flight_file__open(&ff, dir, &f, (uid_t)-1, (gid_t)-1), 0);
	for (i = 0; i < 10; i++) {
		struct ntp_host_event h = host(i, i * 1000, 10);

		ntp_flight__add_host(&f, &h);
	}
	assert_int_equal(ntp_flight_file__sync(&ff, &f), 0);
	ntp_flight_file__close(&ff);
	ntp_flight__free(&f);
}

static void file__other_geometry__started_anew(void **state)
{
	struct ntp_flight g;
	struct ntp_flight_file gf;
	struct stat st;

	(void)state;
	write_one(10);
	assert_int_equal(ntp_flight__init(&g, 10000 * MS, 1000 * MS, 20), 0);
	assert_int_equal(ntp_flight_file__open(&gf, dir, &g, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(gf.loaded, 0);
	assert_int_equal(g.host.held, 0);
	/* sized for the new geometry: 11 slots of 20 records a side, and the heads */
	assert_int_equal(stat(path, &st), 0);
	assert_true((size_t)st.st_size > 11 * 20 * (sizeof(struct ntp_host_event) +
						   sizeof(struct ntp_target_event)));
	assert_true((size_t)st.st_size < 11 * 21 * (sizeof(struct ntp_host_event) +
						   sizeof(struct ntp_target_event)));
	ntp_flight_file__close(&gf);
	ntp_flight__free(&g);
}

static void file__other_boot__started_anew(void **state)
{
	struct ntp_flight g;
	struct ntp_flight_file gf;
	char id[8];
	int fd;

	(void)state;
	write_one(10);
	/* the header's boot id (after the magic, six 32-bit fields and the interval) changed */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, id, 1, 40), 1);
	id[0] ^= 1;
	assert_int_equal(pwrite(fd, id, 1, 40), 1);
	close(fd);
	assert_int_equal(ntp_flight__init(&g, 10000 * MS, 1000 * MS, 10), 0);
	assert_int_equal(ntp_flight_file__open(&gf, dir, &g, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(gf.loaded, 0);
	ntp_flight_file__close(&gf);
	ntp_flight__free(&g);
	/* the same boot's: read back */
	write_one(10);
	assert_int_equal(ntp_flight__init(&g, 10000 * MS, 1000 * MS, 10), 0);
	assert_int_equal(ntp_flight_file__open(&gf, dir, &g, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(gf.loaded, 10);
	ntp_flight_file__close(&gf);
	ntp_flight__free(&g);
}

static void file__rate_far_above_the_bound__size_fixed(void **state)
{
	struct ntp_flight f;
	struct ntp_flight_file ff;
	struct stat st;
	off_t size;
	uint64_t i;

	(void)state;
	assert_int_equal(ntp_flight__init(&f, 5000 * MS, 1000 * MS, 16), 0);
	assert_int_equal(ntp_flight_file__open(&ff, dir, &f, (uid_t)-1, (gid_t)-1), 0);
	assert_int_equal(stat(path, &st), 0);
	size = st.st_size;
	/* 60 seconds of 20000 commands each, synced and trimmed each second */
	for (i = 0; i < 60 * 20000ULL; i++) {
		struct ntp_host_event h = host(i, i / 20, 1 + (i * 7919) % 20000);

		ntp_flight__add_host(&f, &h);
		if ((i + 1) % 20000 == 0) {
			ntp_flight__trim(&f, T0 + (i / 20) * MS);
			assert_int_equal(ntp_flight_file__sync(&ff, &f), 0);
		}
	}
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, size);
	assert_true(f.host.held <= 6 * 16);
	ntp_flight_file__close(&ff);
	ntp_flight__free(&f);
}

static void file__directory_gone__error(void **state)
{
	struct ntp_flight f;
	struct ntp_flight_file ff;
	char gone[300];

	(void)state;
	snprintf(gone, sizeof(gone), "%s/no-such-dir", dir);
	assert_int_equal(ntp_flight__init(&f, 1000 * MS, 1000 * MS, 1), 0);
	assert_true(ntp_flight_file__open(&ff, gone, &f, (uid_t)-1, (gid_t)-1) < 0);
	assert_int_equal(ff.fd, -1);
	assert_true(ntp_flight_file__sync(&ff, &f) < 0);
	ntp_flight__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(file__window_synced__read_back_by_the_next,
						setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(file__other_geometry__started_anew,
						setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(file__other_boot__started_anew,
						setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(file__rate_far_above_the_bound__size_fixed,
						setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(file__directory_gone__error,
						setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
