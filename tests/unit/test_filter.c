// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/filter.c on fake /sys/block trees built in a private temporary
 * directory: a namespace without multipath (its disk links to its
 * controller), a multipath head with paths on three controllers (path disks
 * without dev files, as the kernel makes them), look-alike names that must
 * not be taken for paths, and every error: a malformed name, a path disk
 * given for a namespace, an unknown namespace (with the hint listing the
 * real ones), missing or malformed nsid and dev, a head without paths, too
 * many paths; then --io-type and --size, and the predicate BPF shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/filter.h"

static char root[64], blk[128];

static void mkdirf(const char *fmt, ...)
{
	char path[512], rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void link_to(const char *rel, const char *target)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

/* a disk as the kernel shows it under /sys/block: a link into devices/ */
static void disk(const char *name, const char *nsid, const char *dev, const char *device)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "devices/%s", name);
	mkdirf("%s", rel);
	if (nsid) {
		snprintf(rel, sizeof(rel), "devices/%s/nsid", name);
		put(rel, nsid);
	}
	if (dev) {
		snprintf(rel, sizeof(rel), "devices/%s/dev", name);
		put(rel, dev);
	}
	if (device) {
		snprintf(rel, sizeof(rel), "devices/%s/device", name);
		link_to(rel, device);
	}
	snprintf(rel, sizeof(rel), "block/%s", name);
	snprintf(target, sizeof(target), "../devices/%s", name);
	link_to(rel, target);
}

static int group_setup(void **state)
{
	strcpy(root, "/tmp/ntprof-test_filter.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(blk, sizeof(blk), "%s/block", root);
	ntp_err__set_cmd("record");
	mkdirf("devices");
	mkdirf("block");
	/* nvme0n1: PCIe-like, no multipath: its disk hangs off controller nvme0 */
	disk("nvme0n1", "1\n", "259:0\n", "../../nvme0");
	/* nvme1n3 without multipath on controller nvme1, nsid 3 */
	disk("nvme1n3", "3\n", "259:1\n", "../../nvme1");
	/* nvme6n1: multipath head of subsystem 6, paths on controllers 2, 5 and 11 */
	disk("nvme6n1", "1\n", "259:7\n", "../../nvme-subsys6");
	disk("nvme6c2n1", "1\n", NULL, "../../nvme2");
	disk("nvme6c11n1", "1\n", NULL, "../../nvme11");
	disk("nvme6c5n1", "1\n", NULL, "../../nvme5");
	/* look-alikes that are not its paths: another namespace, another subsystem */
	disk("nvme6n10", "10\n", "259:9\n", "../../nvme-subsys6");
	disk("nvme6c3n10", "10\n", NULL, "../../nvme3");
	disk("nvme16n1", "1\n", "259:12\n", "../../nvme-subsys16");
	disk("nvme16c4n1", "1\n", NULL, "../../nvme4");
	/* a head whose paths are all gone */
	disk("nvme7n1", "1\n", "259:20\n", "../../nvme-subsys7");
	/* broken attributes */
	disk("nvme8n1", NULL, "259:21\n", "../../nvme8");
	disk("nvme8n2", "two\n", "259:22\n", "../../nvme8");
	disk("nvme8n3", "3\n", "259\n", "../../nvme8");
	disk("nvme8n4", "4\n", "259:23\n", NULL);
	disk("nvme8n5", "", "259:24\n", "../../nvme8");
	/* a head with more paths than the filter holds */
	disk("nvme9n1", "1\n", "259:30\n", "../../nvme-subsys9");
	for (int c = 0; c <= NTP_FILTER_MAX_CTRLS; c++) {
		char name[32];

		snprintf(name, sizeof(name), "nvme9c%dn1", 100 + c);
		disk(name, "1\n", NULL, "../../nvme100");
	}
	/* other disks */
	disk("loop0", NULL, "7:0\n", NULL);
	disk("sda", NULL, "8:0\n", "../../0:0:0:0");
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int group_teardown(void **state)
{
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* stderr of one call, captured in a file */
static char captured[4096];
static int saved_fd = -1;
static FILE *cap;

static void capture_start(void)
{
	fflush(stderr);
	cap = tmpfile();
	assert_non_null(cap);
	saved_fd = dup(2);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(cap), 2) >= 0);
}

static const char *capture_end(void)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(saved_fd, 2) >= 0);
	close(saved_fd);
	rewind(cap);
	n = fread(captured, 1, sizeof(captured) - 1, cap);
	captured[n] = '\0';
	fclose(cap);
	return captured;
}

