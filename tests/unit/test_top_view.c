// SPDX-License-Identifier: GPL-2.0
/*
 * lib/top/top_view.c: what a pause does to the intervals that end while it
 * lasts (a live recording goes on): the shown frame stays as it was, and
 * the end of the pause shows the latest interval and the whole run up to
 * its end, every command added meanwhile counted.  The screen is drawn
 * into a file in place of standard output and read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/record/live.h"
#include "lib/top/top_view.h"

struct fixture {
	struct ntp_top_screen scr;
	struct ntp_top_view v;
	struct ntp_live *l;
	FILE *screen;           /* what the view draws, standard output's place */
	int saved_stdout;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->scr.rows = 30;
	f->scr.cols = 130;
	f->v = (struct ntp_top_view){ .scr = &f->scr, .source = "live", .mode = NTP_LIVE_HOST,
				      .interval_s = 1.0 };
	f->l = ntp_live__new(NTP_LIVE_HOST, 1);
	assert_non_null(f->l);
	ntp_live__keep_total(f->l);
	f->screen = tmpfile();
	assert_non_null(f->screen);
	fflush(stdout);
	f->saved_stdout = dup(STDOUT_FILENO);
	assert_true(f->saved_stdout >= 0);
	assert_true(dup2(fileno(f->screen), STDOUT_FILENO) >= 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	fflush(stdout);
	dup2(f->saved_stdout, STDOUT_FILENO);
	close(f->saved_stdout);
	fclose(f->screen);
	ntp_top_view__free(&f->v);
	ntp_live__free(f->l);
	free(f);
	return 0;
}

/* the first line of the screen drawn last (after its home sequence), without escapes */
static void last_header(struct fixture *f, char *out, size_t len)
{
	char buf[65536], *p, *q;
	size_t n, k = 0;

	fflush(stdout);
	n = (size_t)pread(fileno(f->screen), buf, sizeof(buf) - 1, 0);
	assert_true(n > 0 && n < sizeof(buf) - 1);
	buf[n] = '\0';
	p = buf;
	while ((q = strstr(p, "\033[H")))       /* the last drawing */
		p = q + 3;
	q = strstr(p, "\r\n");
	assert_non_null(q);
	for (; p < q && k + 1 < len; p++) {
		if (*p == '\033') {             /* CSI ... final byte */
			while (p < q && !(*p >= '@' && *p <= '~' && *p != '['))
				p++;
			continue;
		}
		out[k++] = *p;
	}
	out[k] = '\0';
}

/* n reads of 4 KiB on nvme0n1, 100 us each */
static void add_reads(struct ntp_live *l, int n)
{
	struct ntp_host_event e;

	for (int i = 0; i < n; i++) {
		memset(&e, 0, sizeof(e));
		e.kind = NTP_EV_HOST_IO;
		e.opcode = 2;
		e.bytes = 4096;
		e.h_start = 1000000000ULL + (uint64_t)i * 1000;
		e.h_queue = e.h_start + 10000;
		e.h_cmd_sent = e.h_queue + 10000;
		e.h_recv = e.h_cmd_sent + 70000;
		e.h_done = e.h_recv + 10000;
		snprintf(e.disk, sizeof(e.disk), "nvme0n1");
		assert_int_equal(ntp_live__add_host(l, &e), 0);
	}
}

static void top_view__ticks_while_paused__shown_at_its_end(void **state)
{
	struct fixture *f = *state;
	struct ntp_top_view *v = &f->v;
	char h[512];

	add_reads(f->l, 2);
	assert_int_equal(ntp_top_view__tick(v, f->l, 1.0, 1.0), 0);
	assert_int_equal(v->shown.nrows, 1);
	assert_int_equal(v->shown.rows[0].n, 2);

	assert_false(ntp_top_view__key(v, ' '));
	assert_true(v->paused);
	add_reads(f->l, 3);
	assert_int_equal(ntp_top_view__tick(v, f->l, 2.0, 1.0), 0);
	add_reads(f->l, 5);
	assert_int_equal(ntp_top_view__tick(v, f->l, 3.0, 1.0), 0);
	/* paused: the first interval still shown, the two taken since said */
	assert_true(v->shown.elapsed_s == 1.0);
	assert_int_equal(v->shown.rows[0].n, 2);
	assert_int_equal(v->shown.all[0].n, 2);
	last_header(f, h, sizeof(h));
	assert_non_null(strstr(h, "  1.0s  "));
	assert_non_null(strstr(h, "  interval 0.0,1.0  "));
	assert_non_null(strstr(h, "[paused]  2 new"));

	assert_false(ntp_top_view__key(v, ' '));
	assert_false(v->paused);
	/* the latest interval and the whole run to its end, at once */
	assert_true(v->shown.elapsed_s == 3.0 && v->shown.span_s == 1.0);
	assert_int_equal(v->shown.nrows, 1);
	assert_int_equal(v->shown.rows[0].n, 5);
	assert_int_equal(v->shown.nall, 1);
	assert_int_equal(v->shown.all[0].n, 10);
	last_header(f, h, sizeof(h));
	assert_non_null(strstr(h, "  3.0s  "));
	assert_non_null(strstr(h, "  interval 2.0,3.0  "));
	assert_null(strstr(h, "paused"));

	/* the next tick after the pause is the next interval, nothing counted twice */
	add_reads(f->l, 7);
	assert_int_equal(ntp_top_view__tick(v, f->l, 4.0, 1.0), 0);
	assert_int_equal(v->shown.rows[0].n, 7);
	assert_int_equal(v->shown.all[0].n, 17);
}

static void top_view__pause_without_ticks__resumes_the_same_frame(void **state)
{
	struct fixture *f = *state;
	struct ntp_top_view *v = &f->v;
	char h[512];

	add_reads(f->l, 4);
	assert_int_equal(ntp_top_view__tick(v, f->l, 1.0, 1.0), 0);
	assert_false(ntp_top_view__key(v, ' '));
	last_header(f, h, sizeof(h));
	assert_non_null(strstr(h, "[paused]"));
	assert_null(strstr(h, "new"));
	assert_false(ntp_top_view__key(v, ' '));
	assert_true(v->shown.elapsed_s == 1.0);
	assert_int_equal(v->shown.rows[0].n, 4);
	assert_int_equal(v->shown.all[0].n, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(top_view__ticks_while_paused__shown_at_its_end,
						setup, teardown),
		cmocka_unit_test_setup_teardown(top_view__pause_without_ticks__resumes_the_same_frame,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
