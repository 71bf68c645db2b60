// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/cli/err.c: the one-line message format, verbosity
 * levels, and errors held on one thread (ntp_err__hold).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli/err.h"

static FILE *tmp;
static int saved_fd;
static char out[1024];

/* stderr is unbuffered, so pointing fd 2 at a file catches every line */
static int capture(void **state)
{
	ntp_err__set_cmd("record");
	ntp_err__set_verbosity(1);
	tmp = tmpfile();
	saved_fd = dup(2);
	if (!tmp || saved_fd < 0 || dup2(fileno(tmp), 2) < 0)
		return -1;
	return 0;
}

static const char *captured(void)
{
	size_t n;

	fflush(stderr);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	return out;
}

static int restore(void **state)
{
	dup2(saved_fd, 2);
	close(saved_fd);
	fclose(tmp);
	return 0;
}

static void unit__error_with_cmd__prefixed_one_line(void **state)
{
	ntp_error("cannot open %s: %s", "x.ntp", strerror(ENOENT));
	assert_string_equal(captured(), "ntprof record: error: cannot open x.ntp: No such file or directory\n");
	assert_string_equal(ntp_err__cmd(), "record");
}

static void unit__error_without_cmd__program_only(void **state)
{
	ntp_err__set_cmd(NULL);
	ntp_error("unknown command '%s'", "reprot");
	assert_string_equal(captured(), "ntprof: error: unknown command 'reprot'\n");
}

static void unit__trailing_newline__not_doubled(void **state)
{
	ntp_error("disk full\n");
	ntp_warn("lost %d events\n", 3);
	assert_string_equal(captured(), "ntprof record: error: disk full\n"
					"ntprof record: warning: lost 3 events\n");
}

static void unit__verbosity_normal__info_shown_debug_hidden(void **state)
{
	ntp_info("attached %d hooks", 4);
	ntp_debug("libbpf says hello");
	assert_string_equal(captured(), "ntprof record: attached 4 hooks\n");
}

static void unit__verbosity_verbose__debug_shown(void **state)
{
	ntp_err__set_verbosity(2);
	assert_int_equal(ntp_err__verbosity(), 2);
	ntp_debug("libbpf says %s", "hello");
	assert_string_equal(captured(), "ntprof record: debug: libbpf says hello\n");
}

static void unit__verbosity_quiet__only_errors(void **state)
{
	ntp_err__set_verbosity(0);
	ntp_info("hidden");
	ntp_warn("hidden");
	ntp_error("shown");
	assert_string_equal(captured(), "ntprof record: error: shown\n");
}

static void unit__negative_verbosity__clamped_to_quiet(void **state)
{
	ntp_err__set_verbosity(-3);
	assert_int_equal(ntp_err__verbosity(), 0);
}

static void unit__message__preserves_errno(void **state)
{
	errno = EACCES;
	ntp_error("x");
	assert_int_equal(errno, EACCES);
}

static void unit__held__first_error_kept_none_printed(void **state)
{
	char held[64], last[64];

	ntp_err__clear_last();
	ntp_error("before");
	ntp_err__hold(held, sizeof(held));
	ntp_error("%s: corrupt", "a.ntp");
	ntp_error("second");
	ntp_warn("a warning still shows");
	ntp_err__hold(NULL, 0);
	assert_string_equal(held, "a.ntp: corrupt");
	/* the last error told is still the one printed */
	ntp_err__last(last, sizeof(last));
	assert_string_equal(last, "before");
	ntp_error("after");
	assert_string_equal(captured(), "ntprof record: error: before\n"
			    "ntprof record: warning: a warning still shows\n"
			    "ntprof record: error: after\n");
}

static void unit__held__cut_to_its_buffer(void **state)
{
	char held[8];

	ntp_err__hold(held, sizeof(held));
	ntp_error("0123456789");
	ntp_err__hold(NULL, 0);
	assert_string_equal(held, "0123456");
	assert_string_equal(captured(), "");
}

static void *error_job(void *arg)
{
	(void)arg;
	ntp_error("from another thread");
	return NULL;
}

static void unit__held__other_threads_still_print(void **state)
{
	char held[64];
	pthread_t t;

	ntp_err__hold(held, sizeof(held));
	assert_int_equal(pthread_create(&t, NULL, error_job, NULL), 0);
	pthread_join(t, NULL);
	ntp_err__hold(NULL, 0);
	assert_string_equal(held, "");
	assert_string_equal(captured(), "ntprof record: error: from another thread\n");
}

#define T(f) cmocka_unit_test_setup_teardown(f, capture, restore)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(unit__error_with_cmd__prefixed_one_line),
		T(unit__error_without_cmd__program_only),
		T(unit__trailing_newline__not_doubled),
		T(unit__verbosity_normal__info_shown_debug_hidden),
		T(unit__verbosity_verbose__debug_shown),
		T(unit__verbosity_quiet__only_errors),
		T(unit__negative_verbosity__clamped_to_quiet),
		T(unit__message__preserves_errno),
		T(unit__held__first_error_kept_none_printed),
		T(unit__held__cut_to_its_buffer),
		T(unit__held__other_threads_still_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
