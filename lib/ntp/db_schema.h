/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The .ntp recording: an SQLite database whose schema is schema/ntp.sql
 * (ntprof-ntp(5)), written by db_write.c and read by db_read.c.  Its text is
 * compiled in (the Makefile generates build/lib/ntp/db_schema.c from it).
 */
#ifndef NTP_DB_SCHEMA_H
#define NTP_DB_SCHEMA_H

#define NTP_DB_APPLICATION_ID 0x4E545046   /* 'NTPF' */
#define NTP_DB_SCHEMA_VERSION 1
#define NTP_DB_MIN_READABLE 1

/* the text of schema/ntp.sql, embedded at build time */
extern const char ntp_schema_sql[];

#endif
