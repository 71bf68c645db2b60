// SPDX-License-Identifier: GPL-2.0
/* What a reading command writes (lib/cli/output.h). */
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/output.h"
#include "lib/fmt/json.h"
#include "lib/fmt/safe_text.h"

static const struct ntp_form_desc ntp_forms[NTP_NFORMS] = {
	[NTP_FORM_JSON] = { "-j", "JSON", true },
	[NTP_FORM_CSV] = { "--csv", "CSV", false },
	[NTP_FORM_HTML] = { "--html", "HTML", false },
};

static bool on_stdout(const struct ntp_output *o, enum ntp_form f)
{
	return o->path[f] && !strcmp(o->path[f], "-");
}

/* with -j - stdout is the JSON document, an error's too */
static int refuse(struct ntp_output *o)
{
	char msg[1024];

	if (on_stdout(o, NTP_FORM_JSON)) {
		if (!ntp_err__last(msg, sizeof(msg)))
			snprintf(msg, sizeof(msg), "-: bad command line");
		ntp_json__error_document(stdout, NTP_EXIT_USAGE, msg);
	}
	return NTP_EXIT_USAGE;
}

int ntp_output__check(struct ntp_output *o, const char *const *inputs, int n)
{
	char list[128] = "";
	int k = 0, nout = 0;

	if (o->pretty && !o->path[NTP_FORM_JSON]) {
		ntp_error("--pretty indents the JSON, and there is none without -j FILE (or -j -)");
		return NTP_EXIT_USAGE;
	}
	if (on_stdout(o, NTP_FORM_JSON) && (o->separator || o->quiet)) {
		const char *opt = o->separator ? "-t" : "-q";

		ntp_error("%s shapes the text, and -j - writes the JSON instead of the text: "
			  "give -j FILE to have both, or leave %s out", opt, opt);
		return refuse(o);
	}
	for (int f = 0; f < NTP_NFORMS; f++)
		nout += on_stdout(o, f);
	if (nout > 1) {
		for (int f = 0; f < NTP_NFORMS; f++) {
			if (!on_stdout(o, f))
				continue;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s -",
				 !k ? "" : ++k == nout ? " and " : ", ", ntp_forms[f].opt);
			k += !k;
		}
		/* no JSON document: standard output is none of the forms' */
		ntp_error("%s: only one can write to stdout (standard output): give the others a "
			  "FILE", list);
		return NTP_EXIT_USAGE;
	}
	/* writing over a recording being read would destroy it */
	for (int f = 0; f < NTP_NFORMS; f++) {
		int rc = ntp_outfile__check_not_input(o->path[f], inputs, n, ntp_forms[f].opt);

		if (rc)
			return refuse(o);
	}
	return 0;
}

int ntp_output__open(struct ntp_output *o)
{
	for (int f = 0; f < NTP_NFORMS; f++) {
		char what[64];
		int rc;

		memset(&o->file[f], 0, sizeof(o->file[f]));
		if (!o->path[f])
			continue;
		snprintf(what, sizeof(what), "the %s %s", ntp_forms[f].noun, o->what);
		rc = ntp_outfile__open(&o->file[f], o->path[f], what);
		if (rc) {
			for (int g = 0; g < f; g++)
				ntp_outfile__close(&o->file[g], false);
			return rc;
		}
	}
	return 0;
}

FILE *ntp_output__file(const struct ntp_output *o, enum ntp_form f)
{
	return o->file[f].f;
}

FILE *ntp_output__text(struct ntp_output *o, int *err)
{
	for (int f = 0; f < NTP_NFORMS; f++)
		if (o->file[f].f == stdout)
			return NULL;
	if (!o->text) {
		/* the files' strings reach the terminal made safe (lib/fmt/safe_text.h) */
		o->text = ntp_safe__wrap(stdout);
		if (!o->text)
			*err = NTP_EXIT_FAILURE;
	}
	return o->text;
}

/*
 * The cause behind each code, for the JSON error document when no error
 * line was printed; a mismatch is the command's own: joined, or compared.
 */
static const char *exit_cause(int code, const char *mismatch)
{
	switch (code) {
	case NTP_EXIT_NOFILE:
		return "input file missing or unreadable";
	case NTP_EXIT_NOTSQLITE:
		return "not an SQLite database";
	case NTP_EXIT_NOTNTP:
		return "not an ntprof recording";
	case NTP_EXIT_TOONEW:
		return "recording of a newer schema than this ntprof reads";
	case NTP_EXIT_CORRUPT:
		return "recording truncated or damaged";
	case NTP_EXIT_USAGE:
		return "bad command line";
	case NTP_EXIT_MISMATCH:
		return mismatch;
	case NTP_EXIT_HASH:
		return "recordings sampled with different hash versions";
	default:
		return "runtime failure";
	}
}

void ntp_output__fail(struct ntp_output *o, int code, const char *path)
{
	size_t len = o->cut && o->cut < 1024 ? o->cut : 1024;
	FILE *f = o->file[NTP_FORM_JSON].f;
	char msg[1024];

	if (!f || o->error_written)
		return;
	/*
	 * a JSON file begun by a reader that streams (series) is made over:
	 * the error document is all it holds; standard output stays as it is
	 */
	if (o->path[NTP_FORM_JSON] && strcmp(o->path[NTP_FORM_JSON], "-") &&
	    ntp_outfile__restart(&o->file[NTP_FORM_JSON]))
		return;
	/* the line stderr got, so that a script reads the same cause a person does */
	if (!ntp_err__last(msg, len))
		snprintf(msg, len, "%s: %s", path, exit_cause(code, o->mismatch));
	ntp_json__error_document(f, code, msg);
	o->error_written = true;
}

int ntp_output__close(struct ntp_output *o, int rc)
{
	int crc = 0;

	if (o->text && fclose(o->text) && !rc && !crc)
		crc = NTP_EXIT_FAILURE;
	o->text = NULL;
	for (int f = 0; f < NTP_NFORMS; f++) {
		bool keep = !rc || (ntp_forms[f].kept_failed && o->error_written);

		if (o->file[f].f && ntp_outfile__close(&o->file[f], keep) && !crc)
			crc = NTP_EXIT_FAILURE;
	}
	return rc ? rc : crc;
}
