// SPDX-License-Identifier: GPL-2.0
/* Where ntprof's temporary files go (lib/core/tmpdir.h). */
#include <stdlib.h>

#include "lib/core/tmpdir.h"

const char *ntp_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}
