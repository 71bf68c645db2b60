/* SPDX-License-Identifier: GPL-2.0 */
/* The name of an I/O size, as every table shows it. */
#ifndef NTP_SIZE_H
#define NTP_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* "4KiB", "128KiB", "1MiB", "512B": the largest binary unit that divides bytes */
void ntp_size__str(int64_t bytes, char *buf, size_t len);

#endif
