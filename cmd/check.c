// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof check: what this kernel lets record do, without recording.  For each
 * role it loads the collector as record would (never attaching anything) and
 * prints the hook each stage boundary gets under each attach flavour, and
 * the stages that follow.  Documented in ntprof-check(1).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "bpf/ntp_attach_flags.h"
#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/json.h"
#include "lib/cli/opt.h"
#include "lib/cli/outfile.h"
#include "lib/collect/attach_plan.h"
#include "lib/collect/bpf_host.h"
#include "lib/collect/bpf_target.h"
#include "lib/collect/collector.h"
#include "lib/collect/kernel_probe.h"
#include "lib/ntp/db_schema.h"

#define NMODES 3
#define MAX_HOOKS NTP_COLLECTOR_MAX_HOOKS

static const __u32 modes[NMODES] = { NTP_RUN_FENTRY, NTP_RUN_KPROBE, NTP_RUN_TP };
static const char *const mode_names[NMODES] = { "fentry", "kprobe", "tracepoint" };

/* what one role can do: a uniform view of the host and target hooks tables */
struct role_check {
	const char *role;
	enum ntp_transport transport;
	int rc;                         /* the collector's prepare: 0 or NTP_EXIT_* */
	__u32 loaded;                   /* NTP_RUN_* classes */
	int nhooks;
	struct ntp_hook plan[NMODES][MAX_HOOKS];
	const char *stages[NMODES];     /* the stages each mode gives, NULL if unavailable */
	const char *lost[NMODES];
	char why_not[512];              /* the prepare's error, when it failed */
	/* record's cross-check (ntp_collector__blind): the decision, and its count apart, or "" */
	char decision[64], fabric[96];
	/* the hooks the kernel refused to load, set aside (one line each, as record warns) */
	char refused[NTP_COLLECTOR_MAX_FAILED][200];
	int nrefused;
};

struct kernel_check {
	char release[65];
	bool privileged, btf, raw_tp;
	struct ntp_attach_caps caps;    /* under AUTO */
};

static bool has_point(const struct role_check *r, int m, const char *point)
{
	int i;

	for (i = 0; i < r->nhooks; i++)
		if (!strcmp(r->plan[m][i].point, point))
			return strcmp(r->plan[m][i].flavour, "none") != 0;
	return false;
}

/* the stages of the host_stages / target_stages views each mode fills (schema/ntp.sql) */
static void role_stages(struct role_check *r)
{
	int m;

	for (m = 0; m < NMODES; m++) {
		if (!(r->loaded & modes[m]))
			continue;
		if (!strcmp(r->role, "host")) {
			if (has_point(r, m, "h_cmd_sent") && has_point(r, m, "h_recv")) {
				r->stages[m] = "block, driver, network*";
				r->lost[m] = "";
			} else {
				r->stages[m] = "block, network*";
				r->lost[m] = "driver (counted in network*)";
			}
		} else {
			if (has_point(r, m, "t_submit") && has_point(r, m, "t_sent")) {
				r->stages[m] = "target_driver, storage";
				r->lost[m] = "";
			} else {
				r->stages[m] = "storage";
				r->lost[m] = "target_driver (storage holds its receive side, "
					     "residence ends at nvmet_req_complete)";
			}
		}
	}
}

/* prepare the role's collector as record would, and plan its hooks under each mode */
static void check_role(struct role_check *r, const char *role)
{
	const struct ntp_collector_opts o = { .transport = r->transport, .sample_one_in = 1,
					      .attach = NTP_ATTACH_AUTO };
	struct ntp_collector *c;
	int m;

	r->role = role;
	ntp_err__clear_last();
	r->rc = !strcmp(role, "host") ? ntp_host__prepare(&c, &o, NULL, NULL)
				      : ntp_target__prepare(&c, &o, NULL, NULL);
	if (r->rc) {
		ntp_err__last(r->why_not, sizeof(r->why_not));
		return;
	}
	r->loaded = c->loaded;
	r->nhooks = c->nhooks;
	snprintf(r->decision, sizeof(r->decision), "%s", c->decision ? c->decision : "");
	snprintf(r->fabric, sizeof(r->fabric), "%s", c->fabric ? c->fabric : "");
	for (m = 0; m < c->nfailed; m++)
		snprintf(r->refused[r->nrefused++], sizeof(r->refused[0]), "%s", c->failed[m].why);
	for (m = 0; m < NMODES; m++)
		ntp_collector__plan(c, modes[m], m ? "if fentry cannot attach" : "", r->plan[m]);
	ntp_collector__free(c);
	role_stages(r);
}

