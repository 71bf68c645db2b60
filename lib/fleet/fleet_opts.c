// SPDX-License-Identifier: GPL-2.0
/* The options that name the fleet's engine (lib/fleet/fleet_opts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fleet/fleet_opts.h"

static int read_password(const char *path, char **out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fopen(path, "r");

	if (!f) {
		ntp_error("--password-file %s: %s", path, strerror(errno));
		return NTP_EXIT_NOFILE;
	}
	n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		free(line);
		line = strdup("");
		if (!line)
			return NTP_EXIT_FAILURE;
	}
	line[strcspn(line, "\r\n")] = '\0';
	*out = line;
	return 0;
}

int ntp_fleet_conn__check(struct ntp_fleet_conn *c, struct ntp_ch_opts *o)
{
	const char *env = getenv(NTP_FLEET_PASSWORD_ENV);
	const char *needs = c->user ? "--user" : c->password_file ? "--password-file" :
			    c->cacert ? "--cacert" : c->database ? "--database" : NULL;

	memset(o, 0, sizeof(*o));
	if (!c->url) {
		if (needs) {
			ntp_error("'%s' needs --url (the fleet's engine)", needs);
			return NTP_EXIT_USAGE;
		}
		ntp_error("no --url: the fleet's ClickHouse server, e.g. --url http://localhost:8123");
		return NTP_EXIT_USAGE;
	}
	if (c->password_file) {
		int err = read_password(c->password_file, &c->password);

		if (err)
			return err;
	} else if (env) {
		c->password = strdup(env);
		if (!c->password)
			return NTP_EXIT_FAILURE;
	}
	o->url = c->url;
	/* a password without a user is the default user's */
	o->user = c->user ? c->user : c->password ? "default" : NULL;
	o->password = c->password;
	o->cacert = c->cacert;
	o->database = c->database ? c->database : "ntprof";
	return 0;
}

void ntp_fleet_conn__free(struct ntp_fleet_conn *c)
{
	if (c->password) {
		memset(c->password, 0, strlen(c->password));
		free(c->password);
		c->password = NULL;
	}
}

int ntp_fleet_conn__none(const struct ntp_fleet_conn *c, const struct ntp_fleet_filter *ff)
{
	const char *opts[] = { "--user", "--password-file", "--cacert", "--database", "--host",
			       "--target", "--run", "--subsysnqn", "--controller", "--from",
			       "--until", "--approx" };
	const char *given[] = { c->user, c->password_file, c->cacert, c->database,
				ff ? ff->hosts : NULL, ff ? ff->targets : NULL, ff ? ff->runs : NULL,
				ff ? ff->subsysnqn : NULL, ff ? ff->cntlids : NULL,
				ff ? ff->from : NULL, ff ? ff->until : NULL,
				ff && ff->approx ? "" : NULL };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (given[i]) {
			ntp_error("'%s' needs --url (the fleet's engine)", opts[i]);
			return NTP_EXIT_USAGE;
		}
	}
	return 0;
}
