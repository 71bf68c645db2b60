// SPDX-License-Identifier: GPL-2.0
/*
 * The folding of a text table to a width (lib/report/report_table.c): which
 * columns each block holds, the keys repeated, and what it prints.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/report/report_table.h"

/* two keys (1 + 8 + 1 + 4 = 14 wide) and four statistics of 9 (10 wide each) */
static const struct ntp_col cols[] = {
	{ "io_type", -7, "%s" }, { "size", 4, "%s" },
	{ "a", 9, "%.2f" }, { "b", 9, "%.2f" }, { "c", 9, "%.2f" }, { "d", 9, "%.2f" },
};
#define NCOLS 6

static void width__the_titles_and_rows(void **state)
{
	assert_int_equal(ntp_report__width(cols, 2), 14);
	assert_int_equal(ntp_report__width(cols, NCOLS), 54);
}

static void fold__no_width__one_block(void **state)
{
	int start[NCOLS + 1];

	assert_int_equal(ntp_report__fold(cols, NCOLS, 2, 0, start), 1);
	assert_int_equal(start[0], 2);
	assert_int_equal(start[1], NCOLS);
}

static void fold__wide_enough__one_block(void **state)
{
	int start[NCOLS + 1];

	assert_int_equal(ntp_report__fold(cols, NCOLS, 2, 54, start), 1);
}

static void fold__one_column_short__two_blocks(void **state)
{
	int start[NCOLS + 1];

	/* 53: the keys and three statistics (44), then the keys and the fourth */
	assert_int_equal(ntp_report__fold(cols, NCOLS, 2, 53, start), 2);
	assert_int_equal(start[0], 2);
	assert_int_equal(start[1], 5);
	assert_int_equal(start[2], NCOLS);
}

static void fold__narrower_than_keys__a_column_a_block(void **state)
{
	int start[NCOLS + 1];

	assert_int_equal(ntp_report__fold(cols, NCOLS, 2, 10, start), 4);
	for (int b = 0; b <= 4; b++)
		assert_int_equal(start[b], 2 + b);
}

static void block__keys_then_its_own(void **state)
{
	struct ntp_cell cells[NCOLS] = {
		ntp_report__str_cell("read"), ntp_report__str_cell("4K"), ntp_report__dbl_cell(1),
		ntp_report__dbl_cell(2), ntp_report__dbl_cell(3), ntp_report__dbl_cell(4),
	};
	struct ntp_col bc[NCOLS];
	struct ntp_cell bv[NCOLS];
	int start[NCOLS + 1];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ntp_report__fold(cols, NCOLS, 2, 34, start), 2);
	for (int b = 0; b < 2; b++) {
		int m = ntp_report__block(cols, cells, 2, start, b, bc, bv);

		assert_int_equal(m, 4);
		ntp_report__print_titles(f, bc, m, NULL);
		ntp_report__print_row(f, bc, m, bv, NULL);
	}
	fclose(f);
	assert_string_equal(buf,
			    "# io_type size         a         b\n"
			    "  read      4K      1.00      2.00\n"
			    "# io_type size         c         d\n"
			    "  read      4K      3.00      4.00\n");
	free(buf);
}

static void last_left_aligned_column__not_padded(void **state)
{
	const struct ntp_col lc[] = { { "n", 3, "%s" }, { "present", -8, "%s" } };
	struct ntp_cell c[] = { ntp_report__str_cell("1"), ntp_report__str_cell("new") };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ntp_report__print_titles(f, lc, 2, NULL);
	ntp_report__print_row(f, lc, 2, c, NULL);
	fclose(f);
	assert_string_equal(buf, "#   n present\n    1 new\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(width__the_titles_and_rows),
		cmocka_unit_test(fold__no_width__one_block),
		cmocka_unit_test(fold__wide_enough__one_block),
		cmocka_unit_test(fold__one_column_short__two_blocks),
		cmocka_unit_test(fold__narrower_than_keys__a_column_a_block),
		cmocka_unit_test(block__keys_then_its_own),
		cmocka_unit_test(last_left_aligned_column__not_padded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
