// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer over the readers: every input is written to a file and read as
 * a recording the way a user would read one copied from elsewhere, by
 * report (text and JSON), dump and export.  Whatever the bytes, a reader
 * must end with an exit code, never crash, never read or write out of
 * bounds, never overflow (the build has ASan and UBSan).
 *
 *   make fuzz         # build-fuzz/fuzz_readers, and a seed corpus in build-fuzz/seeds
 *   make fuzz-run     # mutate for FUZZ_TIME seconds (600)
 *   make check-fuzz   # replay tests/fuzz/corpus, tests/fuzz/regress and the seeds (CI)
 *
 * The outputs go to /dev/null, which the readers write in place and never
 * remove (lib/cli/outfile.h).  tests/fuzz/corpus holds what longer runs
 * found, minimized (-merge=1); tests/fuzz/regress the inputs of faults that
 * were fixed.
 *
 * The same bytes go to the other parser of untrusted input, monitor's HTTP
 * request parser (lib/monitor/mon_http.h), whole and cut short at each of
 * its first 256 lengths (what one read may return), and, as text, to its
 * --listen parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/export/export.h"
#include "lib/report/report.h"
#include "lib/dump/dump.h"
#include "lib/report/report_opts.h"
#include "lib/monitor/mon_http.h"

static char path[64];
static FILE *quiet;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(path, sizeof(path), "/tmp/ntprof-fuzz-%d.ntp", (int)getpid());
	/* what the readers print is not the point, only how they end; libFuzzer
	 * and the sanitizers keep stderr */
	if (!freopen("/dev/null", "w", stdout) || !(quiet = fopen("/dev/null", "w")))
		abort();
	ntp_err__set_stream(quiet);
	ntp_err__set_cmd("fuzz");
	return 0;
}

static void fuzz_http(const uint8_t *data, size_t size)
{
	struct ntp_http_req r;
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160], text[128];
	size_t n;

	/* a copy of exactly size bytes, so that ASan sees any read past them */
	char *buf = malloc(size ? size : 1);

	if (!buf)
		abort();
	memcpy(buf, data, size);
	for (n = 0; n <= size; n = n < 256 ? n + 1 : (n < size ? size : n + 1))
		if (ntp_http__parse(buf, n, &r) == NTP_HTTP_DONE &&
		    (strlen(r.method) >= sizeof(r.method) || strlen(r.path) >= sizeof(r.path)))
			abort();
	free(buf);
	n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
	memcpy(text, data, n);
	text[n] = '\0';
	ntp_http__parse_listen(text, &ss, &len, why, sizeof(why));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[1] = { path };
	struct ntp_report_opts ro = { 0 };
	struct ntp_report_opts rj = { .json_path = "/dev/null" };
	struct ntp_dump_opts d = { .output = "/dev/null" };
	struct ntp_export_opts e = { .output = "/dev/null" };
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	ntp_report__run(paths, 1, &ro);
	ntp_report__run(paths, 1, &rj);
	ntp_dump__run(paths, 1, &d);
	ntp_export__run(paths, 1, &e);
	unlink(path);
	fuzz_http(data, size);
	return 0;
}
