// SPDX-License-Identifier: GPL-2.0
/*
 * lib/collect/kernel_probe.c's kallsyms address reader on hand-made files:
 * the addresses the host collector compares function pointers with
 * (bpf/host_app.bpf.h), so a wrong one would mislabel every completion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/collect/kernel_probe.h"

static char path[64];

static const char *write_syms(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ntp-test-kallsyms-%d", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char *const names[] = {
	"blkdev_bio_end_io_async", "aio_complete_rw", "io_complete_rw", "absent_fn", "dup_fn",
};
#define N (int)(sizeof(names) / sizeof(names[0]))

static void ksym_addrs__functions__found_exactly(void **state)
{
	__u64 a[N];

	(void)state;
	write_syms("ffffffff81000000 T _stext\n"
		   "ffffffff8145a0c0 t blkdev_bio_end_io_async\n"
		   "ffffffff81400010 d io_complete_rw\n"          /* data: not a function */
		   "ffffffff81400020 t io_complete_rw\n"
		   "ffffffff813f2230 T aio_complete_rw\n"
		   "ffffffffc0a01230 t aio_complete_rw_x\t[mod]\n"  /* a longer name */
		   "garbage line\n");
	assert_int_equal(ntp_probe__ksym_addrs(path, names, a, N), 0);
	assert_true(a[0] == 0xffffffff8145a0c0ULL);
	assert_true(a[1] == 0xffffffff813f2230ULL);
	assert_true(a[2] == 0xffffffff81400020ULL);
	assert_true(a[3] == 0);
	assert_true(a[4] == 0);
	unlink(path);
}

/* a static name in two files: which one a pointer holds cannot be told */
static void ksym_addrs__ambiguous__zero(void **state)
{
	__u64 a[N];

	(void)state;
	write_syms("ffffffff81000100 t dup_fn\n"
		   "ffffffff81000100 t dup_fn\n"                  /* the same twice: fine */
		   "ffffffff81000200 t aio_complete_rw\n"
		   "ffffffff81000300 t aio_complete_rw\n");
	assert_int_equal(ntp_probe__ksym_addrs(path, names, a, N), 0);
	assert_true(a[4] == 0xffffffff81000100ULL);
	assert_true(a[1] == 0);
	unlink(path);
}

/* kptr_restrict: every address reads as 0, and 0 is "not told" */
static void ksym_addrs__restricted__zero(void **state)
{
	__u64 a[N];

	(void)state;
	write_syms("0000000000000000 t blkdev_bio_end_io_async\n"
		   "0000000000000000 T aio_complete_rw\n");
	assert_int_equal(ntp_probe__ksym_addrs(path, names, a, N), 0);
	assert_true(a[0] == 0 && a[1] == 0);
	unlink(path);
}

static void ksym_addrs__no_file__errno(void **state)
{
	__u64 a[N];

	(void)state;
	a[0] = 1;
	assert_int_equal(ntp_probe__ksym_addrs("/nonexistent/kallsyms", names, a, N), -2);
	assert_true(a[0] == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ksym_addrs__functions__found_exactly),
		cmocka_unit_test(ksym_addrs__ambiguous__zero),
		cmocka_unit_test(ksym_addrs__restricted__zero),
		cmocka_unit_test(ksym_addrs__no_file__errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
