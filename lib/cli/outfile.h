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

struct ntp_outfile {
	FILE *f;		/* where to write */
	const char *path;	/* what the user named */
	char *tmp;		/* the new file, renamed to path when kept; NULL: in place */
	const char *what;	/* "the CSV file", in messages */
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
 * without, it is removed.  o->f == NULL (never opened) is a no-op.
 */
int ntp_outfile__close(struct ntp_outfile *o, bool keep);

#endif
