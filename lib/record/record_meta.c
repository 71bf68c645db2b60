// SPDX-License-Identifier: GPL-2.0
/*
 * What a recording says about itself: the meta rows written at the start
 * (who, where, how, with which filters) and at the end (when and why it
 * stopped), and the hooks rows (what each stage boundary got on this
 * kernel), schema/ntp.sql.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "bpf/ntp_hash.h"
#include "lib/cli/version.h"
#include "lib/collect/collector.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/transport.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_write.h"
#include "lib/record/record_priv.h"
#include "lib/record/record_proc.h"

/* "host", "target" or "both" */
static const char *role_name(unsigned int role)
{
	switch (role) {
	case NTP_RECORD_HOST:
		return "host";
	case NTP_RECORD_TARGET:
		return "target";
	case NTP_RECORD_BOTH:
		return "both";
	}
	return "?";
}

int ntp_record__write_hooks(struct ntp_record_session *s)
{
	const struct ntp_record_side *sides[2] = { &s->host, &s->target };
	int i, r, err = 0;

	for (r = 0; r < 2 && !err; r++) {
		const struct ntp_collector *c = sides[r]->c;

		for (i = 0; c && i < c->nhooks && !err; i++)
			err = ntp_writer__add_hook(s->w, sides[r]->name, c->hooks[i].point,
						   c->hooks[i].hook, c->hooks[i].flavour,
						   c->hooks[i].reason);
	}
	return err;
}

/*
 * The host's controllers of the transport: their I/O queues and depth,
 * host_io_queues and host_queue_depth, where sysfs tells them
 */
static int write_queue_meta(struct ntp_record_session *s)
{
	char text[NTP_CTRLS_MAX * 24];
	int err = 0;

	if (!(s->o->role & NTP_RECORD_HOST) ||
	    !ntp_ctrls__scan(&s->ctrls, NTP_CTRLS_SYSFS, ntp_transport__name(s->o->transport)))
		return 0;
	ntp_ctrls__queues_text(&s->ctrls, text, sizeof(text));
	if (text[0])
		err = ntp_meta__set_text(s->w, NTP_META_HOST_IO_QUEUES, text);
	ntp_ctrls__depth_text(&s->ctrls, text, sizeof(text));
	if (!err && text[0])
		err = ntp_meta__set_text(s->w, NTP_META_HOST_QUEUE_DEPTH, text);
	return err;
}

int ntp_record__write_start_meta(struct ntp_record_session *s, uint64_t start_real_ns)
{
	const struct ntp_record_opts *o = s->o;
	struct ntp_writer *w = s->w;
	char host[256] = "", boot_id[64];
	struct utsname u;
	int err;

	if (uname(&u))
		u.release[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	ntp_record__read_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));

	err = ntp_meta__set_text(w, NTP_META_ROLE, role_name(o->role));
	err = err ?: ntp_meta__set_text(w, NTP_META_TRANSPORT, ntp_transport__name(o->transport));
	err = err ?: ntp_meta__set_int(w, NTP_META_SAMPLE_ONE_IN, (int64_t)o->sample_one_in);
	err = err ?: ntp_meta__set_int(w, NTP_META_HASH_VERSION, NTP_HASH_VERSION);
	err = err ?: ntp_meta__set_text(w, NTP_META_KERNEL_RELEASE, u.release);
	err = err ?: ntp_meta__set_text(w, NTP_META_HOSTNAME, host);
	err = err ?: ntp_meta__set_text(w, NTP_META_BOOT_ID, boot_id);
	err = err ?: ntp_meta__set_int(w, NTP_META_START_REALTIME_NS, (int64_t)start_real_ns);
	err = err ?: ntp_meta__set_int(w, NTP_META_START_NS, (int64_t)s->start_ns);
	err = err ?: ntp_meta__set_text(w, NTP_META_COMMAND_LINE, o->cmdline ? o->cmdline : "ntprof record");
	err = err ?: ntp_meta__set_text(w, NTP_META_NTPROF_VERSION, ntp_version_string);
	err = err ?: write_queue_meta(s);
	/* the target's backends, their counters' first read now */
	if (s->o->role & NTP_RECORD_TARGET)
		ntp_backends__scan(&s->backends, NTP_BACKENDS_CONFIGFS, NTP_BACKENDS_SYSFS, s->start_ns);
	return err ?: ntp_meta__set_filter(s->w, s->o->filter, s->o->filter_session);
}

