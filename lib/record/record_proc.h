/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's one-line text files (/proc, /sys, configfs), as record reads them. */
#ifndef NTP_RECORD_PROC_H
#define NTP_RECORD_PROC_H

#include <stddef.h>

/* the first line of path, without its newline; "" when unreadable */
void ntp_record__read_line(const char *path, char *buf, size_t size);

#endif
