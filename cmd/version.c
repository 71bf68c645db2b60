// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof version: what this binary is, and the versions that decide whether
 * two recordings can be read or joined (schema, sampling hash).
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>        /* __u64 for bpf/ntp_hash.h */
#include <bpf/libbpf.h>
#include <sqlite3.h>

#include "bpf/ntp_hash.h"
#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/json.h"
#include "lib/cli/opt.h"
#include "lib/ntp/db_schema.h"

void ntp_version__print(FILE *f)
{
	if (*ntp_version_git)
		fprintf(f, "ntprof version %s (git %s)\n", ntp_version_string, ntp_version_git);
	else
		fprintf(f, "ntprof version %s\n", ntp_version_string);
}

int cmd_version(int argc, const char **argv)
{
	static const char *const usage[] = {
		"ntprof version [-j|--json]",
		NULL,
	};
	bool json = false;
	const struct ntp_option opts[] = {
		NTP_OPT_BOOL('j', "json", &json, "print the versions as one JSON document"),
		NTP_OPT_END(),
	};
	char libbpf_version[32];
	struct ntp_json *j;
	int n;

	n = ntp_opt__parse(opts, argc, argv, usage, 0);
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n > 0) {
		ntp_error("unexpected argument '%s'", argv[0]);
		return NTP_EXIT_USAGE;
	}
	/* the library we run with, which may be newer than the headers we were built with */
	snprintf(libbpf_version, sizeof(libbpf_version), "%u.%u",
		 libbpf_major_version(), libbpf_minor_version());

	if (!json) {
		ntp_version__print(stdout);
		printf("schema version %d\n", NTP_DB_SCHEMA_VERSION);
		printf("sampling hash version %d\n", NTP_HASH_VERSION);
		printf("libbpf version %s\n", libbpf_version);
		printf("SQLite version %s\n", sqlite3_libversion());
		return NTP_EXIT_OK;
	}

	j = ntp_json__new(stdout, true);
	if (!j) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	ntp_json__start_object(j);
	ntp_json__string_field(j, "ntprof_version", ntp_version_string);
	ntp_json__int_field(j, "schema_version", NTP_DB_SCHEMA_VERSION);
	ntp_json__string_field(j, "command", "version");
	ntp_json__int_field(j, "sampling_hash_version", NTP_HASH_VERSION);
	ntp_json__string_field(j, "libbpf_version", libbpf_version);
	ntp_json__string_field(j, "sqlite_version", sqlite3_libversion());
	ntp_json__string_field(j, "git_describe", *ntp_version_git ? ntp_version_git : NULL);
	ntp_json__end_object(j);
	ntp_json__delete(j);
	return NTP_EXIT_OK;
}
