// SPDX-License-Identifier: GPL-2.0
/* A command line as a recording's meta keeps it (cmd/cmd.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

char *ntp_cmd__command_line(int argc, const char **argv)
{
	size_t len = strlen("ntprof") + 1;
	char *s, *p;
	int i;

	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s + sprintf(s, "ntprof");
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		*p++ = ' ';
		if (*a && !strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!")) {
			p = stpcpy(p, a);
			continue;
		}
		*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *a;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}
