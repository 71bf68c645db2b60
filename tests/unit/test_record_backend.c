// SPDX-License-Identifier: GPL-2.0
/*
 * The target's backend counters (lib/record/record_backend.h): the stat
 * line of each kernel's length, the growth over an interval, and a scan
 * of a copy of nvmet's configfs layout in a temporary folder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lib/ntp/db_write.h"
#include "lib/record/record_backend.h"

static char root[64];

static void put(const char *rel, const char *value)
{
	char path[256], cmd[320];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/ntp-backend-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* 17 fields (5.5 on), 15 (4.18 on) and 11: ios, in flight, io_ticks, time_in_queue */
static void parse__each_kernels_line(void **state)
{
	struct ntp_block_stat s;

	assert_int_equal(ntp_block_stat__parse("  100 1 800 50 200 2 1600 70 7 900 4000 3 0 24 1 "
					      "5 2", &s), 0);
	assert_int_equal(s.ios, 100 + 200 + 3 + 5);
	assert_int_equal(s.in_flight, 7);
	assert_int_equal(s.busy_ms, 900);
	assert_int_equal(s.queue_ms, 4000);
	assert_int_equal(ntp_block_stat__parse("100 1 800 50 200 2 1600 70 7 900 4000 3 0 24 1", &s),
			 0);
	assert_int_equal(s.ios, 303);
	assert_int_equal(ntp_block_stat__parse("100 1 800 50 200 2 1600 70 7 900 4000", &s), 0);
	assert_int_equal(s.ios, 300);
	assert_int_equal(ntp_block_stat__parse("100 1 800 50 200 2 1600 70 7 900", &s), -1);
	assert_int_equal(ntp_block_stat__parse("", &s), -1);
	assert_int_equal(ntp_block_stat__parse("x", &s), -1);
}

/* the growth of each counter between two reads, in flight as it is at the end */
static void read__growth_since_the_last_read(void **state)
{
	struct ntp_backends b = { 0 };
	struct ntp_backend_stat row;

	snprintf(b.sysfs, sizeof(b.sysfs), "%s/block", root);
	b.n = 1;
	b.prev_ns = 1000000000;
	snprintf(b.b[0].path, sizeof(b.b[0].path), "/dev/nullb0");
	snprintf(b.b[0].name, sizeof(b.b[0].name), "nullb0");
	b.b[0].depth = 64;
	put("block/nullb0/stat", "10 0 80 5 20 0 160 7 3 100 400 0 0 0 0 0 0");
	assert_int_equal(ntp_backends__read(&b, 0, 2000000000, &row), 0);
	/* no earlier read: nothing grew yet */
	assert_int_equal(row.ios, 0);
	put("block/nullb0/stat", "110 0 80 5 70 0 160 7 58 1100 58400 0 0 0 0 0 0");
	b.prev_ns = 2000000000;
	assert_int_equal(ntp_backends__read(&b, 0, 3000000000, &row), 0);
	assert_string_equal(row.device, "/dev/nullb0");
	assert_int_equal(row.t_ns, 3000000000);
	assert_int_equal(row.interval_ns, 1000000000);
	assert_int_equal(row.ios, 150);
	assert_int_equal(row.in_flight, 58);
	assert_int_equal(row.busy_ms, 1000);
	assert_int_equal(row.queue_ms, 58000);   /* aqu-sz 58 over the second */
	assert_int_equal(row.depth, 64);
	/* the device gone: nothing read */
	put("block/nullb0/stat", "");
	assert_int_equal(ntp_backends__read(&b, 0, 4000000000, &row), -1);
}

/* only enabled namespaces of a block device: a file backend or a disabled one has none */
static void scan__enabled_block_namespaces_only(void **state)
{
	struct ntp_backends b;
	char cfs[128], sys[128], file[160];

	snprintf(cfs, sizeof(cfs), "%s/subsystems", root);
	snprintf(sys, sizeof(sys), "%s/block", root);
	snprintf(file, sizeof(file), "%s/backing.img", root);
	put("backing.img", "");
	put("subsystems/nqn.a/namespaces/1/enable", "1");
	put("subsystems/nqn.a/namespaces/1/device_path", file);
	put("subsystems/nqn.b/namespaces/1/enable", "0");
	put("subsystems/nqn.b/namespaces/1/device_path", "/dev/null");
	assert_int_equal(ntp_backends__scan(&b, cfs, sys, 1), 0);
	/* no configfs: none */
	assert_int_equal(ntp_backends__scan(&b, "/nonexistent/ntp", sys, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__each_kernels_line),
		cmocka_unit_test_setup_teardown(read__growth_since_the_last_read, setup, teardown),
		cmocka_unit_test_setup_teardown(scan__enabled_block_namespaces_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
