/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor's privileges, dropped once its programs are attached: what it
 * does afterwards (read and sweep its maps through the descriptors it holds,
 * answer scrapes on its bound socket, detach by closing its links) needs
 * none, and the HTTP endpoint then runs as an unprivileged user.
 */
#ifndef NTP_MON_PRIV_H
#define NTP_MON_PRIV_H

#include <sys/types.h>

/*
 * Become uid/gid with no supplementary groups and no capabilities (as root:
 * setgroups, setgid, setuid; otherwise the capabilities cleared).  0, or
 * -errno with nothing half done that matters: the caller stops.
 */
int ntp_mon_priv__drop(uid_t uid, gid_t gid);

#endif
