// SPDX-License-Identifier: GPL-2.0
/*
 * Messages to people: one line each on stderr, prefixed with the program and
 * the subcommand so that a line in a script's log says where it came from.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/fmt/safe_text.h"

static const char *err_cmd;
static int err_verbosity = 1;
/* where messages go: stderr, or what a harness that runs many commands sets */
static FILE *err_stream;
/*
 * The last error's text, without the prefix: a JSON error document carries
 * the cause stderr gave, not a generic one (ntp_err__last).  Errors may come
 * from the report's scanning threads, hence the lock.
 */
static char err_last[1024];
static pthread_mutex_t err_last_lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread's errors kept here instead of printed (ntp_err__hold) */
static __thread char *err_held;
static __thread size_t err_held_len;

/*
 * every thread's first error, and its warnings' lines, kept here instead
 * of printed (ntp_err__defer), under err_last_lock
 */
static bool err_deferred;
static char err_defer_buf[1024];
static char *err_defer_warn;
static size_t err_defer_warn_len;
/* warnings held beyond this are dropped: a reader's few, not a flood */
#define ERR_DEFER_WARN_MAX 65536

void ntp_err__defer(void)
{
	pthread_mutex_lock(&err_last_lock);
	if (!err_deferred)
		err_defer_buf[0] = '\0';
	err_deferred = true;
	pthread_mutex_unlock(&err_last_lock);
}

void ntp_err__undefer(char *buf, size_t len, bool warnings)
{
	pthread_mutex_lock(&err_last_lock);
	if (len)
		snprintf(buf, len, "%s", err_deferred ? err_defer_buf : "");
	if (warnings && err_defer_warn)
		fputs(err_defer_warn, err_stream ? err_stream : stderr);
	free(err_defer_warn);
	err_defer_warn = NULL;
	err_defer_warn_len = 0;
	err_deferred = false;
	err_defer_buf[0] = '\0';
	pthread_mutex_unlock(&err_last_lock);
}

bool ntp_err__deferring(void)
{
	bool on;

	pthread_mutex_lock(&err_last_lock);
	on = err_deferred;
	pthread_mutex_unlock(&err_last_lock);
	return on;
}

/* a warning's whole line appended to the held ones, under err_last_lock */
static void defer_warning(const char *line)
{
	size_t n = strlen(line);
	char *p;

	if (err_defer_warn_len + n + 1 > ERR_DEFER_WARN_MAX)
		return;
	p = realloc(err_defer_warn, err_defer_warn_len + n + 1);
	if (!p)
		return;
	memcpy(p + err_defer_warn_len, line, n + 1);
	err_defer_warn = p;
	err_defer_warn_len += n;
}

void ntp_err__hold(char *buf, size_t len)
{
	err_held = len ? buf : NULL;
	err_held_len = len;
	if (err_held)
		buf[0] = '\0';
}

void ntp_err__set_cmd(const char *cmd)
{
	err_cmd = cmd;
}

const char *ntp_err__cmd(void)
{
	return err_cmd;
}

void ntp_err__set_stream(FILE *f)
{
	err_stream = f;
}

size_t ntp_err__last(char *buf, size_t len)
{
	size_t n;

	pthread_mutex_lock(&err_last_lock);
	n = strlen(err_last);
	if (len)
		snprintf(buf, len, "%s", err_last);
	pthread_mutex_unlock(&err_last_lock);
	return n;
}

void ntp_err__clear_last(void)
{
	pthread_mutex_lock(&err_last_lock);
	err_last[0] = '\0';
	pthread_mutex_unlock(&err_last_lock);
}

void ntp_err__set_verbosity(int level)
{
	err_verbosity = level < 0 ? 0 : level;
}

int ntp_err__verbosity(void)
{
	return err_verbosity;
}

/*
 * Format the whole line first and write it with one call, so that lines from
 * several threads (record's reader and its signal handling) do not interleave.
 * A trailing newline in fmt is accepted and not doubled.  errno is preserved:
 * callers often print a message and then look at errno again.
 */
static void say(const char *kind, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	char *msg = NULL;
	size_t len;

	if (vasprintf(&msg, fmt, ap) < 0) {
		/* out of memory: still say something rather than nothing */
		fputs("ntprof: error: out of memory while reporting an error\n", stderr);
		errno = saved_errno;
		return;
	}
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	/* messages name what files hold: no control sequence reaches the terminal */
	ntp_safe__clean(msg);
	if (err_held && !strcmp(kind, "error: ")) {
		if (!err_held[0])
			snprintf(err_held, err_held_len, "%s", msg);
		free(msg);
		errno = saved_errno;
		return;
	}
	if (!strcmp(kind, "error: ")) {
		bool deferred;

		pthread_mutex_lock(&err_last_lock);
		deferred = err_deferred;
		if (!deferred)
			snprintf(err_last, sizeof(err_last), "%s", msg);
		else if (!err_defer_buf[0])
			snprintf(err_defer_buf, sizeof(err_defer_buf), "%s", msg);
		pthread_mutex_unlock(&err_last_lock);
		if (deferred) {
			free(msg);
			errno = saved_errno;
			return;
		}
	}

	if (!strcmp(kind, "warning: ")) {
		char *line = NULL;
		bool deferred;

		pthread_mutex_lock(&err_last_lock);
		deferred = err_deferred;
		if (deferred && asprintf(&line, "ntprof%s%s: %s%s\n", err_cmd ? " " : "",
					 err_cmd ? err_cmd : "", kind, msg) >= 0)
			defer_warning(line);
		pthread_mutex_unlock(&err_last_lock);
		free(line);
		if (deferred) {
			free(msg);
			errno = saved_errno;
			return;
		}
	}

	fprintf(err_stream ? err_stream : stderr, "ntprof%s%s: %s%s\n", err_cmd ? " " : "", err_cmd ? err_cmd : "",
		kind, msg);
	free(msg);
	errno = saved_errno;
}

void ntp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("error: ", fmt, ap);
	va_end(ap);
}

void ntp_warn(const char *fmt, ...)
{
	va_list ap;

	if (err_verbosity < 1)
		return;
	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

void ntp_info(const char *fmt, ...)
{
	va_list ap;

	if (err_verbosity < 1)
		return;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void ntp_debug(const char *fmt, ...)
{
	va_list ap;

	if (err_verbosity < 2)
		return;
	va_start(ap, fmt);
	say("debug: ", fmt, ap);
	va_end(ap);
}