/* a side's cross-check count, its kprobes' missed count where told, its programs' skipped runs */
static int write_side_meta(struct ntp_record_session *s, const struct ntp_record_side *sd,
			   enum ntp_meta_key fabric, enum ntp_meta_key missed, enum ntp_meta_key prog)
{
	const struct ntp_collector *c = sd->c;
	int err = 0;

	if (!c)
		return 0;
	if (c->fabric)
		err = ntp_meta__set_int(s->w, fabric, (int64_t)sd->prev[NTP_CNT_FABRIC]);
	if (!err && c->kprobe_links && c->kprobe_missed_told)
		err = ntp_meta__set_int(s->w, missed, (int64_t)c->kprobe_missed);
	if (!err)
		err = ntp_meta__set_int(s->w, prog, (int64_t)c->prog_missed);
	return err;
}

int ntp_record__write_ids(struct ntp_record_session *s)
{
	struct ntp_nvmf_ids now = { 0 };
	int err = 0;

	if (s->o->role & NTP_RECORD_HOST)
		err = ntp_nvmf_ids__read_host(&now, NTP_IDS_SYSFS);
	if (!err && (s->o->role & NTP_RECORD_TARGET))
		err = ntp_nvmf_ids__read_target(&now, NTP_IDS_CONFIGFS, NTP_IDS_DEBUGFS);
	if (err) {
		ntp_error("reading the NVMe over Fabrics names: %s", strerror(-err));
		ntp_nvmf_ids__free(&now);
		return NTP_EXIT_FAILURE;
	}
	for (size_t i = 0; i < now.n && !err; i++) {
		struct ntp_nvmf_id *id = &now.v[i];

		if (ntp_nvmf_ids__has(&s->ids, id))
			continue;
		err = ntp_writer__add_nvmf_id(s->w, id);
		if (err)
			break;
		/* moved to the written ones: its strings with it */
		if (s->ids.n == s->ids.cap) {
			size_t cap = s->ids.cap ? s->ids.cap * 2 : 8;
			struct ntp_nvmf_id *v = realloc(s->ids.v, cap * sizeof(*v));

			if (!v) {
				ntp_error("reading the NVMe over Fabrics names: %s", strerror(ENOMEM));
				err = NTP_EXIT_FAILURE;
				break;
			}
			s->ids.v = v;
			s->ids.cap = cap;
		}
		s->ids.v[s->ids.n++] = *id;
		memset(id, 0, sizeof(*id));
	}
	ntp_nvmf_ids__free(&now);
	return err;
}

int ntp_record__write_stop_meta(struct ntp_record_session *s, uint64_t stop_ns, const char *reason)
{
	int err;

	err = ntp_meta__set_int(s->w, NTP_META_STOP_NS, (int64_t)stop_ns);
	err = err ?: ntp_meta__set_int(s->w, NTP_META_DURATION_NS, (int64_t)(stop_ns - s->start_ns));
	/* ntprof's own cost (ntprof-ntp(5)): only when the kernel kept the statistics */
	if (s->have_cost) {
		err = err ?: ntp_meta__set_int(s->w, NTP_META_BPF_RUNS, (int64_t)s->bpf_runs);
		err = err ?: ntp_meta__set_int(s->w, NTP_META_BPF_RUN_NS, (int64_t)s->bpf_run_ns);
		err = err ?: ntp_meta__set_int(s->w, NTP_META_BPF_COMMANDS, (int64_t)s->bpf_commands);
		err = err ?: ntp_meta__set_int(s->w, NTP_META_BPF_WINDOW_NS, (int64_t)s->bpf_window_ns);
	}
	err = err ?: write_side_meta(s, &s->host, NTP_META_HOST_FABRIC_COMMANDS,
				     NTP_META_HOST_KPROBE_MISSED, NTP_META_HOST_PROG_MISSED);
	err = err ?: write_side_meta(s, &s->target, NTP_META_TARGET_FABRIC_COMMANDS,
				     NTP_META_TARGET_KPROBE_MISSED, NTP_META_TARGET_PROG_MISSED);
	if (s->ctrls.n)
		err = err ?: ntp_meta__set_int(s->w, NTP_META_HOST_CTRL_RESETS, s->ctrls.resets);
	return err ?: ntp_meta__set_text(s->w, NTP_META_STOP_REASON, reason);
}