/* the call failed with code, printed exactly one line, which holds every one of the words */
static void expect_error(int rc, int code, const char *msg, ...)
{
	va_list ap;
	const char *w;

	assert_int_equal(rc, code);
	assert_non_null(strstr(msg, "ntprof record: error: "));
	/* one line: its only newline ends it */
	assert_non_null(strchr(msg, '\n'));
	assert_string_equal(strchr(msg, '\n'), "\n");
	va_start(ap, msg);
	while ((w = va_arg(ap, const char *))) {
		if (!strstr(msg, w))
			fail_msg("'%s' not in: %s", w, msg);
	}
	va_end(ap);
}

static int session(struct ntp_filter *f, const char *name)
{
	int rc;

	memset(f, 0, sizeof(*f));
	capture_start();
	rc = ntp_filter__set_session(f, blk, name);
	capture_end();
	return rc;
}

static void session__no_multipath__its_own_controller(void **state)
{
	struct ntp_filter f;

	assert_int_equal(session(&f, "nvme0n1"), 0);
	assert_string_equal(captured, "");
	assert_int_equal(f.flags, NTP_FILTER_NS);
	assert_int_equal(f.nsid, 1);
	assert_int_equal(f.nctrls, 1);
	assert_int_equal(f.ctrls[0], 0);
	assert_int_equal(f.dev_major, 259);
	assert_int_equal(f.dev_minor, 0);
	assert_int_equal(session(&f, "nvme1n3"), 0);
	assert_int_equal(f.nsid, 3);
	assert_int_equal(f.nctrls, 1);
	assert_int_equal(f.ctrls[0], 1);
	assert_int_equal(f.dev_minor, 1);
}

static void session__multipath__every_path_and_no_lookalike(void **state)
{
	struct ntp_filter f;

	assert_int_equal(session(&f, "nvme6n1"), 0);
	assert_int_equal(f.nsid, 1);
	assert_int_equal(f.nctrls, 3);
	/* ascending, and neither nvme6c3n10 (namespace 10) nor nvme16c4n1 (subsystem 16) */
	assert_int_equal(f.ctrls[0], 2);
	assert_int_equal(f.ctrls[1], 5);
	assert_int_equal(f.ctrls[2], 11);
	assert_int_equal(f.ctrls[3], 0);
	assert_int_equal(f.dev_major, 259);
	assert_int_equal(f.dev_minor, 7);
	assert_int_equal(session(&f, "nvme6n10"), 0);
	assert_int_equal(f.nsid, 10);
	assert_int_equal(f.nctrls, 1);
	assert_int_equal(f.ctrls[0], 3);
	assert_int_equal(session(&f, "nvme16n1"), 0);
	assert_int_equal(f.nctrls, 1);
	assert_int_equal(f.ctrls[0], 4);
}

static void session__bad_names__usage_errors(void **state)
{
	static const char *const names[] = {
		"", "sda", "nvme", "nvmen1", "nvme6", "nvme6n", "nvme6n1p1", "nvme6n1 ", "nvme-6n1",
		"nvme6x1", "/dev/nvme6n1", "nvme6c2", "nvme1234567890n1",
	};
	struct ntp_filter f;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int rc = session(&f, names[i]);

		expect_error(rc, NTP_EXIT_USAGE, captured, "--session", "expected nvmeXnY", NULL);
		assert_int_equal(f.flags, 0);
	}
}

static void session__path_disk__names_its_namespace(void **state)
{
	struct ntp_filter f;

	expect_error(session(&f, "nvme6c5n1"), NTP_EXIT_USAGE, captured,
		     "'nvme6c5n1'", "--session", "path of the namespace nvme6n1", NULL);
	assert_int_equal(f.flags, 0);
}

