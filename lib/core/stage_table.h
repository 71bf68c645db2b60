/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages of a command, defined once (ntprof-design(7), STAGES): each
 * stage's machine key, which every machine output uses (JSON, separated
 * fields and CSV, the SQL column key_ns of the schema's views), its label,
 * which every text uses (reports, pages, the trace's slices), the side
 * whose clock times it, and its formula: the SQL expression over the
 * points a stage view exposes (schema/ntp.sql) that the view's column
 * must equal.  tests/integration/test_stage_table.py holds the schema's
 * views, and every output, to this table row by row.
 *
 * A stage is added as one row here plus its hook; ntprof-design(7), "A new
 * stage", shows what else it needs.
 */
#ifndef NTP_STAGE_TABLE_H
#define NTP_STAGE_TABLE_H

enum ntp_stage {
	NTP_STAGE_E2E,            /* the host's end-to-end latency */
	NTP_STAGE_BLOCK,
	NTP_STAGE_DRIVER,         /* the host's NVMe driver */
	NTP_STAGE_NETWORK_STAR,   /* a host recording alone: the network and the target */
	NTP_STAGE_NETWORK,
	NTP_STAGE_TARGET_DRIVER,
	NTP_STAGE_STORAGE,
	NTP_STAGE_RESIDENCE,      /* the target's share of the host's round trip */
	/* the sub-stages of --stages=detail */
	NTP_STAGE_HOST_TX,
	NTP_STAGE_R2T_HOST,
	NTP_STAGE_HOST_RX,
	NTP_STAGE_TARGET_RX,
	NTP_STAGE_R2T_WAIT,
	NTP_STAGE_READ_WAIT,
	NTP_STAGE_TARGET_TX,
	/* the application's stages around the host's (ntprof-report(1)) */
	NTP_STAGE_APP_SUBMIT,
	NTP_STAGE_APP_COMPLETE,
	NTP_STAGE_APP_REAP,
	NTP_STAGE_APP_E2E,
	NTP_NSTAGES,
};

/* whose clock times a stage */
enum ntp_stage_side {
	NTP_STAGE_HOST_SIDE,      /* the host's */
	NTP_STAGE_TARGET_SIDE,    /* the target's */
	NTP_STAGE_JOINED_SIDE,    /* a difference of the two sides': joined commands only */
	NTP_STAGE_APP_SIDE,       /* the host's, of the application's system calls */
};

/*
 * The names are arrays, not pointers, so that other tables' initializers
 * can name them (ntp_stages[NTP_STAGE_BLOCK].key is a constant address).
 */
struct ntp_stage_desc {
	char key[16];             /* machine key: "target_driver" (the views' target_driver_ns) */
	char label[16];           /* text label: "driver(t)" */
	/* the label where no target stage is beside it (a host recording alone): "driver"; "": label */
	char label_alone[16];
	enum ntp_stage_side side;
	/*
	 * the schema's view that has it as column key_ns (schema/ntp.sql), and
	 * its formula there: an SQL expression over that view's columns (its
	 * points, or other stages); NULL: no view has it (a sub-stage, which
	 * the readers make of the views' points, ntprof-design(7))
	 */
	const char *view;
	const char *formula;
};

extern const struct ntp_stage_desc ntp_stages[NTP_NSTAGES];

#endif
