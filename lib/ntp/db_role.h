/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The roles a recording can have, meta role (ntprof-ntp(5), META KEYS),
 * defined once: what each holds and how its clocks relate.  record writes
 * host, target and both; ntprof join writes joined; every reader classifies
 * a recording by this table (lib/model/model_source.c).
 */
#ifndef NTP_DB_ROLE_H
#define NTP_DB_ROLE_H

#include <stdbool.h>

enum ntp_role {
	NTP_ROLE_HOST,
	NTP_ROLE_TARGET,
	NTP_ROLE_BOTH,
	NTP_ROLE_JOINED,
	NTP_ROLE_MAX,
};

/* the sides of the commands a recording holds */
enum ntp_side {
	NTP_SIDE_HOST = 1 << 0,		/* host_io rows */
	NTP_SIDE_TARGET = 1 << 1,	/* target_io rows */
};

struct ntp_role_desc {
	const char *name;         /* the meta value */
	unsigned int sides;       /* enum ntp_side */
	bool recorded;            /* written by ntprof record (-r NAME) */
	/*
	 * both sides on one clock and paired by the join: a "-r both"
	 * recording; a joined one holds two clocks and its own pairing
	 */
	bool one_clock;
	const char *what;         /* for people: "a host recording" */
};

extern const struct ntp_role_desc ntp_roles[NTP_ROLE_MAX];

/* the role named by meta value name; NTP_ROLE_MAX when unknown (or NULL) */
enum ntp_role ntp_role__find(const char *name);

#endif
