// SPDX-License-Identifier: GPL-2.0
/*
 * lib/join/join_progress.c: the join's progress line is written only to a
 * terminal, only once the join has taken a second, at most ten times a
 * second, and is erased at the end; -q (verbosity 0) or a stderr that is a
 * pipe get nothing.  Standard error is pointed at a pseudo-terminal or a
 * pipe, and what reaches it is read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli/err.h"
#include "lib/join/join_base.h"

/* the progress objects, made before the quiet second passes, and where their stderr goes */
static struct {
	int saved_err, pty_master, pty_slave, pipe_rd, pipe_wr;
	struct ntp_jprogress *tty, *quiet, *piped;
} t;

/* fd 2 (and stderr's FILE) onto fd */
static void stderr_to(int fd)
{
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
}

/* what reached the reading end fd so far (it does not block) */
static void drain(int fd, char *buf, size_t size)
{
	ssize_t n;
	size_t got = 0;

	fflush(stderr);
	while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
}

static int setup(void **state)
{
	struct timespec quiet = { 1, 50 * 1000 * 1000 };
	int p[2];

	(void)state;
	ntp_err__set_cmd("report");
	t.saved_err = dup(STDERR_FILENO);
	t.pty_master = posix_openpt(O_RDWR | O_NOCTTY);
	if (t.saved_err < 0 || t.pty_master < 0 || grantpt(t.pty_master) || unlockpt(t.pty_master))
		return -1;
	t.pty_slave = open(ptsname(t.pty_master), O_RDWR | O_NOCTTY);
	if (t.pty_slave < 0 || pipe(p))
		return -1;
	t.pipe_rd = p[0];
	t.pipe_wr = p[1];
	fcntl(t.pty_master, F_SETFL, O_NONBLOCK);
	fcntl(t.pipe_rd, F_SETFL, O_NONBLOCK);

	stderr_to(t.pty_slave);
	t.tty = ntp_jprogress__new();
	ntp_err__set_verbosity(0);
	t.quiet = ntp_jprogress__new();
	ntp_err__set_verbosity(1);
	stderr_to(t.pipe_wr);
	t.piped = ntp_jprogress__new();
	stderr_to(t.saved_err);
	if (!t.tty || !t.quiet || !t.piped)
		return -1;
	/* before the quiet second is over: nothing, even on a terminal */
	stderr_to(t.pty_slave);
	ntp_jprogress__set(t.tty, "reading the files", 0, 0);
	stderr_to(t.saved_err);
	nanosleep(&quiet, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	stderr_to(t.saved_err);
	free(t.tty);
	free(t.quiet);
	free(t.piped);
	close(t.pty_master);
	close(t.pty_slave);
	close(t.pipe_rd);
	close(t.pipe_wr);
	close(t.saved_err);
	return 0;
}

static void terminal__after_a_second__one_line_rewritten_then_erased(void **state)
{
	char buf[1024];

	(void)state;
	/* the line of the setup's early call never came */
	drain(t.pty_master, buf, sizeof(buf));
	assert_string_equal(buf, "");

	stderr_to(t.pty_slave);
	ntp_jprogress__set(t.tty, "pairing commands", 1, 4);
	/* within a tenth of a second of the last: not written again */
	ntp_jprogress__set(t.tty, "pairing commands", 2, 4);
	stderr_to(t.saved_err);
	drain(t.pty_master, buf, sizeof(buf));
	assert_string_equal(buf, "\r[ ntprof report: joining: pairing commands:  25% ]\033[K");

	stderr_to(t.pty_slave);
	ntp_jprogress__end(t.tty);
	/* erased once: a second end writes nothing */
	ntp_jprogress__end(t.tty);
	stderr_to(t.saved_err);
	drain(t.pty_master, buf, sizeof(buf));
	assert_string_equal(buf, "\r\033[K");
}

static void quiet_or_pipe__nothing(void **state)
{
	char buf[256];

	(void)state;
	stderr_to(t.pty_slave);
	ntp_jprogress__set(t.quiet, "pairing commands", 0, 0);
	ntp_jprogress__end(t.quiet);
	stderr_to(t.pipe_wr);
	ntp_jprogress__set(t.piped, "pairing commands", 0, 0);
	ntp_jprogress__end(t.piped);
	stderr_to(t.saved_err);
	drain(t.pty_master, buf, sizeof(buf));
	assert_string_equal(buf, "");
	drain(t.pipe_rd, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(terminal__after_a_second__one_line_rewritten_then_erased),
		cmocka_unit_test(quiet_or_pipe__nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
