// SPDX-License-Identifier: GPL-2.0
/*
 * lib/collect/collector.c's hooks table without a kernel: ntp_collector__plan() on a
 * hand-made collector, for the two tracepoints-only rules the host and the
 * target collectors rely on (rows without a function hook kept, or turned
 * to "none"), the kprobe-mode causes and notes, and a hook with no kprobe.
 * The flavour of a loaded program needs real programs: tests/bpf and the
 * test bed cover that.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/collect/collector.h"

enum { R_DERIVED, R_HOOKED, R_TP, R_NONE, NROWS };

static const struct ntp_tp_row tp_rows[NROWS] = {
	[R_TP] = { "some_tp", "its tracepoint" },
};

/* four rows: derived (no hook), a hooked one, one with a tracepoint, one with none at all */
static void make(struct ntp_collector *c, bool keep)
{
	memset(c, 0, sizeof(*c));
	c->name = "test";
	c->nhooks = NROWS;
	c->nfh = 2;
	c->tp_rows = tp_rows;
	c->tp_keep_unhooked = keep;
	c->fh[0].func = "f_hooked";
	c->fh[1].func = "f_tp";
	c->point_fh[R_DERIVED] = -1;
	c->point_fh[R_HOOKED] = 0;
	c->point_fh[R_TP] = 1;
	c->point_fh[R_NONE] = -1;
	ntp_hook__set(&c->hooks[R_DERIVED], "p_derived", "field", "derived", "read at %s", "x");
	ntp_hook__set(&c->hooks[R_HOOKED], "p_hooked", "f_hooked", "fentry", "base reason");
	ntp_hook__set(&c->hooks[R_TP], "p_tp", "f_tp", "fentry", "tp base");
	ntp_hook__set(&c->hooks[R_NONE], "p_none", "none", "none", "not in this kernel");
}

static void assert_row(const struct ntp_hook *h, const char *point, const char *hook,
		       const char *flavour, const char *reason)
{
	assert_string_equal(h->point, point);
	assert_string_equal(h->hook, hook);
	assert_string_equal(h->flavour, flavour);
	assert_string_equal(h->reason, reason);
}

static void test_fentry_unchanged(void **state)
{
	struct ntp_collector c;
	struct ntp_hook out[NROWS];
	int i;

	(void)state;
	make(&c, true);
	ntp_collector__plan(&c, NTP_RUN_FENTRY, "", out);
	for (i = 0; i < NROWS; i++) {
		assert_string_equal(out[i].flavour, c.hooks[i].flavour);
		assert_string_equal(out[i].reason, c.hooks[i].reason);
	}
}

/* the host's rule: rows without a function hook keep their text */
static void test_tp_keep_unhooked(void **state)
{
	struct ntp_collector c;
	struct ntp_hook out[NROWS];

	(void)state;
	make(&c, true);
	c.caps.tp_btf = true;
	ntp_collector__plan(&c, NTP_RUN_TP, "why", out);
	assert_row(&out[R_DERIVED], "p_derived", "field", "derived", "read at x");
	assert_row(&out[R_HOOKED], "p_hooked", "none", "none",
		   "tracepoints only (why): no tracepoint for this point");
	assert_row(&out[R_TP], "p_tp", "some_tp", "tp_btf", "tracepoints only (why): its tracepoint");
	assert_row(&out[R_NONE], "p_none", "none", "none", "not in this kernel");
	/* the collector's own table is untouched */
	assert_string_equal(c.hooks[R_TP].flavour, "fentry");
}

/* the target's rule: every row is its tracepoint or none */
static void test_tp_every_row(void **state)
{
	struct ntp_collector c;
	struct ntp_hook out[NROWS];

	(void)state;
	make(&c, false);
	ntp_collector__plan(&c, NTP_RUN_TP, "why", out);
	assert_row(&out[R_DERIVED], "p_derived", "none", "none",
		   "tracepoints only (why): no tracepoint for this point");
	assert_row(&out[R_TP], "p_tp", "some_tp", "raw_tp", "tracepoints only (why): its tracepoint");
	assert_row(&out[R_NONE], "p_none", "none", "none",
		   "tracepoints only (why): no tracepoint for this point");
}

