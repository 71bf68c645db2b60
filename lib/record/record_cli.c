// SPDX-License-Identifier: GPL-2.0
/* The options of a recording on the command line (lib/record/record_cli.h). */
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/record/record_cli.h"

const char *const ntp_record_cli_roles[] = { "host", "target", "both", NULL };
const char *const ntp_record_cli_transports[] = { "tcp", "rdma", NULL };

static unsigned int role_bits(const char *role)
{
	if (!strcmp(role, "target"))
		return NTP_RECORD_TARGET;
	if (!strcmp(role, "both"))
		return NTP_RECORD_BOTH;
	return NTP_RECORD_HOST;
}

int ntp_record_cli__filter(struct ntp_filter *f, const char *session, const char *io_type,
			   const char *sizes)
{
	int err = io_type ? ntp_filter__set_io_type(f, io_type) : 0;

	err = err ?: sizes ? ntp_filter__set_sizes(f, sizes) : 0;
	return err ?: session ? ntp_filter__set_session(f, NULL, session) : 0;
}

enum ntp_attach_policy ntp_record_cli__attach(bool kprobes, bool fentry)
{
	return kprobes ? NTP_ATTACH_KPROBE : fentry ? NTP_ATTACH_FENTRY : NTP_ATTACH_AUTO;
}

int ntp_record_cli__apply(struct ntp_record_cli *c, struct ntp_record_opts *o)
{
	int err;

	ntp_err__set_verbosity(ntp_err__verbosity() + c->verbose);
	o->role = role_bits(c->role);
	if (c->session && o->role == NTP_RECORD_TARGET) {
		ntp_error("--session needs the host side (-r host or -r both): the target does not "
			  "know the host's namespace names");
		return NTP_EXIT_USAGE;
	}
	err = ntp_record_cli__filter(&c->filter, c->session, c->io_type, c->sizes);
	if (err)
		return err;
	if (c->filter.flags) {
		o->filter = &c->filter;
		o->filter_session = c->session;
	}
	ntp_transport__parse(c->transport, &o->transport);      /* one of the choices */
	o->sample_one_in = (uint32_t)c->sample;
	o->attach = ntp_record_cli__attach(c->kprobes, c->fentry);
	o->no_app = c->no_app;
	return 0;
}
