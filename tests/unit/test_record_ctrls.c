// SPDX-License-Identifier: GPL-2.0
/*
 * The host's controllers from sysfs (lib/record/record_ctrls.h), on a copy
 * of /sys/class/nvme's layout made in a temporary folder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/record/record_ctrls.h"

static char root[64];

static void put(const char *ctrl, const char *file, const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, ctrl);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, ctrl, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	assert_int_equal(fclose(f), 0);
}

static void ctrl(const char *name, const char *transport, const char *queue_count,
		 const char *sqsize, const char *state)
{
	put(name, "transport", transport);
	if (queue_count)
		put(name, "queue_count", queue_count);
	if (sqsize)
		put(name, "sqsize", sqsize);
	put(name, "state", state);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/ntp-ctrls-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* the transport's controllers in number order; the others, namespaces, paths left out */
static void scan__transport_controllers__queues_and_depth(void **state)
{
	struct ntp_ctrls c;
	char buf[256];

	ctrl("nvme10", "tcp", "3", "31", "live");
	ctrl("nvme2", "tcp", "5", "127", "live");
	ctrl("nvme1", "rdma", "9", "127", "live");
	ctrl("nvme0", "pcie", "9", "1023", "live");
	ctrl("nvme3", "tcp", NULL, "x", "connecting");
	put("nvme2n1", "transport", "tcp");
	put("nvme2c2n1", "transport", "tcp");

	assert_int_equal(ntp_ctrls__scan(&c, root, "tcp"), 3);
	assert_string_equal(c.c[0].name, "nvme2");
	assert_string_equal(c.c[1].name, "nvme3");
	assert_string_equal(c.c[2].name, "nvme10");
	ntp_ctrls__queues_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "nvme2=4 nvme10=2");
	ntp_ctrls__depth_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "nvme2=128 nvme10=32");

	assert_int_equal(ntp_ctrls__scan(&c, root, "rdma"), 1);
	ntp_ctrls__queues_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "nvme1=8");
	/* no folder: none */
	assert_int_equal(ntp_ctrls__scan(&c, "/nonexistent/ntp", "tcp"), 0);
	ntp_ctrls__depth_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* a reset is a controller leaving "live"; staying out or coming back is not another */
static void tick__leaving_live__one_reset_each_time(void **state)
{
	struct ntp_ctrls c;

	ctrl("nvme4", "tcp", "2", "127", "live");
	ctrl("nvme5", "tcp", "2", "127", "live");
	assert_int_equal(ntp_ctrls__scan(&c, root, "tcp"), 2);
	ntp_ctrls__tick(&c);
	assert_int_equal(c.resets, 0);
	put("nvme4", "state", "resetting");
	ntp_ctrls__tick(&c);
	assert_int_equal(c.resets, 1);
	put("nvme4", "state", "connecting");
	ntp_ctrls__tick(&c);
	assert_int_equal(c.resets, 1);
	put("nvme4", "state", "live");
	put("nvme5", "state", "connecting");
	ntp_ctrls__tick(&c);
	assert_int_equal(c.resets, 2);
	put("nvme4", "state", "deleting");
	ntp_ctrls__tick(&c);
	assert_int_equal(c.resets, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(scan__transport_controllers__queues_and_depth,
						setup, teardown),
		cmocka_unit_test_setup_teardown(tick__leaving_live__one_reset_each_time, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
