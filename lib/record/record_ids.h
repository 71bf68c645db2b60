/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVMe over Fabrics names of this machine, as a recording stores them
 * (schema/ntp.sql, table nvmf_ids; ntprof-ntp(5)): what ties its commands
 * to the machines and subsystems on the other end, since a cntlid alone
 * starts again at 1 on every target.
 *
 *  - the host: each controller of /sys/class/nvme (nvmeX): its subsystem
 *    NQN, cntlid, transport, the target's address and service id, the
 *    host's own address where the kernel says it, and the host NQN;
 *  - the target, from nvmet's configfs (/sys/kernel/config/nvmet): each
 *    subsystem, each port (one row per subsystem linked to it), each
 *    namespace with its backing device, and, where the kernel has nvmet's
 *    debugfs (/sys/kernel/debug/nvmet, CONFIG_NVME_TARGET_DEBUGFS), each
 *    controller with the host NQN and address it serves.
 *
 * The roots are arguments, so that the tests can give a tree of their own.
 */
#ifndef NTP_RECORD_IDS_H
#define NTP_RECORD_IDS_H

#include <stddef.h>

#include "lib/ntp/db_write.h"

#define NTP_IDS_SYSFS "/sys/class/nvme"
#define NTP_IDS_CONFIGFS "/sys/kernel/config/nvmet"
#define NTP_IDS_DEBUGFS "/sys/kernel/debug/nvmet"

/* rows as read: each field allocated (NULL: none), as struct ntp_nvmf_id names them */
struct ntp_nvmf_ids {
	struct ntp_nvmf_id *v;
	size_t n, cap;
};

/* every controller under class_dir (NTP_IDS_SYSFS) into ids; 0 or -ENOMEM */
int ntp_nvmf_ids__read_host(struct ntp_nvmf_ids *ids, const char *class_dir);
/*
 * the subsystems, ports and namespaces under configfs_dir (NTP_IDS_CONFIGFS),
 * and the controllers under debugfs_dir (NTP_IDS_DEBUGFS) where it exists;
 * 0 or -ENOMEM
 */
int ntp_nvmf_ids__read_target(struct ntp_nvmf_ids *ids, const char *configfs_dir,
			      const char *debugfs_dir);
/* is a row equal to one in ids (every field)? */
int ntp_nvmf_ids__has(const struct ntp_nvmf_ids *ids, const struct ntp_nvmf_id *id);
void ntp_nvmf_ids__free(struct ntp_nvmf_ids *ids);

#endif
