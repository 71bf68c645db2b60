// SPDX-License-Identifier: GPL-2.0
/*
 * The pager (lib/cli/pager.h).  The pager reads a pipe that replaces file
 * descriptor 1, so everything written to stdout, through stdio or a wrapper
 * of it, reaches it; at exit fd 1 is closed, which ends the pager's input,
 * and the pager is waited for, so that the shell's prompt does not come
 * back under a pager still showing.  A pager that quits early makes the
 * next write fail with SIGPIPE, which ends ntprof quietly, as it ends git.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cli/pager.h"

static bool pager_disabled;
static pid_t pager_pid;

void ntp_pager__disable(void)
{
	pager_disabled = true;
}

/* is the default pager, less, on the PATH?  Without it the text is not paged */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n && n + strlen(name) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name);
			if (!access(buf, X_OK))
				return true;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/* the command to run, NULL for none: an empty one, or "cat", pages nothing */
static const char *pager_command(void)
{
	const char *p = getenv("NTPROF_PAGER");

	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = on_path("less") ? "less" : NULL;
	if (!p || !*p || !strcmp(p, "cat"))
		return NULL;
	return p;
}

static void wait_pager(void)
{
	int status;

	if (pager_pid <= 0)
		return;
	/* stdout may be closed already (main's finish): flush what is still open */
	fflush(NULL);
	close(STDOUT_FILENO);
	while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
}

/* interrupted: let the pager restore the terminal before ntprof dies of the signal */
static void on_signal(int sig)
{
	int status;

	close(STDOUT_FILENO);
	if (pager_pid > 0)
		while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
			;
	signal(sig, SIG_DFL);
	raise(sig);
}

bool ntp_pager__start(bool off, bool wide)
{
	const char *cmd;
	int fds[2];
	pid_t pid;

	if (off || pager_disabled || pager_pid || !isatty(STDOUT_FILENO))
		return false;
	cmd = pager_command();
	if (!cmd)
		return false;
	fflush(stdout);
	if (pipe(fds))
		return false;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (!pid) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		/*
		 * git's defaults: quit if one screen, raw colours, no clearing;
		 * and lines wider than the screen cut, not wrapped, when the
		 * text was not made to fit it (less -S)
		 */
		setenv("LESS", wide ? "FRXS" : "FRX", 0);
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	dup2(fds[1], STDOUT_FILENO);
	close(fds[0]);
	close(fds[1]);
	/* a pipe now, not the terminal: written by block, as stdio would (flushed above) */
	setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
	pager_pid = pid;
	atexit(wait_pager);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGTERM, on_signal);
	return true;
}
