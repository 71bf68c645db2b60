// SPDX-License-Identifier: GPL-2.0
/* A host queue's depth from the recording's meta (diag_depth.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/diag/diag_depth.h"
#include "lib/model/model_files.h"
#include "lib/ntp/db_meta.h"

int64_t ntp_diag__depth_in(const char *v, const char *ctrl)
{
	int64_t depth = -1;
	size_t n = strlen(ctrl);

	/* "nvme0=128 nvme1=32" */
	for (const char *p = v; p && *p; ) {
		const char *end = strchr(p, ' ');

		if (n && !strncmp(p, ctrl, n) && p[n] == '=')
			depth = strtoll(p + n + 1, NULL, 10);
		p = end ? end + 1 : p + strlen(p);
	}
	return depth > 0 ? depth : -1;
}

int64_t ntp_diag__ctrl_depth(const struct ntp_source *s, int file, const char *ctrl)
{
	char *v = ntp_source__meta_text(s, file, NTP_META_HOST_QUEUE_DEPTH);
	int64_t depth = ntp_diag__depth_in(v, ctrl);

	free(v);
	return depth;
}