static void check_kernel(struct kernel_check *k)
{
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	k->privileged = ntp_probe__bpf_privileged();
	k->btf = ntp_probe__vmlinux_btf();
	k->raw_tp = !ntp_probe__raw_tp();
	ntp_attach__probe_caps(&k->caps, NTP_ATTACH_AUTO);
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void print_text(FILE *f, const struct kernel_check *k, const struct role_check *roles, int n)
{
	int r, m, i;

	fprintf(f, "kernel %s\n", k->release);
	fprintf(f, "  BTF            %s\n", k->btf ? "yes" : "no: /sys/kernel/btf/vmlinux is missing");
	fprintf(f, "  fentry/fexit   %s%s\n", k->caps.fentry ? "yes" : "no: ", k->caps.no_fentry);
	fprintf(f, "  kprobes        %s%s\n", k->caps.kprobe ? "yes" : "no: ", k->caps.no_kprobe);
	fprintf(f, "  tp_btf         %s\n", yes_no(k->caps.tp_btf));
	fprintf(f, "  raw_tp         %s\n", yes_no(k->raw_tp));
	fprintf(f, "# record's default (AUTO): fentry if it attaches within %d s, else kprobes, "
		"else tracepoints only\n", NTP_ATTACH_FENTRY_TIMEOUT_S);
	for (r = 0; r < n; r++) {
		const struct role_check *c = &roles[r];

		fprintf(f, "\n%s, NVMe/%s: %s%s\n", c->role, ntp_transport__label(c->transport),
			c->rc ? "cannot be recorded: " : "can be recorded",
			c->rc ? (*c->why_not ? c->why_not : "see the error") : "");
		if (c->rc)
			continue;
		for (i = 0; i < c->nrefused; i++)
			fprintf(f, "  refused by the kernel, left out: %s\n", c->refused[i]);
		if (*c->fabric)
			fprintf(f, "  cross-check: the decision (%s) against %s\n", c->decision,
				c->fabric);
		else
			fprintf(f, "  cross-check: none on this kernel (no hook to count the commands "
				"apart from the decision (%s))\n", c->decision);
		for (m = 0; m < NMODES; m++) {
			if (!(c->loaded & modes[m])) {
				fprintf(f, "  %s mode: not available\n", mode_names[m]);
				continue;
			}
			fprintf(f, "  %s mode: stages %s%s%s\n", mode_names[m], c->stages[m],
				*c->lost[m] ? "; lost: " : "", c->lost[m]);
			for (i = 0; i < c->nhooks; i++)
				fprintf(f, "    %-12s %-10s %-45s %s\n", c->plan[m][i].point,
					c->plan[m][i].flavour, c->plan[m][i].hook, c->plan[m][i].reason);
		}
	}
}

static void print_json(FILE *f, const struct kernel_check *k, const struct role_check *roles, int n)
{
	struct ntp_json *j = ntp_json__new(f, true);
	int r, m, i;

	if (!j)
		return;
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "schema_version", NTP_DB_SCHEMA_VERSION);
	ntp_json__string_field(j, "command", "check");
	ntp_json__string_field(j, "kernel_release", k->release);
	ntp_json__name(j, "kernel");
	ntp_json__start_object(j);
	ntp_json__bool_field(j, "privileged", k->privileged);
	ntp_json__bool_field(j, "btf", k->btf);
	ntp_json__bool_field(j, "fentry", k->caps.fentry);
	ntp_json__string_field(j, "fentry_why_not", k->caps.fentry ? NULL : k->caps.no_fentry);
	ntp_json__bool_field(j, "kprobe", k->caps.kprobe);
	ntp_json__string_field(j, "kprobe_why_not", k->caps.kprobe ? NULL : k->caps.no_kprobe);
	ntp_json__bool_field(j, "tp_btf", k->caps.tp_btf);
	ntp_json__bool_field(j, "raw_tp", k->raw_tp);
	ntp_json__int_field(j, "fentry_timeout_s", NTP_ATTACH_FENTRY_TIMEOUT_S);
	ntp_json__end_object(j);
	ntp_json__name(j, "roles");
	ntp_json__start_array(j);
	for (r = 0; r < n; r++) {
		const struct role_check *c = &roles[r];

		ntp_json__start_object(j);
		ntp_json__string_field(j, "role", c->role);
		ntp_json__string_field(j, "transport", ntp_transport__name(c->transport));
		ntp_json__bool_field(j, "supported", !c->rc);
		ntp_json__int_field(j, "exit_code", c->rc);
		ntp_json__string_field(j, "why_not", c->rc && *c->why_not ? c->why_not : NULL);
		ntp_json__string_field(j, "decision", !c->rc ? c->decision : NULL);
		ntp_json__string_field(j, "cross_check", !c->rc && *c->fabric ? c->fabric : NULL);
		ntp_json__name(j, "refused");
		ntp_json__start_array(j);
		for (i = 0; i < c->nrefused; i++)
			ntp_json__string(j, c->refused[i]);
		ntp_json__end_array(j);
		ntp_json__name(j, "modes");
		ntp_json__start_array(j);
		for (m = 0; !c->rc && m < NMODES; m++) {
			bool avail = c->loaded & modes[m];

			ntp_json__start_object(j);
			ntp_json__string_field(j, "mode", mode_names[m]);
			ntp_json__bool_field(j, "available", avail);
			ntp_json__string_field(j, "stages", avail ? c->stages[m] : NULL);
			ntp_json__string_field(j, "lost", avail ? c->lost[m] : NULL);
			ntp_json__name(j, "hooks");
			ntp_json__start_array(j);
			for (i = 0; avail && i < c->nhooks; i++) {
				ntp_json__start_object(j);
				ntp_json__string_field(j, "point", c->plan[m][i].point);
				ntp_json__string_field(j, "hook", c->plan[m][i].hook);
				ntp_json__string_field(j, "flavour", c->plan[m][i].flavour);
				ntp_json__string_field(j, "reason", c->plan[m][i].reason);
				ntp_json__end_object(j);
			}
			ntp_json__end_array(j);
			ntp_json__end_object(j);
		}
		ntp_json__end_array(j);
		ntp_json__end_object(j);
	}
	ntp_json__end_array(j);
	ntp_json__end_object(j);
	ntp_json__delete(j);
}

