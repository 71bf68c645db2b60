// SPDX-License-Identifier: GPL-2.0
/*
 * lib/join/join_spare.c: a block given back is handed to the next take of
 * about its size (at least half of it), a bigger take gets a new block
 * (the smaller one freed, not grown), small blocks and blocks over twice the
 * size asked are not handed out, a full pool keeps the larger block, and
 * the sort's two threads may give and take at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/core/jobs.h"
#include "lib/join/join_base.h"

#define MIB ((size_t)1 << 20)

static void take__kept_block_about_the_size__that_block(void **state)
{
	struct ntp_jspares sp;
	void *p, *q;

	(void)state;
	ntp_jspares__init(&sp);
	p = malloc(4 * MIB);
	assert_non_null(p);
	ntp_jspares__give(&sp, p);
	assert_int_equal(sp.n, 1);
	q = ntp_jspares__take(&sp, 3 * MIB);
	assert_ptr_equal(q, p);
	assert_int_equal(sp.n, 0);
	free(q);
	ntp_jspares__fini(&sp);
}

static void take__kept_block_over_twice_the_size__a_new_one(void **state)
{
	struct ntp_jspares sp;
	void *p = malloc(8 * MIB), *q, *r;

	(void)state;
	assert_non_null(p);
	ntp_jspares__init(&sp);
	ntp_jspares__give(&sp, p);
	q = ntp_jspares__take(&sp, 3 * MIB);
	assert_non_null(q);
	assert_ptr_not_equal(q, p);
	assert_int_equal(sp.n, 1);
	r = ntp_jspares__take(&sp, 5 * MIB);
	assert_ptr_equal(r, p);
	free(q);
	free(r);
	ntp_jspares__fini(&sp);
}

static void take__bigger_than_every_kept__a_new_one(void **state)
{
	struct ntp_jspares sp;
	unsigned char *p = malloc(2 * MIB), *q;

	(void)state;
	assert_non_null(p);
	ntp_jspares__init(&sp);
	ntp_jspares__give(&sp, p);
	q = ntp_jspares__take(&sp, 6 * MIB);
	assert_non_null(q);
	/* the smaller block is not kept for later: the pool holds nothing */
	assert_int_equal(sp.n, 0);
	/* all of the size asked for is there (ASan checks the ends) */
	memset(q, 0, 6 * MIB);
	free(q);
	ntp_jspares__fini(&sp);
}

static void give__small_block__freed_not_kept(void **state)
{
	struct ntp_jspares sp;

	(void)state;
	ntp_jspares__init(&sp);
	ntp_jspares__give(&sp, malloc(4096));
	ntp_jspares__give(&sp, NULL);
	assert_int_equal(sp.n, 0);
	free(ntp_jspares__take(&sp, 0));
	ntp_jspares__fini(&sp);
}

static void give__pool_full__the_larger_kept(void **state)
{
	struct ntp_jspares sp;
	void *blocks[NTP_JSPARES + 1];

	(void)state;
	ntp_jspares__init(&sp);
	for (int i = 0; i <= NTP_JSPARES; i++) {
		blocks[i] = malloc((size_t)(i + 2) * MIB);
		assert_non_null(blocks[i]);
		ntp_jspares__give(&sp, blocks[i]);
	}
	assert_int_equal(sp.n, NTP_JSPARES);
	/* the smallest went: the largest is kept */
	for (int i = 0; i < sp.n; i++)
		assert_ptr_not_equal(sp.p[i], blocks[0]);
	assert_ptr_equal(ntp_jspares__take(&sp, (size_t)(NTP_JSPARES + 2) * MIB),
			 blocks[NTP_JSPARES]);
	free(blocks[NTP_JSPARES]);
	ntp_jspares__drop(&sp);
	assert_int_equal(sp.n, 0);
	ntp_jspares__fini(&sp);
}

struct churn {
	struct ntp_jspares *sp;
	int fails;
};

static void *churn_run(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < 200; i++) {
		unsigned char *p = ntp_jspares__take(c->sp, (size_t)(1 + i % 3) * MIB);

		if (!p) {
			c->fails++;
			continue;
		}
		p[0] = 1;
		ntp_jspares__give(c->sp, p);
	}
	return NULL;
}

static void give_take__two_threads__pool_stays_whole(void **state)
{
	struct ntp_jspares sp;
	struct churn c[2];

	(void)state;
	ntp_jspares__init(&sp);
	c[0] = c[1] = (struct churn){ &sp, 0 };
	ntp_jobs__run(churn_run, c, sizeof(*c), 2);
	assert_int_equal(c[0].fails + c[1].fails, 0);
	assert_in_range(sp.n, 1, NTP_JSPARES);
	ntp_jspares__fini(&sp);
	assert_int_equal(sp.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(take__kept_block_about_the_size__that_block),
		cmocka_unit_test(take__kept_block_over_twice_the_size__a_new_one),
		cmocka_unit_test(take__bigger_than_every_kept__a_new_one),
		cmocka_unit_test(give__small_block__freed_not_kept),
		cmocka_unit_test(give__pool_full__the_larger_kept),
		cmocka_unit_test(give_take__two_threads__pool_stays_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
