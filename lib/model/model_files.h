/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recordings on disk as a source (model_source.h): .ntp files, opened
 * through lib/ntp's reader.  One host or one target recording is read on a
 * connection of its own ("main"); the joined kinds attach their files
 * read-only to one private connection as ntp0, ntp1, ... where the join
 * (lib/join/join.h) pairs their commands.  Each file's meta, hooks and
 * intervals are read on that connection: a file is opened once, checked
 * once, and opened again only by readers that work on threads of their own
 * (their reopen callbacks).
 */
#ifndef NTP_MODEL_FILES_H
#define NTP_MODEL_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/join/join.h"
#include "lib/model/model_source.h"
#include "lib/ntp/db_meta.h"

/*
 * Open paths[0..n) (1 to NTP_JOIN_MAX_FILES, in any order): none given
 * twice, each checked (lib/ntp/db_read.h: a missing, foreign, newer or
 * damaged file is refused with its own exit code), the set classified
 * (enum ntp_kind) and, when it is to be joined, found joinable: known
 * roles, equal transport, sample rate and hash version (the meta keys'
 * table says which), a host side and a target side, a joined recording
 * alone.  fresh: a "-r both" recording is paired anew, not by the pairing
 * it holds.  -v names the kind on stderr.  0, or an NTP_EXIT_* code after
 * one error line (*s NULL).
 */
int ntp_source__open_files(struct ntp_source **s, const char *const *paths, int n, bool fresh);

/* a meta value of file i (text: caller frees), NULL or def when absent */
char *ntp_source__meta_text(const struct ntp_source *s, int i, enum ntp_meta_key k);
int64_t ntp_source__meta_int(const struct ntp_source *s, int i, enum ntp_meta_key k, int64_t def);
/*
 * The same of file i's side (enum ntp_side): a joined recording's meta is
 * its host's, and its target's is the one it kept (join_meta); every other
 * recording has one meta for its sides.
 */
char *ntp_source__side_meta_text(const struct ntp_source *s, int i, int side,
				 enum ntp_meta_key k);
int64_t ntp_source__side_meta_int(const struct ntp_source *s, int i, int side,
				  enum ntp_meta_key k, int64_t def);

/*
 * The join of a joined kind's files, not yet run (ntp_join__run): it works
 * on s->db, so the caller closes it (ntp_join__close) before the source.
 * 0 or an NTP_EXIT_* code.
 */
int ntp_source__open_join(struct ntp_source *s, const struct ntp_join_opts *o,
			  struct ntp_join **j);

/*
 * The "-r both" recording at path paired anew and its pairing written
 * into it (record -r both, once the file is closed; ntp_join__store).
 * 0 or an NTP_EXIT_* code after one line.
 */
int ntp_source__store_pairing(const char *path);

#endif
