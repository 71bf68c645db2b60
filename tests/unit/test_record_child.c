// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/record/record_child.c: the workload of `ntprof record --
 * COMMAND`: found or not before loading, started, its exit seen, stopped
 * with a signal, and killed when it ignores the signal.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/record/record_child.h"

static void wait_exit(struct ntp_record_child *c)
{
	struct timespec nap = { .tv_nsec = 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1000 && !ntp_record_child__exited(c); i++)
		nanosleep(&nap, NULL);
}

static void test_check__found_in_path_or_by_name(void **state)
{
	const char *const sh[] = { "sh", NULL };
	const char *const abs[] = { "/bin/sh", NULL };

	assert_int_equal(ntp_record_child__check(sh), 0);
	assert_int_equal(ntp_record_child__check(abs), 0);
}

static void test_check__missing_or_not_executable__failure(void **state)
{
	const char *const missing[] = { "ntprof-no-such-command-here", NULL };
	const char *const path[] = { "/nonexistent/cmd", NULL };
	char file[] = "/tmp/ntprof-test-child-XXXXXX";
	const char *const noexec[] = { file, NULL };
	const char *const dir[] = { "/", NULL };
	const char *const empty[] = { "", NULL };
	int fd = mkstemp(file);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(ntp_record_child__check(missing), NTP_EXIT_FAILURE);
	assert_int_equal(ntp_record_child__check(path), NTP_EXIT_FAILURE);
	assert_int_equal(ntp_record_child__check(noexec), NTP_EXIT_FAILURE);
	assert_int_equal(ntp_record_child__check(dir), NTP_EXIT_FAILURE);
	assert_int_equal(ntp_record_child__check(empty), NTP_EXIT_FAILURE);
	unlink(file);
}

static void test_start__exit_status_seen(void **state)
{
	const char *const argv[] = { "sh", "-c", "exit 7", NULL };
	struct ntp_record_child c = { 0 };

	assert_int_equal(ntp_record_child__start(&c, argv), 0);
	assert_true(c.pid > 0);
	wait_exit(&c);
	assert_true(c.reaped);
	assert_true(WIFEXITED(c.status));
	assert_int_equal(WEXITSTATUS(c.status), 7);
}

static void test_start__exec_failure__failure_and_reaped(void **state)
{
	/* a directory passes no X_OK-only check in execvp: EACCES at exec time */
	const char *const argv[] = { "/", NULL };
	struct ntp_record_child c = { 0 };

	assert_int_equal(ntp_record_child__start(&c, argv), NTP_EXIT_FAILURE);
	assert_true(c.reaped);
}

static void test_stop__signal_ends_it(void **state)
{
	const char *const argv[] = { "sleep", "100", NULL };
	struct ntp_record_child c = { 0 };

	assert_int_equal(ntp_record_child__start(&c, argv), 0);
	assert_false(ntp_record_child__exited(&c));
	ntp_record_child__stop(&c, SIGTERM, 5.0);
	assert_true(c.reaped);
	assert_true(WIFSIGNALED(c.status));
	assert_int_equal(WTERMSIG(c.status), SIGTERM);
}

static void test_stop__ignored_signal__killed_after_grace(void **state)
{
	/* the shell ignores TERM and waits: only SIGKILL ends it */
	const char *const argv[] = { "sh", "-c", "trap '' TERM; while :; do sleep 0.05; done", NULL };
	struct ntp_record_child c = { 0 };
	struct timespec nap = { .tv_nsec = 200 * 1000 * 1000 };

	assert_int_equal(ntp_record_child__start(&c, argv), 0);
	nanosleep(&nap, NULL);  /* let it install the trap */
	ntp_record_child__stop(&c, SIGTERM, 0.3);
	assert_true(c.reaped);
	assert_true(WIFSIGNALED(c.status));
	assert_int_equal(WTERMSIG(c.status), SIGKILL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__found_in_path_or_by_name),
		cmocka_unit_test(test_check__missing_or_not_executable__failure),
		cmocka_unit_test(test_start__exit_status_seen),
		cmocka_unit_test(test_start__exec_failure__failure_and_reaped),
		cmocka_unit_test(test_stop__signal_ends_it),
		cmocka_unit_test(test_stop__ignored_signal__killed_after_grace),
	};

	ntp_err__set_cmd("record");
	ntp_err__set_verbosity(0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