static void session__unknown__lists_the_namespaces(void **state)
{
	struct ntp_filter f;
	char other[160];
	int rc;

	expect_error(session(&f, "nvme42n1"), NTP_EXIT_USAGE, captured, "'nvme42n1'",
		     "no such namespace", "/block/nvme42n1", "No such file or directory",
		     "namespaces here: nvme0n1, nvme1n3, nvme6n1, nvme6n10, nvme7n1", NULL);
	/* path disks are not offered */
	assert_null(strstr(captured, "nvme6c"));
	assert_int_equal(f.flags, 0);
	/* a tree without NVMe at all says so */
	snprintf(other, sizeof(other), "%s/devices/sda", root);
	memset(&f, 0, sizeof(f));
	capture_start();
	rc = ntp_filter__set_session(&f, other, "nvme0n1");
	expect_error(rc, NTP_EXIT_USAGE, capture_end(),
		     "no NVMe namespaces here", NULL);
	/* the default root is the real one */
	capture_start();
	rc = ntp_filter__set_session(&f, NULL, "nvme4242n4242");
	expect_error(rc, NTP_EXIT_USAGE, capture_end(), "/sys/block/nvme4242n4242", NULL);
}

static void session__broken_sysfs__failure_naming_the_file(void **state)
{
	struct ntp_filter f;

	expect_error(session(&f, "nvme8n1"), NTP_EXIT_FAILURE, captured, "nvme8n1/nsid",
		     "No such file or directory", NULL);
	expect_error(session(&f, "nvme8n2"), NTP_EXIT_FAILURE, captured, "nvme8n2/nsid",
		     "'two'", NULL);
	expect_error(session(&f, "nvme8n3"), NTP_EXIT_FAILURE, captured, "nvme8n3/dev",
		     "'259'", "MAJOR:MINOR", NULL);
	expect_error(session(&f, "nvme8n4"), NTP_EXIT_FAILURE, captured, "nvme8n4/device",
		     "controller", NULL);
	expect_error(session(&f, "nvme8n5"), NTP_EXIT_FAILURE, captured, "nvme8n5/nsid",
		     "empty", NULL);
	expect_error(session(&f, "nvme7n1"), NTP_EXIT_FAILURE, captured, "no paths",
		     "nvme-subsys7", NULL);
	expect_error(session(&f, "nvme9n1"), NTP_EXIT_FAILURE, captured, "more than 16 paths",
		     NULL);
	assert_int_equal(f.flags, 0);
}

static void io_type__read_write__opcodes_else_usage(void **state)
{
	struct ntp_filter f = { 0 };
	int rc;

	assert_int_equal(ntp_filter__set_io_type(&f, "read"), 0);
	assert_int_equal(f.flags, NTP_FILTER_OPCODE);
	assert_int_equal(f.opcode, 0x02);
	assert_int_equal(ntp_filter__set_io_type(&f, "write"), 0);
	assert_int_equal(f.opcode, 0x01);
	memset(&f, 0, sizeof(f));
	capture_start();
	rc = ntp_filter__set_io_type(&f, "Read");
	expect_error(rc, NTP_EXIT_USAGE, capture_end(),
		     "invalid value 'Read' for option '--io-type'", "read or write", NULL);
	capture_start();
	rc = ntp_filter__set_io_type(&f, "");
	expect_error(rc, NTP_EXIT_USAGE, capture_end(),
		     "--io-type", NULL);
	assert_int_equal(f.flags, 0);
}

static void sizes__list__sorted_deduplicated_bytes(void **state)
{
	struct ntp_filter f = { 0 };

	assert_int_equal(ntp_filter__set_sizes(&f, "128K,4K,512,1M,4096,4KiB,8k,2MiB"), 0);
	assert_int_equal(f.flags, NTP_FILTER_SIZE);
	assert_int_equal(f.nsizes, 6);
	assert_int_equal(f.sizes[0], 512);
	assert_int_equal(f.sizes[1], 4096);
	assert_int_equal(f.sizes[2], 8192);
	assert_int_equal(f.sizes[3], 131072);
	assert_int_equal(f.sizes[4], 1 << 20);
	assert_int_equal(f.sizes[5], 2 << 20);
	assert_int_equal(f.sizes[6], 0);
	memset(&f, 0, sizeof(f));
	assert_int_equal(ntp_filter__set_sizes(&f, "4K"), 0);
	assert_int_equal(f.nsizes, 1);
	assert_int_equal(f.sizes[0], 4096);
}

