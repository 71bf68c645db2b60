// SPDX-License-Identifier: GPL-2.0
/* The state of a recording's file, and how a reader opens it (lib/ntp/db_state.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ntp/db_schema.h"
#include "lib/ntp/db_state.h"

/*
 * Where SQLite's unix VFS takes its POSIX locks (SQLite's os_unix.c): on
 * the database, the pending byte at 1 GiB, the reserved byte after it and
 * 510 shared bytes; on FILE-shm, the WAL's eight lock bytes at 120 and the
 * byte at 128 that every connection of a WAL database holds while open.
 */
#define DB_LOCK_START 0x40000000
#define DB_LOCK_LEN 512
#define DB_SHARED_START (DB_LOCK_START + 2)
#define DB_SHARED_LEN 510
#define SHM_LOCK_START 120
#define SHM_LOCK_LEN 9

/* a rollback journal's first eight bytes while it holds a transaction to undo */
static const unsigned char journal_magic[8] = { 0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7 };

/* "PATH-wal" and the like into buf; 0, or -ENAMETOOLONG */
static int ntp_db__side_path(char *buf, size_t len, const char *path, const char *suffix)
{
	return snprintf(buf, len, "%s%s", path, suffix) >= (int)len ? -ENAMETOOLONG : 0;
}

bool ntp_db__has_spool(const char *path)
{
	char spool[4096];
	struct stat st;

	return !ntp_db__side_path(spool, sizeof(spool), path, NTP_SPOOL_SUFFIX) && !lstat(spool, &st);
}

/*
 * The pid of another process holding a lock on len bytes at start of fd
 * (with type F_RDLCK, one holding a write lock there); 0 when none
 */
static pid_t lock_holder_of(int fd, off_t start, off_t len, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start,
			    .l_len = len };

	if (fcntl(fd, F_GETLK, &fl) || fl.l_type == F_UNLCK)
		return 0;
	/* a lock of another machine's process (NFS) or an OFD lock has no pid here */
	return fl.l_pid > 0 ? fl.l_pid : -1;
}

static pid_t lock_holder(int fd, off_t start, off_t len)
{
	return lock_holder_of(fd, start, len, F_WRLCK);
}

/* st_size of PATH-suffix, -1 when absent; the first n bytes into buf */
static off_t side_file(const char *path, const char *suffix, unsigned char *buf, size_t n,
		       pid_t *holder, off_t lock_start, off_t lock_len)
{
	char name[4096];
	struct stat st;
	int fd;

	if (ntp_db__side_path(name, sizeof(name), path, suffix))
		return -1;
	fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (buf && (st.st_size < (off_t)n || pread(fd, buf, n, 0) != (ssize_t)n))
		memset(buf, 0, n);
	if (holder && !*holder)
		*holder = lock_holder(fd, lock_start, lock_len);
	close(fd);
	return st.st_size;
}

void ntp_db__state(const char *path, const unsigned char *h, size_t n, struct ntp_db_file *f)
{
	unsigned char jh[sizeof(journal_magic)];
	off_t wal, journal;
	int fd;

	memset(f, 0, sizeof(*f));
	f->ntp_header = n >= 72 && ((unsigned)h[68] << 24 | (unsigned)h[69] << 16 |
				    (unsigned)h[70] << 8 | h[71]) == NTP_DB_APPLICATION_ID;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		f->holder = lock_holder(fd, DB_LOCK_START, DB_LOCK_LEN);
		/* SQLite's EXCLUSIVE lock: a write lock on the shared bytes, which no reader passes */
		f->exclusive = lock_holder_of(fd, DB_SHARED_START, DB_SHARED_LEN, F_RDLCK) != 0;
		close(fd);
	}
	/* a WAL database's connections hold a byte of FILE-shm, whatever their lock on FILE */
	side_file(path, "-shm", NULL, 0, &f->holder, SHM_LOCK_START, SHM_LOCK_LEN);
	if (f->holder) {
		f->state = NTP_DB_LIVE;
		return;
	}
	/*
	 * SQLite opens the log when byte 19, the write version, is 2.  (An
	 * empty FILE is read as a finished one: a reader without immutable
	 * would delete the FILE-wal beside it as stale.)
	 */
	if (n > 19 && h[19] == 2) {
		wal = side_file(path, "-wal", NULL, 0, NULL, 0, 0);
		f->state = wal > 0 ? NTP_DB_WAL : wal == 0 ? NTP_DB_WAL_EMPTY : NTP_DB_WAL_MISSING;
		return;
	}
	journal = side_file(path, "-journal", jh, sizeof(jh), NULL, 0, 0);
	f->state = journal >= (off_t)sizeof(jh) && !memcmp(jh, journal_magic, sizeof(jh)) ?
		   NTP_DB_HOT_JOURNAL : NTP_DB_FINISHED;
}

int ntp_db__probe(const char *path, struct ntp_db_file *f)
{
	unsigned char h[100];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = pread(fd, h, sizeof(h), 0);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	ntp_db__state(path, h, (size_t)n, f);
	return 0;
}

char *ntp_db__read_uri(const char *path, enum ntp_db_state st)
{
	switch (st) {
	case NTP_DB_LIVE:
		return ntp_db__file_uri(path, "ro");
	case NTP_DB_WAL:
		/* unix-none: no locks, no FILE-shm; the index is kept by exclusive mode */
		return ntp_db__file_uri(path, "ro&vfs=unix-none");
	default:
		return ntp_db__file_uri(path, "ro&immutable=1");
	}
}

bool ntp_db__read_exclusive(enum ntp_db_state st)
{
	return st == NTP_DB_WAL;
}

/* "file:" URI of a path: everything but unreserved characters and '/' escaped */
char *ntp_db__file_uri(const char *path, const char *mode)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	char *u = malloc(3 * n + strlen(mode) + 16), *p;

	if (!u)
		return NULL;
	p = stpcpy(u, "file:");
	for (; *path; path++) {
		unsigned char c = *path;

		if (isalnum(c) || strchr("/-._~", c)) {
			*p++ = c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	sprintf(p, "?mode=%s", mode);
	return u;
}