int cmd_check(int argc, const char **argv)
{
	static const char *const usage[] = {
		"ntprof check [-r host|target|both] [-t tcp|rdma] [-j FILE]",
		NULL,
	};
	static const char *const role_choices[] = { "host", "target", "both", NULL };
	static const char *const transport_choices[] = { "tcp", "rdma", NULL };
	const char *role = "both", *transport = "tcp", *json = NULL;
	const struct ntp_option opts[] = {
		NTP_OPT_CHOICE('r', "role", &role, "ROLE",
			       "host, target or both (default both)", role_choices),
		NTP_OPT_CHOICE('t', "transport", &transport, "T",
			       "the transport (default tcp)", transport_choices),
		NTP_OPT_STRING('j', "json", &json, "FILE",
			       "write the result as JSON to FILE ('-': stdout, instead of the text)"),
		NTP_OPT_END(),
	};
	struct role_check roles[2];
	struct kernel_check k;
	int n, nroles = 0, i, rc = NTP_EXIT_OK;
	struct ntp_outfile of;
	int err;

	ntp_err__set_cmd("check");
	n = ntp_opt__parse(opts, argc, argv, usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n > 0) {
		ntp_error("unexpected argument '%s': usage: %s", argv[0], usage[0]);
		return NTP_EXIT_USAGE;
	}
	rc = ntp_cmd__check_privileges("check");
	if (rc)
		return rc;
	/* without the kernel's BTF no collector loads: that one fact, not a table of noes */
	if (!ntp_probe__vmlinux_btf()) {
		ntp_error("kernel lacks BTF: /sys/kernel/btf/vmlinux is missing "
			  "(needs CONFIG_DEBUG_INFO_BTF)");
		return NTP_EXIT_UNSUPPORTED;
	}

	check_kernel(&k);
	memset(roles, 0, sizeof(roles));
	for (i = 0; i < 2; i++)
		ntp_transport__parse(transport, &roles[i].transport);   /* one of transport_choices */
	if (strcmp(role, "target"))
		check_role(&roles[nroles++], "host");
	if (strcmp(role, "host"))
		check_role(&roles[nroles++], "target");
	for (i = 0; i < nroles; i++)
		if (roles[i].rc && rc == NTP_EXIT_OK)
			rc = roles[i].rc;

	if (!json) {
		print_text(stdout, &k, roles, nroles);
		return rc;
	}
	err = ntp_outfile__open(&of, json, "the JSON report");
	if (err)
		return err;
	print_json(of.f, &k, roles, nroles);
	err = ntp_outfile__close(&of, true);
	return err ? err : rc;
}
