// SPDX-License-Identifier: GPL-2.0
/* report, dump: the recordings named on a command line, and the same file twice. */
#include <sys/stat.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model_paths.h"

int ntp_report__same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* one file twice is a slip of the command line, not a join (not even of a "-r both" file) */
int ntp_report__check_twice(const char *const *paths, int n)
{
	for (int i = 1; i < n; i++) {
		for (int k = 0; k < i; k++) {
			if (ntp_report__same_file(paths[i], paths[k])) {
				ntp_error("%s: the same recording given twice (as %s too)", paths[i],
					  paths[k]);
				return NTP_EXIT_USAGE;
			}
		}
	}
	return 0;
}