static void sizes__bad_items__usage_naming_the_item(void **state)
{
	static const struct {
		const char *list, *words[3];
	} cases[] = {
		{ "4K,,8K", { "empty item" } },
		{ "4K,", { "empty item" } },
		{ ",4K", { "empty item" } },
		{ "", { "empty item" } },
		{ "4K,x8", { "'x8' is not a size" } },
		{ "4K,8Q", { "'8Q' is not a size" } },
		{ "4K, 8K", { "' 8K' is not a size" } },
		{ "-4K", { "'-4K' is not a size" } },
		{ "4.5K", { "'4.5K' is not a size" } },
		{ "1000", { "'1000' is not a positive multiple of 512" } },
		{ "4K,0", { "'0' is not a positive multiple of 512" } },
		{ "4G", { "'4G' is larger" } },
		{ "99999999999999999999", { "is not a size" } },
		{ "1K,2K,3K,4K,5K,6K,7K,8K,9K,10K,11K,12K,13K,14K,15K,16K,17K", { "more than 16 sizes" } },
	};
	struct ntp_filter f = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		capture_start();
		rc = ntp_filter__set_sizes(&f, cases[i].list);
		expect_error(rc, NTP_EXIT_USAGE, capture_end(),
			     "for option '--size'", cases[i].words[0], NULL);
		assert_int_equal(f.flags, 0);
	}
	/* duplicates do not count toward the limit */
	assert_int_equal(ntp_filter__set_sizes(&f, "4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K,4K"), 0);
	assert_int_equal(f.nsizes, 1);
}

static void pass__all_filters__the_namespace_type_and_size(void **state)
{
	struct ntp_filter f;
	struct ntp_host_event e = { .opcode = 2, .bytes = 4096, .ctrl_instance = 5, .nsid = 1 };
	struct ntp_target_event t = { .opcode = 2, .bytes = 4096, .nsid = 99 };

	/* nothing set: everything passes, other opcodes included */
	memset(&f, 0, sizeof(f));
	assert_true(ntp_filter__match_host(&f, &e));
	e.opcode = 0;
	assert_true(ntp_filter__match_host(&f, &e));
	e.opcode = 2;
	assert_int_equal(session(&f, "nvme6n1"), 0);
	assert_int_equal(ntp_filter__set_io_type(&f, "read"), 0);
	assert_int_equal(ntp_filter__set_sizes(&f, "4K,128K"), 0);
	assert_int_equal(f.flags, NTP_FILTER_NS | NTP_FILTER_OPCODE | NTP_FILTER_SIZE);
	/* on every path */
	for (__u32 c = 0; c < 20; c++) {
		e.ctrl_instance = c;
		assert_int_equal(ntp_filter__match_host(&f, &e), c == 2 || c == 5 || c == 11);
	}
	e.ctrl_instance = 11;
	e.nsid = 10;
	assert_false(ntp_filter__match_host(&f, &e));
	e.nsid = 1;
	e.bytes = 131072;
	assert_true(ntp_filter__match_host(&f, &e));
	e.bytes = 8192;
	assert_false(ntp_filter__match_host(&f, &e));
	e.bytes = 4096;
	e.opcode = 1;
	assert_false(ntp_filter__match_host(&f, &e));
	e.opcode = 0;
	assert_false(ntp_filter__match_host(&f, &e));
	/* the target: type and size, not the host's namespace */
	assert_true(ntp_filter__match_target(&f, &t));
	t.bytes = 512;
	assert_false(ntp_filter__match_target(&f, &t));
	t.bytes = 4096;
	t.opcode = 1;
	assert_false(ntp_filter__match_target(&f, &t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(session__no_multipath__its_own_controller),
		cmocka_unit_test(session__multipath__every_path_and_no_lookalike),
		cmocka_unit_test(session__bad_names__usage_errors),
		cmocka_unit_test(session__path_disk__names_its_namespace),
		cmocka_unit_test(session__unknown__lists_the_namespaces),
		cmocka_unit_test(session__broken_sysfs__failure_naming_the_file),
		cmocka_unit_test(io_type__read_write__opcodes_else_usage),
		cmocka_unit_test(sizes__list__sorted_deduplicated_bytes),
		cmocka_unit_test(sizes__bad_items__usage_naming_the_item),
		cmocka_unit_test(pass__all_filters__the_namespace_type_and_size),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
