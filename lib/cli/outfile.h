/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files the readers write (dump -o, export -o, report and compare -j,
 * check -j), made the same way for all, and the way record makes its own:
 *
 *  - "-" is standard output;
 *  - a regular file, a symbolic link (dangling or not) or nothing at PATH:
 *    the output is written to a new file beside it, and only when it is
 *    complete is the previous PATH, file or link, renamed to PATH.old and
 *    the new file to PATH.  Nothing is ever written through a link, and no
 *    half-written or empty PATH is left by a failure;
 *  - anything else (a device such as /dev/null, a FIFO) is written in place,
 *    and never removed;
 *  - an SQLite database (a recording) is not replaced by a report, a CSV
 *    file or a trace: given where one goes, it is taken for a mistake.
 */
#ifndef NTP_OUTFILE_H
#define NTP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A stream that keeps the errno of its first write that failed, which
 * stdio forgets (a failed flush drops its buffer, and ferror() says only
 * that something failed): every output file is one, and standard output
 * too once main has installed it (ntp_outfile__stdout_install).
 */
struct ntp_sink {
	int fd;
	int err;		/* errno of the first failed write or close; 0 */
};

struct ntp_outfile {
	FILE *f;		/* where to write */
	const char *path;	/* what the user named */
	char *tmp;		/* the new file, renamed to path when kept; NULL: in place */
	char what[64];		/* "the CSV file", in messages */
	struct ntp_sink *sink;	/* f's, for a file; NULL for standard output */
	bool told;		/* its failure was told (ntp_outfile__fail) */
};

/* the directory a file at path is made in ("." or "/" for short paths); 0 or -ENAMETOOLONG */
int ntp_outfile__dir(const char *path, char *dir, size_t len);

/*
 * 0, or NTP_EXIT_FAILURE after one line naming path, what and why.  An
 * SQLite database at path (a recording named where the output goes, as in
 * "report -j host.ntp target.ntp") is not replaced: NTP_EXIT_USAGE.
 */
int ntp_outfile__open(struct ntp_outfile *o, const char *path, const char *what);
/* that refusal alone, for a command that checks its output before it reads: 0 or NTP_EXIT_USAGE */
int ntp_outfile__check(const char *path, const char *what);
/* the same for an output that is a recording itself (ntprof join -o): one may be replaced */
int ntp_outfile__open_recording(struct ntp_outfile *o, const char *path, const char *what);

/* do a and b name one file (the same device and inode)? */
bool ntp_outfile__same_file(const char *a, const char *b);
/*
 * An output path ("-" is none) that is one of the recordings being read
 * would destroy it: NTP_EXIT_USAGE after one line naming the option
 * ("%s: the output is the recording itself: choose another OPT FILE"),
 * else 0.
 */
int ntp_outfile__check_not_input(const char *path, const char *const *inputs, int n,
				 const char *opt);

/*
 * Close o: with keep, the new file takes path's place (0, or
 * NTP_EXIT_FAILURE after one line when it could not be written or moved);
 * without, it is removed.  Either way a write to it that failed, and was
 * not told yet, is told in one line with its errno (without keep the
 * command's own exit status stands).  o->f == NULL (never opened) is a
 * no-op.
 */
int ntp_outfile__close(struct ntp_outfile *o, bool keep);

/*
 * Writing o failed: one line, "PATH: cannot write WHAT: why" or "writing
 * WHAT to standard output: why", why the errno of the first write that
 * failed (err, when the stream knows none; EIO when neither does).  Told
 * once per file, and once per process for standard output.
 * NTP_EXIT_FAILURE.
 */
int ntp_outfile__fail(struct ntp_outfile *o, int err);

/*
 * Standard output made a stream that keeps the errno of its first failed
 * write (main, before any output): buffered as stdio buffers it, by line
 * on a terminal.  0, or -errno and stdout as it was.
 */
int ntp_outfile__stdout_install(void);
/* the errno of standard output's first failed write or close; 0 when none or not installed */
int ntp_outfile__stdout_errno(void);
/* has a failure to write standard output been told already? */
bool ntp_outfile__stdout_told(void);
/* it has: main's last check says no more (ntp_outfile__fail does this) */
void ntp_outfile__stdout_tell(void);

#endif
