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

/* ---- streams that keep their errno ------------------------------------------- */

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct ntp_sink *s = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(s->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!s->err)
				s->err = n < 0 ? errno : EIO;
			/* what was written counts; stdio asks again for the rest */
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int sink_close(void *cookie)
{
	struct ntp_sink *s = cookie;

	/* a file system may report a failed write only when the file is closed (NFS) */
	if (close(s->fd) && errno != EINTR) {
		if (!s->err)
			s->err = errno;
		return -1;
	}
	return 0;
}

static FILE *sink_open(struct ntp_sink *s, int fd)
{
	cookie_io_functions_t io = { .write = sink_write, .close = sink_close };

	s->fd = fd;
	s->err = 0;
	return fopencookie(s, "w", io);
}

static struct ntp_sink stdout_sink = { .fd = -1 };
static bool stdout_installed, stdout_told;

int ntp_outfile__stdout_install(void)
{
	FILE *f = sink_open(&stdout_sink, STDOUT_FILENO);

	if (!f)
		return -errno;
	/* as stdio's own: by line on a terminal, by block elsewhere (the pager changes it) */
	if (setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ)) {
		fclose(f);
		return -EINVAL;
	}
	stdout = f;
	stdout_installed = true;
	return 0;
}

int ntp_outfile__stdout_errno(void)
{
	return stdout_installed ? stdout_sink.err : 0;
}

bool ntp_outfile__stdout_told(void)
{
	return stdout_told;
}

void ntp_outfile__stdout_tell(void)
{
	stdout_told = true;
}

int ntp_outfile__fail(struct ntp_outfile *o, int err)
{
	if (o->told)
		return NTP_EXIT_FAILURE;
	o->told = true;
	if (!o->sink) {
		err = ntp_outfile__stdout_errno() ? ntp_outfile__stdout_errno() : err ? err : EIO;
		if (!stdout_told)
			ntp_error("writing %s to standard output: %s", o->what, strerror(err));
		stdout_told = true;
		return NTP_EXIT_FAILURE;
	}
	err = o->sink->err ? o->sink->err : err ? err : EIO;
	ntp_error("%s: cannot write %s: %s", o->path, o->what, strerror(err));
	return NTP_EXIT_FAILURE;
}

/* ---- the files --------------------------------------------------------------- */

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

static int drop_sink(struct ntp_outfile *o, int rc)
{
	free(o->sink);
	o->sink = NULL;
	return rc;
}

static int open_out(struct ntp_outfile *o, const char *path, const char *what, bool database)
{
	struct stat st;
	char dir[4096];
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	snprintf(o->what, sizeof(o->what), "%s", what);
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->sink = calloc(1, sizeof(*o->sink));
	if (!o->sink) {
		ntp_error("%s: cannot create %s: %s", path, what, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (!database && ntp_outfile__check(path, what))
		return drop_sink(o, NTP_EXIT_USAGE);
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			ntp_error("%s: cannot create %s: it is a directory", path, what);
			return drop_sink(o, NTP_EXIT_FAILURE);
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0 || !(o->f = sink_open(o->sink, fd))) {
			ntp_error("%s: cannot write %s: %s", path, what, strerror(errno));
			if (fd >= 0)
				close(fd);
			return drop_sink(o, NTP_EXIT_FAILURE);
		}
		return 0;
	}
	if (asprintf(&o->tmp, "%s.tmp-%d", path, (int)getpid()) < 0) {
		o->tmp = NULL;
		ntp_error("%s: cannot create %s: %s", path, what, strerror(ENOMEM));
		return drop_sink(o, NTP_EXIT_FAILURE);
	}
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || !(o->f = sink_open(o->sink, fd))) {
		int e = errno;

		ntp_outfile__dir(path, dir, sizeof(dir));
		ntp_error("%s: cannot create %s: %s: %s", path, what, dir, strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return drop_sink(o, NTP_EXIT_FAILURE);
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
	bool failed;
	int rc = 0;

	if (!o->f)
		return 0;
	if (!o->sink) {
		/* standard output stays open: main closes it, and says nothing more of it */
		failed = fflush(stdout) != 0;
		failed |= ferror(stdout) != 0;
		o->f = NULL;
		if (failed)
			ntp_outfile__fail(o, errno);
		return failed && keep ? NTP_EXIT_FAILURE : 0;
	}
	failed = ferror(o->f) != 0;
	failed |= fclose(o->f) != 0;
	o->f = NULL;
	/* told even when the command failed already: it may have failed of this */
	if (failed) {
		ntp_outfile__fail(o, errno);
		if (keep)
			rc = NTP_EXIT_FAILURE;
	}
	if (o->tmp) {
		if (keep && !rc)
			rc = move_into_place(o);
		if (!keep || rc)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->sink);
	o->sink = NULL;
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
