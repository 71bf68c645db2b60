// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/mem.c: big arrays come with the kernel's huge-page advice on
 * their mapping (the "hg" of /proc/self/smaps' VmFlags), small ones
 * without it (a kernel without transparent huge pages shows none), and
 * start on a 2 MiB boundary; calloc still zeroes and realloc still keeps
 * the contents.
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

#include "lib/core/mem.h"

#define MIB ((size_t)1 << 20)

/* 1: the mapping holding p carries the huge-page advice, 0: it does not, -1: no such mapping */
static int advised(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, ret = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * What a big block's mapping shows: the advice, or, in a kernel built
 * without transparent huge pages (which refuses it), none.
 */
static int thp;

static int setup(void **state)
{
	(void)state;
	thp = !access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK);
	if (!thp)
		fprintf(stderr, "test_mem: this kernel has no transparent huge pages: "
			"checking that big blocks work without the advice\n");
	return 0;
}

static void alloc__big__advised(void **state)
{
	unsigned char *p = ntp_mem__alloc(8 * MIB);

	(void)state;
	assert_non_null(p);
	assert_int_equal(advised(p), thp);
	assert_int_equal(advised(p + 8 * MIB - 1), thp);
	p[8 * MIB - 1] = 1;
	free(p);
}

/* a huge page is made only of an aligned 2 MiB: a big block starts on one */
static void alloc__big__on_a_two_mib_boundary(void **state)
{
	unsigned char *p = ntp_mem__alloc(5 * MIB);

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	memset(p, 1, 5 * MIB);
	free(p);
}

static void alloc__below_two_mib__not_advised(void **state)
{
	unsigned char *p = ntp_mem__alloc(MIB);

	(void)state;
	assert_non_null(p);
	/* a block of 1 MiB is a mapping of its own (glibc maps blocks from 128 KiB) */
	assert_int_equal(advised(p), 0);
	free(p);
}

static void calloc__big__zeroed_and_advised(void **state)
{
	unsigned char *p = ntp_mem__calloc(3 * MIB, 2);

	(void)state;
	assert_non_null(p);
	assert_int_equal(advised(p), thp);
	for (size_t i = 0; i < 6 * MIB; i += 4093)
		assert_int_equal(p[i], 0);
	assert_int_equal(p[6 * MIB - 1], 0);
	free(p);
}

static void realloc__grown_past_two_mib__contents_kept_and_advised(void **state)
{
	unsigned char *p = ntp_mem__alloc(MIB), *q;

	(void)state;
	assert_non_null(p);
	memset(p, 0x5a, MIB);
	q = ntp_mem__realloc(p, 16 * MIB);
	assert_non_null(q);
	assert_int_equal(q[0], 0x5a);
	assert_int_equal(q[MIB - 1], 0x5a);
	assert_int_equal(advised(q), thp);
	assert_int_equal(advised(q + 16 * MIB - 1), thp);
	free(q);
}

/* a block on a 2 MiB boundary grown: its contents kept, on a boundary still, advised */
static void realloc__big_block_grown__contents_kept_and_aligned(void **state)
{
	unsigned char *p = ntp_mem__alloc(4 * MIB), *q;

	(void)state;
	assert_non_null(p);
	memset(p, 0x5a, 4 * MIB);
	q = ntp_mem__realloc(p, 12 * MIB);
	assert_non_null(q);
	assert_int_equal((uintptr_t)q % (2 * MIB), 0);
	assert_int_equal(advised(q + 12 * MIB - 1), thp);
	assert_int_equal(q[0], 0x5a);
	assert_int_equal(q[4 * MIB - 1], 0x5a);
	memset(q + 4 * MIB, 0, 8 * MIB);
	free(q);
}

static void zero_length__a_block_to_free(void **state)
{
	(void)state;
	void *p = ntp_mem__alloc(0), *q = ntp_mem__calloc(0, 8);

	assert_non_null(p);
	assert_non_null(q);
	free(p);
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alloc__big__advised),
		cmocka_unit_test(alloc__big__on_a_two_mib_boundary),
		cmocka_unit_test(alloc__below_two_mib__not_advised),
		cmocka_unit_test(calloc__big__zeroed_and_advised),
		cmocka_unit_test(realloc__grown_past_two_mib__contents_kept_and_advised),
		cmocka_unit_test(realloc__big_block_grown__contents_kept_and_aligned),
		cmocka_unit_test(zero_length__a_block_to_free),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
