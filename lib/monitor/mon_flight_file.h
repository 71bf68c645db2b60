/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's window on disk (ntprof-monitor(1), FLIGHT
 * RECORDER): DIR/.flight-window, the window's slots (lib/monitor/mon_flight.h)
 * as they are in memory, so that a monitor killed or restarted loses at most
 * the second since the last sync, and its next snapshot holds what the
 * last monitor kept.  Fixed size, whatever the rate: a header, then for
 * each side and slot the slot's interval and count and its cap records.
 * A slot is written records first, then its count, each time it changed.
 * Only a file of this boot (its monotonic clock: the records' stamps) and
 * of the same geometry (interval, slots, records a slot, record sizes) is
 * read back; any other is started anew.
 *
 *	ntp_flight_file__open()  the file opened, read back into f, or made
 *	ntp_flight_file__sync()  the slots changed since the last sync written
 *	ntp_flight_file__close()
 */
#ifndef NTP_MON_FLIGHT_FILE_H
#define NTP_MON_FLIGHT_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/monitor/mon_flight.h"

#define NTP_FLIGHT_FILE_NAME ".flight-window"

struct ntp_flight_file {
	int fd;
	char path[4096];
	size_t loaded;          /* records read back at open, both sides */
	uint64_t loaded_since_ns;       /* ... the start of the oldest interval of them */
};

/*
 * DIR/.flight-window opened for f (empty, just initialised), its records
 * read back into f when it is of this boot and f's geometry, else made
 * anew (owned by uid:gid when they are not -1).  0, or -errno after one
 * line naming the file.
 */
int ntp_flight_file__open(struct ntp_flight_file *ff, const char *dir, struct ntp_flight *f,
			  uid_t uid, gid_t gid);
/* the slots of f changed since the last sync written; 0 or -errno */
int ntp_flight_file__sync(struct ntp_flight_file *ff, struct ntp_flight *f);
void ntp_flight_file__close(struct ntp_flight_file *ff);

#endif
