/*
 * ladderfile.h - ladder.tsv, the ladder's files as the study recorded them
 * (rung, file, bytes, sha256, tab-separated, one rung a line after a
 * header), and the sha256 cache that keeps a resumed run from hashing a
 * 9 GB file again.
 *
 * Two machines' ladder.tsv files are compared on (rung, bytes, sha256):
 * identical bytes mean any difference in answers comes from the GPU and
 * its stack (graveyard verify).
 */
#ifndef LADDERFILE_H
#define LADDERFILE_H

#include <stddef.h>
#include <stdio.h>

#include "../util/util.h"

struct lrow {
    char rung[65];
    char file[BUF_PATH_MAX + 1]; /* a path past the cap is refused */
    unsigned long long bytes;
    char sha256[65];
    long line; /* its line in the file, from 1 */
};

/*
 * Read path into a new array (free with free()): the one reader of
 * ladder.tsv. A line is four tab-separated fields, bytes a number and the
 * sha256 64 lower-case hex digits or empty (not known). A missing file is
 * 0 rows when missing_ok, else an error. Returns 0, or -1 with
 * "FILE:LINE: problem" in msg.
 */
int ladderfile_read(const char *path, int missing_ok, struct lrow **rows,
                    size_t *n, char *msg, size_t msgsize);

/* The same from a stream already open (a bundle's copy, in memory),
 * name for the messages; f is left open. */
int ladderfile_parse(FILE *f, const char *name, struct lrow **rows, size_t *n,
                     char *msg, size_t msgsize);

/*
 * row's rung and file set (bytes and sha256 are the caller's): 0, or -1
 * with a message naming it when the rung passes 64 bytes or the file's
 * path the cap (BUF_PATH_MAX): a path cut short would name another file.
 */
int ladderfile_row(struct lrow *row, const char *rung, const char *file,
                   char *msg, size_t msgsize);

/* The row of rung among rows[0..n), or NULL. */
const struct lrow *ladderfile_find(const struct lrow *rows, size_t n,
                                   const char *rung);

/* Add row, or replace the line of the same rung; written atomically. */
int ladderfile_upsert(const char *path, const struct lrow *row, char *msg,
                      size_t msgsize);

/*
 * The sha256 cache (RUNDIR/sha256.cache: path, size, mtime, sha256): fill
 * hex and *bytes and return 1 when file's size and mtime are what the
 * cache saw when it hashed it; 0 when it must be hashed (again).
 */
int sha_cache_get(const char *cache, const char *file, char hex[65],
                  unsigned long long *bytes);

/* Record file's hash with the size and mtime it has now. 0 or -1. */
int sha_cache_put(const char *cache, const char *file, const char *hex,
                  char *msg, size_t msgsize);

#endif
