/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ntprof record` records: --session nvmeXnY, --io-type read|write,
 * --size 4K,128K (ntprof-record(1), "What to record").
 *
 * The options are parsed and checked, and the namespace resolved through
 * sysfs, before anything is attached.  The result is struct ntp_filter of
 * bpf/ntp_filter.h, which the BPF programs take as it is and which says how
 * a namespace is matched.
 *
 * Commands of other opcodes than read and write are recorded only without
 * --io-type.  --size compares the request's data length in bytes.
 */
#ifndef NTP_FILTER_H
#define NTP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"
#include "bpf/ntp_filter.h"

#define NTP_FILTER_SYSFS_BLOCK "/sys/block"

/*
 * Each setter checks its option's value and fills its part of f; on error
 * it prints one line, "ntprof record: error: invalid value 'V' for option
 * '--O': why", and returns an NTP_EXIT_* code (NTP_EXIT_USAGE for a bad or
 * unknown value, NTP_EXIT_FAILURE when sysfs cannot be read), leaving f as
 * it was.  Start from a zeroed struct.
 */

/*
 * --session NAME: NAME must be a namespace disk nvmeXnY under sysfs_block
 * (NULL: NTP_FILTER_SYSFS_BLOCK; tests pass a fake tree), not a path disk
 * nvmeXcYnZ.  Reads NAME/nsid and NAME/dev; the controllers are those of
 * the path disks nvmeXc*nY when there are any (native multipath), else the
 * one NAME/device links to.
 */
int ntp_filter__set_session(struct ntp_filter *f, const char *sysfs_block, const char *name);
/* --io-type read|write */
int ntp_filter__set_io_type(struct ntp_filter *f, const char *type);
/* --size LIST: comma-separated sizes as ntp_opt__parse_size reads them (512, 4K, 128KiB, 1M) */
int ntp_filter__set_sizes(struct ntp_filter *f, const char *list);

/* ntp_filter__pass() on a host event */
bool ntp_filter__match_host(const struct ntp_filter *f, const struct ntp_host_event *e);
/*
 * ntp_filter__pass() on a target event, without the namespace: the target
 * does not know the host's controller numbers, and its nsid alone may
 * belong to any of its subsystems.
 */
bool ntp_filter__match_target(const struct ntp_filter *f, const struct ntp_target_event *e);

#endif
