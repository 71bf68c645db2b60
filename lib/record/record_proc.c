// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's one-line text files that a recording reads for its meta and
 * its -r both filter: /proc/sys/kernel/random/boot_id, configfs, sysfs.
 */
#include <stdio.h>
#include <string.h>

#include "lib/record/record_proc.h"

void ntp_record__read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}