/* a hook not wanted, or not in /proc/kallsyms, has no kprobe flavour */
static void test_kprobe_none(void **state)
{
	struct ntp_collector c;
	struct ntp_hook out[NROWS];

	(void)state;
	make(&c, true);
	c.kprobe_note[R_HOOKED] = "; a note";
	ntp_collector__plan(&c, NTP_RUN_KPROBE, "fentry failed", out);
	assert_row(&out[R_HOOKED], "p_hooked", "none", "none",
		   "f_hooked has no kprobe (not in /proc/kallsyms)");
	assert_row(&out[R_DERIVED], "p_derived", "field", "derived", "read at x");
	assert_row(&out[R_NONE], "p_none", "none", "none", "not in this kernel");
}

static void test_no_set(void **state)
{
	struct ntp_collector c;

	(void)state;
	make(&c, true);
	assert_int_equal(ntp_collector__programs(&c), 0);
	ntp_collector__stop(&c);        /* never started: nothing to detach */
	ntp_collector__stop(NULL);
	ntp_collector__free(NULL);
}

static void test_hook_set_truncates(void **state)
{
	struct ntp_hook h;
	char long_reason[1000];

	(void)state;
	memset(long_reason, 'a', sizeof(long_reason) - 1);
	long_reason[sizeof(long_reason) - 1] = '\0';
	ntp_hook__set(&h, "p", "h", "f", "%s", long_reason);
	assert_int_equal(strlen(h.reason), sizeof(h.reason) - 1);
}

/* the cross-check: a decision that saw fewer than half of at least 16 commands is blind */
static void test_blind(void **state)
{
	struct ntp_collector c;
	uint64_t cnt[NTP_CNT_MAX] = {};
	char msg[512];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.name = "target";
	c.decision = "nvmet_req_init";
	c.fabric = "the nvmet_req_complete tracepoint";
	cnt[NTP_CNT_FABRIC] = 5403;
	assert_true(ntp_collector__blind(&c, cnt, msg, sizeof(msg)));
	assert_string_equal(msg, "target: the decision (nvmet_req_init) saw 0 of the 5403 I/O commands "
			    "the nvmet_req_complete tracepoint counted: this kernel's hooks do not fit "
			    "what ntprof reads (ntprof check -r target says what each hook gets); the "
			    "recording is kept");
	/* far too few: less than half */
	cnt[NTP_CNT_SEEN] = 2701;
	assert_true(ntp_collector__blind(&c, cnt, msg, sizeof(msg)));
	cnt[NTP_CNT_SEEN] = 2702;       /* 2 x 2702 >= 5403: half, not blind */
	assert_false(ntp_collector__blind(&c, cnt, msg, sizeof(msg)));
	/* too few commands to tell (in flight at the start or the stop) */
	cnt[NTP_CNT_SEEN] = 0;
	cnt[NTP_CNT_FABRIC] = NTP_CROSSCHECK_MIN - 1;
	assert_false(ntp_collector__blind(&c, cnt, msg, sizeof(msg)));
	cnt[NTP_CNT_FABRIC] = NTP_CROSSCHECK_MIN;
	assert_true(ntp_collector__blind(&c, cnt, msg, sizeof(msg)));
	/* nothing to count with on this kernel: never */
	c.fabric = NULL;
	assert_false(ntp_collector__blind(&c, cnt, msg, sizeof(msg)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blind),
		cmocka_unit_test(test_fentry_unchanged),
		cmocka_unit_test(test_tp_keep_unhooked),
		cmocka_unit_test(test_tp_every_row),
		cmocka_unit_test(test_kprobe_none),
		cmocka_unit_test(test_no_set),
		cmocka_unit_test(test_hook_set_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
