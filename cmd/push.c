// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof push: recordings into the fleet's tables in ClickHouse.
 * Documented in ntprof-push(1); the work is in lib/fleet/push.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/fleet/fleet_opts.h"
#include "lib/fleet/push.h"

static const char *const push_usage[] = {
	"ntprof push --url URL [options] [FILE...]",
	NULL,
};

int cmd_push(int argc, const char **argv)
{
	struct ntp_push_opts o = { 0 };
	struct ntp_fleet_conn c = { 0 };
	const struct ntp_option opts[] = {
		NTP_FLEET_CONN_OPTIONS(&c),
		NTP_OPT_STRING(0, "cluster", &o.cluster, "NAME",
			       "create the tables over this cluster of the server's remote_servers: "
			       "NAME_local tables on the node, Distributed ones over them"),
		NTP_OPT_UINT(0, "batch-rows", &o.batch_rows, "N",
			    "commands per INSERT (default 262144)", 1, 100000000),
		NTP_OPT_UINT(0, "join-rows", &o.join_rows, "N",
			    "the engine's join in parts of about N commands a side (default 250000)",
			    1, 1000000000),
		NTP_OPT_BOOL(0, "no-join", &o.no_join, "push only: join no runs in the engine"),
		NTP_OPT_END(),
	};
	int n, err;

	ntp_err__set_cmd("push");
	n = ntp_opt__parse(opts, argc, argv, push_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	err = ntp_fleet_conn__check(&c, &o.ch);
	if (err)
		return err;
	/* no FILE: the tables only, made or checked */
	err = ntp_push__run(argv, n, &o);
	ntp_fleet_conn__free(&c);
	return err;
}
