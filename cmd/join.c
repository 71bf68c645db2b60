// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof join: a host recording and its target's (or one "-r both"
 * recording, or several hosts and their targets) written as one joined
 * recording, with the pairing and the clock estimates in it, for report,
 * dump and plain sqlite3.  Documented in
 * ntprof-join(1); the join is lib/join's, the file's tables ntprof-ntp(5)'s.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/cli/outfile.h"
#include "lib/join/join.h"
#include "lib/model/model_check.h"
#include "lib/model/model_files.h"

static const char *const join_usage[] = {
	"ntprof join [options] -o FILE HOST.ntp TARGET.ntp",
	"ntprof join [options] -o FILE BOTH.ntp",
	"ntprof join [options] -o FILE HOST.ntp... TARGET.ntp...",
	NULL,
};

struct join_opts {
	const char *output;	/* -o: the joined recording */
	bool quiet;		/* -q: no summary line */
};

/* the output is a new SQLite file beside FILE: refuse what cannot be one */
static int check_output(const char *out, const char *const *paths, int n)
{
	struct stat st;

	if (!out) {
		ntp_error("no output given: usage: %s", join_usage[0]);
		return NTP_EXIT_USAGE;
	}
	if (!strcmp(out, "-")) {
		ntp_error("-o -: a recording cannot be written to standard output; name a file");
		return NTP_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		if (ntp_outfile__same_file(out, paths[i])) {
			ntp_error("%s: the output is a recording being joined: choose another -o FILE",
				  out);
			return NTP_EXIT_USAGE;
		}
	}
	/* before the join, not after it: as lib/cli/outfile.c would refuse them */
	if (!lstat(out, &st) && S_ISDIR(st.st_mode)) {
		ntp_error("%s: cannot create the joined recording: it is a directory", out);
		return NTP_EXIT_FAILURE;
	}
	/* SQLite writes a file by its name: a device or a FIFO cannot hold one */
	if (!lstat(out, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		ntp_error("%s: cannot write a recording there: not a regular file", out);
		return NTP_EXIT_USAGE;
	}
	return 0;
}

static void summary(const struct ntp_join *j, const char *out)
{
	const struct ntp_join_pair *p = ntp_join__pair(j, 0);
	struct ntp_join_counts c;

	ntp_join__counts(j, &c);
	printf("%s: %" PRId64 " of %" PRId64 " host commands joined with %" PRId64 " target commands; ",
	       out, c.matched, c.host_rows, c.target_rows);
	if (ntp_join__npairs(j) > 1)
		printf("%d host and target combinations, each with its clock estimate\n",
		       ntp_join__npairs(j));
	else if (p->clock != NTP_JOIN_CLOCK_TWO)
		printf("%s\n", ntp_join__clock_name(p->clock));
	else
		printf("clock offset %+.0f ns, drift %+.3f ppm\n", p->offset_ns, p->drift * 1e6);
}

static int join_write(const char *const *paths, int n, const struct join_opts *o)
{
	struct ntp_source *s = NULL;
	struct ntp_join *j = NULL;
	struct ntp_outfile of;
	int rc;

	rc = ntp_model__check_twice(paths, n);
	if (!rc)
		rc = check_output(o->output, paths, n);
	/* a "-r both" recording is paired anew, whatever pairing it holds */
	if (!rc)
		rc = ntp_source__open_files(&s, paths, n, true);
	if (!rc)
		rc = ntp_source__open_join(s, NULL, &j);
	if (rc) {
		rc = ntp_source__verdict(&s, 1, rc);
		ntp_source__close(s);
		return rc;
	}
	rc = ntp_join__run(j);
	/* the new file is made beside FILE and takes its place only when whole */
	if (!rc)
		rc = ntp_outfile__open_recording(&of, o->output, "the joined recording");
	if (!rc) {
		/* SQLite writes the file by its name; the stream is not used */
		rc = of.tmp ? ntp_join__write(j, of.tmp) : NTP_EXIT_FAILURE;
		/* and it takes its place once the recordings' check is done */
		rc = ntp_source__verdict(&s, 1, rc);
		rc = ntp_outfile__close(&of, !rc) ?: rc;
	} else {
		rc = ntp_source__verdict(&s, 1, rc);
	}
	if (!rc && !o->quiet)
		summary(j, o->output);
	ntp_join__close(j);
	ntp_source__close(s);
	return rc;
}

int cmd_join(int argc, const char **argv)
{
	struct join_opts o = { 0 };
	const struct ntp_option opts[] = {
		NTP_OPT_STRING('o', "output", &o.output, "FILE",
			       "write the joined recording to FILE (required; an existing FILE becomes FILE.old)"),
		NTP_OPT_BOOL('q', "quiet", &o.quiet, "print no summary line"),
		NTP_OPT_END(),
	};
	int n;

	ntp_err__set_cmd("join");
	n = ntp_opt__parse(opts, argc, argv, join_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n < 1 || n > NTP_JOIN_MAX_FILES) {
		if (n < 1)
			ntp_error("no recording given: usage: %s", join_usage[0]);
		else
			ntp_error("%d recordings given: at most %d can be joined", n,
				  NTP_JOIN_MAX_FILES);
		return NTP_EXIT_USAGE;
	}
	return join_write(argv, n, &o);
}
