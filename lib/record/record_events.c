// SPDX-License-Identifier: GPL-2.0
/*
 * The way of one record from a ring buffer: the filters again in user
 * space, then the live lines, then the writer.  The collectors apply the
 * filters where their BPF programs can; this makes sure of it for every
 * kernel and hook.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/filter.h"
#include "lib/ntp/db_write.h"
#include "lib/record/live.h"
#include "lib/record/record_priv.h"
#include "lib/record/record_proc.h"

/* -r both --session: the backend nvmet serves the namespace from, when this machine's target does */
static void session_target_device(struct ntp_record_session *s)
{
	const struct ntp_filter *f = s->o->filter;
	char path[PATH_MAX], nqn[256], dev[PATH_MAX], real[PATH_MAX];
	const char *base;
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/%s/device/subsysnqn", s->o->filter_session);
	ntp_record__read_line(path, nqn, sizeof(nqn));
	if (!nqn[0] || strchr(nqn, '/'))
		return;
	snprintf(path, sizeof(path), "/sys/kernel/config/nvmet/subsystems/%s/namespaces/%u/device_path",
		 nqn, f->nsid);
	ntp_record__read_line(path, dev, sizeof(dev));
	/* the target records a disk's name (follow /dev/disk/by-id links to it), a file's as given */
	if (dev[0] && !stat(dev, &st) && S_ISBLK(st.st_mode) && realpath(dev, real))
		snprintf(dev, sizeof(dev), "%s", real);
	base = strrchr(dev, '/');
	base = base ? base + 1 : dev;
	if (!*base)
		return;
	/* as the BPF side stores it: at most NTP_DISK_NAME_LEN - 1 bytes */
	snprintf(s->tgt_device, sizeof(s->tgt_device), "%.*s", NTP_DISK_NAME_LEN - 1, base);
	ntp_debug("--session %s: target records of backend %s", s->o->filter_session, s->tgt_device);
}

/* -r both --session: failing the backend, the cntlids of the namespace's controllers, from sysfs */
int ntp_record__prepare_filter(struct ntp_record_session *s)
{
	const struct ntp_filter *f = s->o->filter;
	char path[64], buf[32];
	unsigned int i, v;

	if (s->o->role != NTP_RECORD_BOTH || !f || !(f->flags & NTP_FILTER_NS))
		return 0;
	session_target_device(s);
	if (s->tgt_device[0])
		return 0;
	ntp_warn("--session %s: no nvmet namespace here serves it: keeping the target's records "
		 "by controller and namespace id", s->o->filter_session);

	for (i = 0; i < f->nctrls && i < NTP_FILTER_MAX_CTRLS; i++) {
		snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/cntlid", f->ctrls[i]);
		ntp_record__read_line(path, buf, sizeof(buf));
		if (sscanf(buf, "%u", &v) != 1 || v > UINT16_MAX) {
			ntp_error("--session %s: cannot read the controller id of nvme%u: %s",
				  s->o->filter_session, f->ctrls[i], path);
			return NTP_EXIT_FAILURE;
		}
		s->cntlids[s->ncntlids++] = (uint16_t)v;
	}
	return 0;
}

static bool keep_host(const struct ntp_record_session *s, const struct ntp_host_event *e)
{
	return !s->o->filter || ntp_filter__match_host(s->o->filter, e);
}

/*
 * The target does not know the host's namespace names.  On one machine (-r
 * both) the namespace's subsystem and nsid lead through nvmet's configfs to
 * the backend the target records; failing that, the namespace's
 * controllers tell their cntlid: (cntlid, nsid) is the namespace unless two
 * subsystems exported here share both numbers.
 */
static bool keep_target(const struct ntp_record_session *s, const struct ntp_target_event *e)
{
	const struct ntp_filter *f = s->o->filter;
	unsigned int i;

	if (!f)
		return true;
	if (!ntp_filter__match_target(f, e))
		return false;
	if (!(f->flags & NTP_FILTER_NS) || s->o->role != NTP_RECORD_BOTH)
		return true;
	if (s->tgt_device[0])
		return !strncmp(e->device, s->tgt_device, sizeof(e->device));
	if (e->nsid != f->nsid)
		return false;
	for (i = 0; i < s->ncntlids; i++)
		if (s->cntlids[i] == e->cntlid)
			return true;
	return false;
}

/*
 * The writer's answer for a record: its error stops the poll loop; once the
 * rings are being drained, the writer has counted a refused record lost and
 * the next one is handed over all the same.
 */
static int written(const struct ntp_record_session *s, int err)
{
	return s->draining ? 0 : err;
}

int ntp_record__on_host_event(void *ctx, const struct ntp_host_event *e)
{
	struct ntp_record_session *s = ctx;
	int err;

	if (!keep_host(s, e))
		return 0;
	if (s->match)
		ntp_live_match__add_host(s->match, e);
	else if (s->live && !s->live_err) {
		err = ntp_live__add_host(s->live, e);
		if (err)
			ntp_record__live_failed(s, err);
	}
	return written(s, ntp_writer__add_host_io(s->w, e));
}

int ntp_record__on_target_event(void *ctx, const struct ntp_target_event *e)
{
	struct ntp_record_session *s = ctx;
	int err;

	if (!keep_target(s, e))
		return 0;
	if (s->match)
		ntp_live_match__add_target(s->match, e);
	else if (s->live && !s->live_err) {
		err = ntp_live__add_target(s->live, e);
		if (err)
			ntp_record__live_failed(s, err);
	}
	return written(s, ntp_writer__add_target_io(s->w, e));
}
