/* SPDX-License-Identifier: GPL-2.0 */
/* Where ntprof's temporary files go (ntprof(1), ENVIRONMENT). */
#ifndef NTP_TMPDIR_H
#define NTP_TMPDIR_H

/* $TMPDIR, or /tmp when it is unset or empty */
const char *ntp_tmpdir(void);

#endif
