/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a reading command writes (report, compare, series): text on
 * standard output, and the files its options name, each a form of one
 * table (-j JSON, --csv, --html), a path or "-" for standard output, which
 * the text then leaves to it (ntprof(1), OUTPUT).  One driver for every
 * command:
 *
 *  - at most one form on standard output, and none over a recording being
 *    read; --pretty only with -j, and -t or -q not with -j - (they shape
 *    the text the JSON replaces): refused before anything is read;
 *  - each file made beside its path and renamed into place when whole
 *    (lib/cli/outfile.h), removed when the command fails, but for the JSON,
 *    which then holds the error document that says why;
 *  - the text made safe for a terminal (lib/fmt/safe_text.h).
 */
#ifndef NTP_OUTPUT_H
#define NTP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/cli/outfile.h"

enum ntp_form {
	NTP_FORM_JSON,
	NTP_FORM_CSV,
	NTP_FORM_HTML,
	NTP_NFORMS,
};

struct ntp_form_desc {
	const char *opt;          /* the option that names its file: "-j" */
	const char *noun;         /* "JSON": what "the JSON report" calls the file */
	bool kept_failed;         /* kept after a failure: it holds the error document */
};


struct ntp_output {
	/* what the command was asked for */
	const char *path[NTP_NFORMS];  /* each form's FILE, "-" for standard output; NULL: none */
	bool pretty;                   /* --pretty: indented JSON */
	const char *separator;         /* -t SEP: the text as separated fields */
	bool quiet;                    /* -q: the text without its header */
	const char *what;              /* "report": "the JSON report" in messages */
	/* the JSON error document: the cause of NTP_EXIT_MISMATCH, and its message's cut */
	const char *mismatch;
	size_t cut;
	/* made by ntp_output__open */
	struct ntp_outfile file[NTP_NFORMS];
	FILE *text;
	bool error_written;
};

/*
 * The combinations the header refuses, and no output over one of the
 * inputs[0..n).  0, or NTP_EXIT_USAGE after one line (with -j -, the error
 * document on standard output too).
 */
int ntp_output__check(struct ntp_output *o, const char *const *inputs, int n);
/* every form's file opened; 0 or an NTP_EXIT_* code after one line */
int ntp_output__open(struct ntp_output *o);
/* the form's stream, NULL when not asked for */
FILE *ntp_output__file(const struct ntp_output *o, enum ntp_form f);
/*
 * The text's stream, standard output made safe (opened at the first call,
 * after the pager has started), or NULL when a form writes to standard
 * output instead.  *err set to NTP_EXIT_FAILURE when it cannot be made.
 */
FILE *ntp_output__text(struct ntp_output *o, int *err);
/*
 * A failure before anything was printed, or after a JSON file (not
 * standard output) was begun: the JSON, when asked for, holds the error
 * document of code, and only it: the last error line's cause, or "PATH:
 * CAUSE" when none was printed.
 */
void ntp_output__fail(struct ntp_output *o, int code, const char *path);
/*
 * Everything closed: with rc == 0 every file takes its path's place; with
 * a failure only the JSON's error document does.  rc, or the first
 * failure to write.
 */
int ntp_output__close(struct ntp_output *o, int rc);

#endif
