// SPDX-License-Identifier: GPL-2.0
/* The files the readers write (lib/cli/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/outfile.h"

int ntp_outfile__dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (!slash)
		n = snprintf(dir, len, ".");
	else if (slash == path)
		n = snprintf(dir, len, "/");
	else
		n = snprintf(dir, len, "%.*s", (int)(slash - path), path);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* does the regular file at path (or the one a link names) begin as an SQLite database does? */
static bool is_database(const char *path)
{
	static const char magic[16] = "SQLite format 3";	/* and its '\0': 16 bytes */
	char head[sizeof(magic)];
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	return n == (ssize_t)sizeof(head) && !memcmp(head, magic, sizeof(magic));
}

int ntp_outfile__check(const char *path, const char *what)
{
	/* a recording named where a report goes (-j FILE's FILE taken for an input) is kept */
	if (strcmp(path, "-") && is_database(path)) {
		ntp_error("%s: not replaced by %s: it is an SQLite database (a recording?); name"
			  " another file, or - for standard output", path, what);
		return NTP_EXIT_USAGE;
	}
	return 0;
}

static int open_out(struct ntp_outfile *o, const char *path, const char *what, bool database)
{
	struct stat st;
	char dir[4096];
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->what = what;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (!database && ntp_outfile__check(path, what))
		return NTP_EXIT_USAGE;
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			ntp_error("%s: cannot create %s: it is a directory", path, what);
			return NTP_EXIT_FAILURE;
		}
		o->f = fopen(path, "w");
		if (!o->f) {
			ntp_error("%s: cannot write %s: %s", path, what, strerror(errno));
			return NTP_EXIT_FAILURE;
		}
		return 0;
	}
	if (asprintf(&o->tmp, "%s.tmp-%d", path, (int)getpid()) < 0) {
		o->tmp = NULL;
		ntp_error("%s: cannot create %s: %s", path, what, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		ntp_outfile__dir(path, dir, sizeof(dir));
		ntp_error("%s: cannot create %s: %s: %s", path, what, dir, strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

int ntp_outfile__open(struct ntp_outfile *o, const char *path, const char *what)
{
	return open_out(o, path, what, false);
}

int ntp_outfile__open_recording(struct ntp_outfile *o, const char *path, const char *what)
{
	return open_out(o, path, what, true);
}

/* path (file or link) becomes path.old, then the new file becomes path */
static int move_into_place(struct ntp_outfile *o)
{
	struct stat st;
	char *old;

	if (!lstat(o->path, &st)) {
		if (asprintf(&old, "%s.old", o->path) < 0) {
			ntp_error("%s: %s", o->path, strerror(ENOMEM));
			return NTP_EXIT_FAILURE;
		}
		if (rename(o->path, old)) {
			ntp_error("%s: cannot rename it to %s: %s", o->path, old, strerror(errno));
			free(old);
			return NTP_EXIT_FAILURE;
		}
		free(old);
	}
	if (rename(o->tmp, o->path)) {
		ntp_error("%s: cannot rename %s to it: %s", o->path, o->tmp, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

int ntp_outfile__close(struct ntp_outfile *o, bool keep)
{
	int rc = 0;

	if (!o->f)
		return 0;
	if (o->f == stdout) {
		if (fflush(stdout) && keep) {
			ntp_error("writing %s to standard output: %s", o->what, strerror(errno));
			rc = NTP_EXIT_FAILURE;
		}
		o->f = NULL;
		return rc;
	}
	if ((ferror(o->f) | fclose(o->f)) && keep) {
		ntp_error("%s: cannot write %s: %s", o->path, o->what, strerror(errno ? errno : EIO));
		rc = NTP_EXIT_FAILURE;
	}
	o->f = NULL;
	if (o->tmp) {
		if (keep && !rc)
			rc = move_into_place(o);
		if (!keep || rc)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return rc;
}

bool ntp_outfile__same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int ntp_outfile__check_not_input(const char *path, const char *const *inputs, int n,
				 const char *opt)
{
	for (int i = 0; path && strcmp(path, "-") && i < n; i++) {
		if (ntp_outfile__same_file(path, inputs[i])) {
			ntp_error("%s: the output is the recording itself: choose another %s FILE",
				  path, opt);
			return NTP_EXIT_USAGE;
		}
	}
	return 0;
}
