// SPDX-License-Identifier: GPL-2.0
/* The monitor's privileges dropped (lib/monitor/mon_priv.h). */
#include <errno.h>
#include <grp.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "lib/monitor/mon_priv.h"

static int clear_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

int ntp_mon_priv__drop(uid_t uid, gid_t gid)
{
	if (geteuid() == 0) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			return -errno;
		/* setuid() from root to another user clears the capabilities; be sure */
		if (getuid() != uid || geteuid() != uid || setuid(0) == 0)
			return -EPERM;
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return clear_caps();
}
