// SPDX-License-Identifier: GPL-2.0
/*
 * What a recording says about itself: the meta rows written at the start
 * (who, where, how, with which filters) and at the end (when and why it
 * stopped), and the hooks rows (what each stage boundary got on this
 * kernel), schema/ntp.sql.
 */
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "bpf/ntp_hash.h"
#include "lib/collector.h"
#include "lib/db.h"
#include "lib/filter.h"
#include "lib/record_priv.h"
#include "lib/transport.h"
#include "lib/version.h"

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

/* the filters in force, as meta filter_session, filter_io_type, filter_sizes */
static int write_filter_meta(struct ntp_record_session *s)
{
	const struct ntp_filter *f = s->o->filter;
	char sizes[NTP_FILTER_MAX_SIZES * 12] = "";
	size_t len = 0;
	unsigned int i;
	int err = 0;

	if (!f)
		return 0;
	if ((f->flags & NTP_FILTER_NS) && s->o->filter_session)
		err = ntp_writer__set_meta_text(s->w, "filter_session", s->o->filter_session);
	if (!err && (f->flags & NTP_FILTER_OPCODE))
		err = ntp_writer__set_meta_text(s->w, "filter_io_type", f->opcode == 2 ? "read" : "write");
	if (!err && (f->flags & NTP_FILTER_SIZE)) {
		for (i = 0; i < f->nsizes && i < NTP_FILTER_MAX_SIZES; i++)
			len += snprintf(sizes + len, sizeof(sizes) - len, "%s%u", i ? "," : "", f->sizes[i]);
		err = ntp_writer__set_meta_text(s->w, "filter_sizes", sizes);
	}
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

	err = ntp_writer__set_meta_text(w, "role", ntp_record__role_name(o->role));
	err = err ?: ntp_writer__set_meta_text(w, "transport", ntp_transport__name(o->transport));
	err = err ?: ntp_writer__set_meta_int(w, "sample_one_in", (int64_t)o->sample_one_in);
	err = err ?: ntp_writer__set_meta_int(w, "hash_version", NTP_HASH_VERSION);
	err = err ?: ntp_writer__set_meta_text(w, "kernel_release", u.release);
	err = err ?: ntp_writer__set_meta_text(w, "hostname", host);
	err = err ?: ntp_writer__set_meta_text(w, "boot_id", boot_id);
	err = err ?: ntp_writer__set_meta_int(w, "start_realtime_ns", (int64_t)start_real_ns);
	err = err ?: ntp_writer__set_meta_int(w, "start_ns", (int64_t)s->start_ns);
	err = err ?: ntp_writer__set_meta_text(w, "command_line", o->cmdline ? o->cmdline : "ntprof record");
	err = err ?: ntp_writer__set_meta_text(w, "ntprof_version", ntp_version_string);
	return err ?: write_filter_meta(s);
}

int ntp_record__write_stop_meta(struct ntp_record_session *s, uint64_t stop_ns, const char *reason)
{
	int err;

	err = ntp_writer__set_meta_int(s->w, "stop_ns", (int64_t)stop_ns);
	err = err ?: ntp_writer__set_meta_int(s->w, "duration_ns", (int64_t)(stop_ns - s->start_ns));
	/* ntprof's own cost (ntprof-ntp(5)): only when the kernel kept the statistics */
	if (s->have_cost) {
		err = err ?: ntp_writer__set_meta_int(s->w, "bpf_runs", (int64_t)s->bpf_runs);
		err = err ?: ntp_writer__set_meta_int(s->w, "bpf_run_ns", (int64_t)s->bpf_run_ns);
		err = err ?: ntp_writer__set_meta_int(s->w, "bpf_commands", (int64_t)s->bpf_commands);
		err = err ?: ntp_writer__set_meta_int(s->w, "bpf_window_ns", (int64_t)s->bpf_window_ns);
	}
	return err ?: ntp_writer__set_meta_text(s->w, "stop_reason", reason);
}
