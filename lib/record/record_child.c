// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of `ntprof record -- COMMAND`: started once the programs are
 * attached, so that its first I/O is seen; recording stops when it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/record/record_child.h"

/* 0, or the errno execve would fail with: a directory is no program */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	return access(path, X_OK) ? errno : 0;
}

/* what execvp would run: NAME with a '/', else the first executable NAME in $PATH */
static int find_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	int err = ENOENT;

	if (!*name)
		return ENOENT;
	if (strchr(name, '/'))
		return runnable(name);
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path; ; p = end + 1) {
		size_t len;

		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		/* an empty entry is the current directory, as for execvp */
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "", name) <
		    (int)sizeof(buf)) {
			int e = runnable(buf);

			if (!e)
				return 0;
			if (e != ENOENT && e != ENOTDIR)
				err = e;
		}
		if (!*end)
			break;
	}
	return err;
}

int ntp_record_child__check(const char *const *argv)
{
	int err = find_program(argv[0]);

	if (err) {
		ntp_error("cannot run '%s': %s", argv[0], strerror(err));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

int ntp_record_child__start(struct ntp_record_child *c, const char *const *argv)
{
	int fds[2], child_errno = 0;
	sigset_t none;
	ssize_t n;
	pid_t pid;

	c->pid = 0;
	c->reaped = false;
	c->name = argv[0];
	/* the child reports a failed exec through a pipe that a good exec closes */
	if (pipe2(fds, O_CLOEXEC)) {
		ntp_error("cannot start '%s': pipe: %s", argv[0], strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ntp_error("cannot start '%s': fork: %s", argv[0], strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NTP_EXIT_FAILURE;
	}
	if (pid == 0) {
		close(fds[0]);
		/* record's handlers are reset by exec, its mask is not */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		child_errno = errno;
		if (write(fds[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	do {
		n = read(fds[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(fds[0]);
	c->pid = pid;
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(pid, &c->status, 0);
		c->reaped = true;
		ntp_error("cannot run '%s': %s", argv[0], strerror(child_errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

bool ntp_record_child__exited(struct ntp_record_child *c)
{
	pid_t r;

	if (!c->pid || c->reaped)
		return c->reaped;
	r = waitpid(c->pid, &c->status, WNOHANG);
	if (r == c->pid)
		c->reaped = true;
	return c->reaped;
}

void ntp_record_child__stop(struct ntp_record_child *c, int sig, double grace_s)
{
	struct timespec nap = { .tv_nsec = 10 * 1000 * 1000 };
	int i, steps = (int)(grace_s * 100);

	if (!c->pid || ntp_record_child__exited(c))
		return;
	kill(c->pid, sig);
	for (i = 0; i < steps; i++) {
		if (ntp_record_child__exited(c))
			return;
		nanosleep(&nap, NULL);
	}
	ntp_warn("'%s' still runs %.0f s after %s: killing it", c->name, grace_s, strsignal(sig));
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->reaped = true;
}

void ntp_record_child__report(const struct ntp_record_child *c)
{
	if (!c->pid || !c->reaped)
		return;
	if (WIFEXITED(c->status))
		ntp_info("'%s' exited with status %d", c->name, WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status))
		ntp_info("'%s' was killed by signal %d (%s)", c->name, WTERMSIG(c->status),
			 strsignal(WTERMSIG(c->status)));
}
